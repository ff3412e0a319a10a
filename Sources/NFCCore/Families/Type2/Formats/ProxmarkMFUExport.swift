/// Proxmark3 (RRG) MFU binary export, the current layout with the 56-byte header
/// (`mfu_dump_t` in proxmark3 `include/mifare.h`; `doc/mfu_binary_format_notes.md`).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | version: the GET_VERSION answer (zeros when unknown) |
/// | 8 | 2 | tbo (zero) |
/// | 10 | 1 | tbo1 (zero) |
/// | 11 | 1 | pages: the highest page index in the file (page count − 1) |
/// | 12 | 32 | signature: the READ_SIG answer (zeros when unknown) |
/// | 44 | 12 | 3 × (counter, 3 bytes LSB first; tearing flag, 1 byte) |
/// | 56 | 4·N | pages 0 … N−1 |
extension TagDump {
    /// The dump as a Proxmark3 MFU binary (new 56-byte-header layout).
    ///
    /// N is every page the product lets a reader read (Ultralight C: 44, or 48 when the dump holds the
    /// key pages, as Proxmark3 appends them only with a known key), never fewer than the dump holds.
    /// A partial dump (a page below N not read) is refused, as for MFD (``exportType2MFD(partial:)``);
    /// with `partial`, N is the first page not read (the header's page byte says so).
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for dumps without pages;
    ///   ``NFCError/malformedDump(_:)`` when a page is not 4 bytes, lies outside the memory, or there
    ///   are more than 256 pages; ``NFCError/partialDump(_:)`` for a partial dump without `partial`.
    func exportType2Proxmark3MFU(partial: Bool = false) throws -> [UInt8] {
        let image = try Type2PageImage(
            self, unsupportedMessage: "Proxmark3 MFU export is currently available only for page-based Type 2 style dumps.")
        let count = try image.readPageCount(Type2PageImage.binaryPageCount(for: cardInfo.type, maxPage: image.maxPage),
                                            partial: partial, format: "a Proxmark3 MFU file")
        guard count <= ProxmarkMFULayout.maxPages else {
            throw NFCError.malformedDump("\(count) pages; a Proxmark3 MFU file holds at most \(ProxmarkMFULayout.maxPages)")
        }
        var header = [UInt8](repeating: 0, count: ProxmarkMFULayout.newHeaderLength)
        if let version = cardInfo.version, version.count == 8 { header.replaceSubrange(0..<8, with: version) }
        header[11] = UInt8(count - 1)
        if let signature = type2?.signature, signature.count == 32 { header.replaceSubrange(12..<44, with: signature) }
        for index in 0..<3 {
            let offset = 44 + index * 4
            let counters = type2?.counters ?? []
            let tearing = type2?.tearing ?? []
            let value = index < counters.count ? counters[index] ?? 0 : 0
            header[offset] = UInt8(truncatingIfNeeded: value)
            header[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
            header[offset + 2] = UInt8(truncatingIfNeeded: value >> 16)
            header[offset + 3] = index < tearing.count ? tearing[index] ?? 0 : 0
        }
        return header + image.bytes(pageCount: count)
    }
}

/// The three Proxmark3 MFU binary layouts and how Proxmark3 tells them apart.
enum ProxmarkMFULayout: Equatable {
    /// 56-byte header (`mfu_dump_t`).
    case new
    /// 48-byte header (`old_mfu_dump_t`: version 8, tbo 2, tearing 3, pack 2, tbo1 1, signature 32).
    case old
    /// Pages only (the same bytes as a libnfc MFD).
    case plain

    static let newHeaderLength = 56
    static let oldHeaderLength = 48
    /// `mfu_dump_t.data` holds 1024 bytes, and the `pages` byte counts to 255.
    static let maxPages = 256

    /// The layout of `bytes`, decided as proxmark3 `client/src/fileutils.c` `detect_mfu_dump_format`
    /// does: valid UID check bytes (BCC0, BCC1) where page 0 would start after a 56-byte header, else
    /// after a 48-byte header, else at offset 0. Files without a valid BCC anywhere (synthetic UIDs,
    /// which Proxmark3 refuses) are taken as the new layout when the header's page byte matches the
    /// file length, else as plain pages. (Upstream used the length alone, so a 64-byte plain Ultralight
    /// dump became "56-byte header + 2 pages".) Nil when the length cannot hold whole pages.
    static func detect(_ bytes: [UInt8]) -> ProxmarkMFULayout? {
        if Type2PageImage.hasValidBCC(bytes, at: newHeaderLength), (bytes.count - newHeaderLength) % 4 == 0 { return .new }
        if Type2PageImage.hasValidBCC(bytes, at: oldHeaderLength), (bytes.count - oldHeaderLength) % 4 == 0 { return .old }
        if Type2PageImage.hasValidBCC(bytes, at: 0), bytes.count % 4 == 0 { return .plain }
        if bytes.count >= newHeaderLength + 4, (bytes.count - newHeaderLength) % 4 == 0,
            Int(bytes[11]) == (bytes.count - newHeaderLength) / 4 - 1
        {
            return .new
        }
        if !bytes.isEmpty, bytes.count % 4 == 0 { return .plain }
        return nil
    }
}
