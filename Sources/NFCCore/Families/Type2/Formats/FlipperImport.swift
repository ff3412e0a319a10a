import FoundationEssentials

/// Flipper Zero `.nfc` import for NTAG/Ultralight files: file Version 4 with data format 2 (current),
/// Version 3 with data format 1 (the product in `Device type`, e.g. `Device type: NTAG215`), files
/// without a data-format line, and Version 2 files (ATQA stored LSB first).
extension TagDump {
    /// Reads a Flipper Zero `.nfc` file holding an NTAG/Ultralight dump.
    ///
    /// Pages from `Pages read` on are treated as unread, as Flipper does. The UID comes from pages 0
    /// and 1 when they disagree with the `UID:` line (Flipper's own format document has such an example).
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for other Flipper files (other protocols, versions);
    ///   ``NFCError/malformedDump(_:)`` when a required key is missing or a value is not well formed.
    public static func importFlipperNFC(_ text: String) throws -> TagDump {
        let file = FlipperKeyValues(text)
        let fileVersion = try file.fileVersion()
        guard let deviceType = file["Device type"],
            deviceType == FlipperNFCFormat.deviceType || FlipperUltralightType.row(named: deviceType) != nil
        else {
            throw NFCError.unsupportedOperation(
                "Unsupported Flipper NFC file format: device type '\((file["Device type"] ?? "(none)").prefix(40))' is not imported "
                    + "(NFCBridge imports \(FlipperNFCFormat.importedDeviceTypes))")
        }
        let (uidLine, atqa, sak) = try file.iso14443A(fileVersion: fileVersion)
        let dataFormat = try file.dataFormatVersion()
        var row: FlipperUltralightType.Row?
        if dataFormat >= 2 {
            guard let name = file["NTAG/Ultralight type"] else { throw NFCError.malformedDump("missing NTAG/Ultralight type") }
            guard let named = FlipperUltralightType.row(named: name) else {
                throw NFCError.unsupportedOperation("Unsupported NTAG/Ultralight type '\(name)'")
            }
            row = named
        } else {
            row = FlipperUltralightType.row(named: deviceType)
        }

        let signature = try file.optionalBytes("Signature", count: 32)
        let version = try file.optionalBytes("Mifare version", count: 8)
        var counters: [UInt32?] = []
        var tearing: [UInt8?] = []
        for index in 0..<3 {
            counters.append(try file["Counter \(index)"].map { text -> UInt32 in
                guard let value = UInt32(text), value <= Type2Extras.maximumCounter else {
                    throw NFCError.malformedDump("Counter \(index) '\(text)' is not a 24-bit counter value (0–16777215, READ_CNT)")
                }
                return value
            })
            tearing.append(try file.optionalBytes("Tearing \(index)", count: 1)?.first)
        }

        guard let totalText = file["Pages total"] else { throw NFCError.malformedDump("missing Pages total") }
        guard let total = Int(totalText), total > 0, total <= FlipperNFCFormat.maxPages else {
            throw NFCError.malformedDump("Pages total '\(totalText)'")
        }
        var pagesRead = total
        // Data format 2 added "Pages read"; older files were always read in full (mf_ultralight_load).
        if dataFormat >= FlipperNFCFormat.dataFormatVersion {
            guard let readText = file["Pages read"] else { throw NFCError.malformedDump("missing Pages read") }
            guard let read = Int(readText), read >= 0, read <= total else {
                throw NFCError.malformedDump("Pages read '\(readText)' with \(total) pages total")
            }
            pagesRead = read
        }
        var pages: [Page] = []
        for number in 0..<total {
            let data = try file.bytes("Page \(number)", count: 4)
            if number < pagesRead { pages.append(Page(number: number, data: data)) }
        }

        let derivedUID = Type2PageImage.uid(in: pages)
        let uid = derivedUID ?? uidLine
        let knownVersion = version.flatMap { $0.allSatisfy { $0 == 0 } ? nil : $0 }
        let (type, product) = Type2FileIdentity.type2Identity(version: knownVersion, named: row, pageCount: total)

        return TagDump(
            cardInfo: CardInfo(
                type: type, uid: uid, atqa: atqa, sak: sak, product: product, version: knownVersion),
            pages: pages,
            ndefMessage: Type2Dump.ndefMessage(inImage: pages),
            facts: [Fact(key: "Imported From", value: "Flipper Zero .nfc"), Fact(key: "Pages Total", value: "\(total)")],
            // Fewer pages read than the product lets anyone read: an AUTH0 boundary stopped the reader
            // (Ultralight C key pages are never readable, so 44 of 48 is a full read).
            capabilities: pagesRead < (Type2MemoryMap.forType(type)?.readablePages ?? total)
                ? [.authenticationRequired, .partiallyReadable] : [.readable],
            family: .type2(Type2Extras(
                signature: signature.flatMap { $0.allSatisfy { $0 == 0 } ? nil : $0 }, counters: counters,
                tearing: tearing, totalPages: total))
        )
    }
}

extension FlipperNFCFormat {
    /// The `Device type` values imported, in words, for the message refusing another one.
    static var importedDeviceTypes: String {
        "'\(deviceType)' (Versions 2–3 also the product, e.g. 'NTAG215'), '\(FlipperClassicFormat.deviceType)', "
            + "'\(FlipperISO15693Format.deviceType)' and '\(FlipperISO15693Format.slixDeviceType)' "
            + "(Versions 2–3: '\(FlipperISO15693Format.legacyDeviceType)')"
    }
}
