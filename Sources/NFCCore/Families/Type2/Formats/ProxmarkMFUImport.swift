/// Proxmark3 MFU binary import: the new (56-byte header), old (48-byte header) and plain layouts,
/// told apart as Proxmark3 does (``ProxmarkMFULayout/detect(_:)``), plus the amiibo image sizes.
extension TagDump {
    /// Reads a Proxmark3 MFU binary dump (`hf mfu dump`), any of its three layouts.
    ///
    /// The UID comes from pages 0 and 1; the type and product from the header's GET_VERSION answer
    /// (``GetVersionTable``), else from the page count; the NDEF message from the TLV area. ATQA
    /// `00 44` and SAK `00` are set, as every Ultralight/NTAG answers (upstream wrote ATQA LSB first).
    /// - Throws: ``NFCError/malformedDump(_:)`` when the length does not fit any layout, there are no
    ///   pages or more than 256.
    public static func importProxmark3MFU(_ bytes: [UInt8]) throws -> TagDump {
        guard let layout = ProxmarkMFULayout.detect(bytes) else {
            throw NFCError.malformedDump("\(bytes.count) bytes is not a Proxmark3 MFU dump (not whole 4-byte pages)")
        }
        return try importProxmark3MFU(bytes, layout: layout, source: "Proxmark3 MFU")
    }

    /// `bytes` read in `layout` (no detection: the Proxmark3 JSON import builds the new layout);
    /// `source` is the `Imported From` fact.
    static func importProxmark3MFU(_ bytes: [UInt8], layout: ProxmarkMFULayout, source: String) throws -> TagDump {
        var version: [UInt8]?
        var signature: [UInt8]?
        var counters: [UInt32?] = [nil, nil, nil]
        var tearing: [UInt8?] = [nil, nil, nil]
        var pack: [UInt8]?
        var payload: ArraySlice<UInt8>
        switch layout {
        case .new:
            version = Array(bytes[0..<8])
            signature = Array(bytes[12..<44])
            for index in 0..<3 {
                let offset = 44 + index * 4
                counters[index] = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                tearing[index] = bytes[offset + 3]
            }
            payload = bytes[ProxmarkMFULayout.newHeaderLength...]
        case .old:
            version = Array(bytes[0..<8])
            tearing = bytes[10..<13].map { $0 }
            pack = Array(bytes[13..<15])
            signature = Array(bytes[16..<48])
            payload = bytes[ProxmarkMFULayout.oldHeaderLength...]
        case .plain:
            payload = bytes[...]
            if let extra = AmiiboImage.trailingSignatureLength(forFileSize: bytes.count) {
                signature = Array(payload.suffix(extra))
                payload = payload.dropLast(extra)
            }
        }
        // `mfu_dump_t.data` holds at most 256 pages (its page byte counts to 255).
        guard payload.count <= ProxmarkMFULayout.maxPages * 4 else {
            throw NFCError.malformedDump(
                "\(payload.count / 4) pages; a Proxmark3 MFU file holds at most \(ProxmarkMFULayout.maxPages)")
        }
        var dump = try TagDump.importType2Pages(
            Array(payload), version: version.flatMap(nonZero), source: source)
        dump.type2?.signature = signature.flatMap(nonZero)
        if layout == .new {
            dump.type2?.counters = counters
            dump.type2?.tearing = tearing
        } else if layout == .old {
            dump.type2?.tearing = tearing
        }
        // The old layout kept PACK beside the pages; put it where the tag keeps it (PACK page, bytes 0–1),
        // as Proxmark3's own converter means to.
        if let pack = pack.flatMap(nonZero), let packPage = Type2MemoryMap.forType(dump.cardInfo.type)?.packPage,
            let index = dump.pages.firstIndex(where: { $0.number == packPage })
        {
            dump.pages[index].data.replaceSubrange(0..<2, with: pack)
        }
        return dump
    }
}

/// `bytes` unless every byte is zero (the formats write zeros for "unknown").
func nonZero(_ bytes: [UInt8]) -> [UInt8]? {
    bytes.allSatisfy { $0 == 0 } ? nil : bytes
}
