/// Flipper Zero `.nfc` import for MIFARE Classic files: file Versions 2–4, Classic data format 2 (`??`
/// per unknown byte) and the older files without it.
extension TagDump {
    /// Reads a Flipper Zero `.nfc` file holding a MIFARE Classic dump.
    ///
    /// Bytes are taken as Flipper's loader takes them (`mf_classic_parse_block`): a data block with any
    /// `??` is unread and left out; in a trailer, key A (bytes 0–5), access bits (6–9) and key B
    /// (10–15) are each known only when all their bytes are; the unknown parts become zeros and are
    /// listed in the dump's ``ClassicTrailerGaps`` facts; a trailer of `??` only is left out.
    ///
    /// Files before data format 2 (an older `Data format version`, or none) have no `??`: Flipper
    /// itself forgets all their blocks and keys on loading. Here their blocks are kept and read as an
    /// MFD is (``importClassicMFD(_:)``): a sector of zeros was not read, a zero key is unknown.
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for other Flipper files (other protocols,
    ///   versions, Classic types); ``NFCError/malformedDump(_:)`` when a required key is missing or a
    ///   value is not well formed.
    public static func importFlipperClassicNFC(_ text: String) throws -> TagDump {
        let file = FlipperKeyValues(text)
        let fileVersion = try file.fileVersion()
        guard file["Device type"] == FlipperClassicFormat.deviceType else {
            throw NFCError.unsupportedOperation("Not a Flipper MIFARE Classic file (Device type '\(file["Device type"] ?? "")')")
        }
        let (uid, atqa, sak) = try file.iso14443A(fileVersion: fileVersion)
        guard let typeName = file["Mifare Classic type"] else { throw NFCError.malformedDump("missing Mifare Classic type") }
        guard let fileType = ClassicFileType.forFlipperName(typeName) else {
            throw NFCError.unsupportedOperation("Unsupported Mifare Classic type '\(typeName)'")
        }
        let dataFormat = try file.dataFormatVersion()

        let layout = fileType.layout
        var blocks: [Int: [UInt8]] = [:]
        var gaps = ClassicTrailerGaps()
        for number in 0..<layout.totalBlocks {
            guard let line = file["Block \(number)"] else { throw NFCError.malformedDump("missing Block \(number)") }
            let bytes = try FlipperClassicFormat.parseBlock(line, number: number)
            guard bytes.contains(where: { $0 != nil }) else { continue }
            guard layout.isTrailer(number), let sector = layout.sector(ofBlock: number) else {
                // A data block with unknown bytes is unread (Flipper sets it read only when all 16 are known).
                if bytes.allSatisfy({ $0 != nil }) { blocks[number] = bytes.map { $0 ?? 0 } }
                continue
            }
            var data = [UInt8](repeating: 0, count: 16)
            for part in ClassicTrailerGaps.Part.allCases {
                if bytes[part.bytes].allSatisfy({ $0 != nil }) {
                    for index in part.bytes { data[index] = bytes[index] ?? 0 }
                } else {
                    gaps[part].insert(sector)
                }
            }
            blocks[number] = data
        }
        var known = blocks.map { Block(number: $0.key, data: $0.value) }
        if dataFormat < FlipperClassicFormat.dataFormatVersion {
            // No `??` then: unread sectors and keys not found were written as zeros, as in an MFD.
            var image = [UInt8](repeating: 0, count: layout.totalBytes)
            for block in known { image.replaceSubrange(block.number * 16..<block.number * 16 + 16, with: block.data) }
            (known, gaps) = zeroMarkedClassicBlocks(image, layout: layout)
        }
        return importedClassicDump(
            fileType: fileType, uid: uid, atqa: atqa, sak: sak, blocks: known, gaps: gaps, source: "Flipper Zero .nfc")
    }
}

extension FlipperClassicFormat {
    /// The 16 bytes of a `Block N:` value: two hex digits or `??` each, separated by spaces; nil for `??`.
    static func parseBlock(_ text: String, number: Int) throws -> [UInt8?] {
        let tokens = text.split(separator: " ", omittingEmptySubsequences: true)
        guard tokens.count == 16 else {
            throw NFCError.malformedDump("Block \(number) has \(tokens.count) bytes, not 16")
        }
        return try tokens.map { token -> UInt8? in
            if token == unknownByte { return nil }
            guard token.count == 2, let byte = [UInt8](hex: String(token))?.first else {
                throw NFCError.malformedDump("Block \(number): '\(token)' is neither a hex byte nor ??")
            }
            return byte
        }
    }
}
