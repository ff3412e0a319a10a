/// Proxmark3 JSON dump of a Type 2 tag (`FileType: mfu`), as the RRG client writes it (`hf mfu dump`,
/// `client/src/fileutils.c` `prepareJSON`, case `jsfMfuMemory`) and reads it (`loadFileJSONex`, `mfu`):
///
///     {
///       "Created": "proxmark3",
///       "FileType": "mfu",
///       "Card": {
///         "UID": "045869D29C3980",          pages 0–1 without BCC0 (7 bytes)
///         "Version": "0004040201001303",    GET_VERSION (8 bytes)
///         "TBO_0": "0000", "TBO_1": "00",   reserved
///         "Signature": "1FA9…",             READ_SIG (32 bytes)
///         "Counter0": "000000", "Tearing0": "00", … Counter2, Tearing2   (3 bytes as read, LSB first; 1 byte)
///       },
///       "blocks": { "0": "045869BD", "1": "D29C3980", … }
///     }
///
/// The same fields as the MFU binary's 56-byte header (``ProxmarkMFULayout``), so both are written and
/// read through the binary.
extension TagDump {
    /// The dump as a Proxmark3 `mfu` JSON file: the header and pages of ``exportType2Proxmark3MFU(partial:)``
    /// (the same pages, the same refusal of a partial dump unless `partial`).
    func exportType2ProxmarkJSON(partial: Bool = false) throws -> String {
        // The last row of the registry gets every dump: one without pages is another family's.
        guard !pages.isEmpty else { throw ExportFormat.pm3json.cannotHold(self, what: "page or block images") }
        let binary = try exportType2Proxmark3MFU(partial: partial)
        let header = Array(binary[0..<ProxmarkMFULayout.newHeaderLength])
        let data = Array(binary[ProxmarkMFULayout.newHeaderLength...])
        let pages = stride(from: 0, to: data.count, by: 4).map { Array(data[$0..<$0 + 4]) }
        // Proxmark3 takes the UID from pages 0 and 1 (UID0–2, then UID3–6), whatever the card said.
        let uid = data.count >= 8 ? Array(data[0..<3] + data[4..<8]) : []
        var card: [(String, ProxmarkJSON.Value)] = [
            ("UID", .string(uid.hexString)),
            ("Version", .string(Array(header[0..<8]).hexString)),
            ("TBO_0", .string(Array(header[8..<10]).hexString)),
            ("TBO_1", .string(Array(header[10..<11]).hexString)),
            ("Signature", .string(Array(header[12..<44]).hexString)),
        ]
        for index in 0..<3 {
            let offset = 44 + index * 4
            card.append(("Counter\(index)", .string(Array(header[offset..<offset + 3]).hexString)))
            card.append(("Tearing\(index)", .string(Array(header[offset + 3..<offset + 4]).hexString)))
        }
        return ProxmarkJSON.text([
            ("Created", .string(ProxmarkJSON.creator)),
            ("FileType", .string(ProxmarkMFUJSONFormat.fileType)),
            ("Card", .object(card)),
            ("blocks", ProxmarkJSON.blocksObject(pages)),
        ])
    }

    /// Reads a Proxmark3 `mfu` JSON file: the `Card` fields into the MFU header, `blocks` `"0"` … as
    /// pages (at most 256, 4 bytes each, from 0 without a gap), then as ``importProxmark3MFU(_:)``
    /// reads the new binary layout (type from the GET_VERSION answer, else the page count).
    /// - Throws: ``NFCError/malformedDump(_:)`` when a field is not hex of its size, a page is not 4
    ///   bytes, there are no pages, more than 256, or pages after a gap.
    static func importProxmark3MFUJSON(_ document: ProxmarkJSON.Document) throws -> TagDump {
        let pages = try document.orderedBlocks(size: 4, limit: ProxmarkMFULayout.maxPages, unit: "page")
        guard !pages.isEmpty else { throw NFCError.malformedDump("Proxmark3 JSON: no pages (blocks \"0\" …)") }
        var header = [UInt8](repeating: 0, count: ProxmarkMFULayout.newHeaderLength)
        var fields: [(key: String, offset: Int, length: Int)] = [
            ("Version", 0, 8), ("TBO_0", 8, 2), ("TBO_1", 10, 1), ("Signature", 12, 32),
        ]
        for index in 0..<3 {
            fields.append(("Counter\(index)", 44 + index * 4, 3))
            fields.append(("Tearing\(index)", 47 + index * 4, 1))
        }
        for (key, offset, length) in fields {
            if let bytes = try document.card(key, length: length) { header.replaceSubrange(offset..<offset + length, with: bytes) }
        }
        header[11] = UInt8(pages.count - 1)
        return try importProxmark3MFU(header + pages.flatMap { $0 }, layout: .new, source: "Proxmark3 JSON")
    }
}

/// Constants of the `mfu` file type.
enum ProxmarkMFUJSONFormat {
    /// `FileType` of a Type 2 dump.
    static let fileType = "mfu"
}
