/// The Proxmark3 (RRG client) files of a MIFARE Classic dump besides the block image
/// (``TagDump/exportProxmark3ClassicDump(partial:)``, `hf-mf-<UID>-dump.bin`):
///
/// - the JSON dump, `FileType: mfc v2` (`client/src/fileutils.c` `prepareJSON` case `jsfMfc_v2`, read by
///   `loadFileJSONex`):
///
///       {
///         "Created": "proxmark3",
///         "FileType": "mfc v2",
///         "Card": { "UID": "DEADBEEF", "ATQA": "0400", "SAK": "08" },
///         "blocks": { "0": "DEADBEEF220804006263646566676869", … },
///         "SectorKeys": { "0": { "KeyA": "FFFFFFFFFFFF", "KeyB": "FFFFFFFFFFFF", "AccessConditions": "FF078069" }, … }
///       }
///
///   ATQA in the order it came over the air (least significant byte first: `0400` for ATQA 0004h), as the
///   client stores `iso14a_card_select_t.atqa`. The client also writes `AccessConditionsText` (its own
///   descriptions, for people) in each sector; NFCBridge does not, and the client's loader reads
///   neither that nor `SectorKeys` (only `blocks`).
/// - the key file `hf-mf-<UID>-key.bin` that `hf mf restore` loads (`createMfcKeyDump`,
///   `loadFileBinaryKey`): key A of every sector (6 bytes each), then key B of every sector; a key not
///   known is `FF FF FF FF FF FF`, as the client writes it. `hf mf restore` writes these keys into every
///   trailer it restores.
/// - the emulator file `.eml` that `hf mf eload` reads (`loadFileEML_safe`): one block per line, 32
///   uppercase hex digits, lines separated by `\n` with none after the last (the client's old
///   `saveFileEML`); lines starting with `#` are comments.
extension TagDump {
    /// The dump as a Proxmark3 `mfc v2` JSON file: the blocks of the block image (the same refusal of a
    /// dump with blocks not read unless `partial`, which writes the whole sectors before the first one),
    /// unknown trailer parts as zeros (as in the MFD; the import reads zero keys back as unknown).
    /// - Throws: as ``exportClassicMFD(partial:)``.
    func exportClassicProxmarkJSON(partial: Bool = false) throws -> String {
        let image = try ClassicBlockImage(
            self, unsupportedMessage: "Proxmark3 JSON export of blocks is available only for MIFARE Classic dumps.")
        let count = try image.readBlockCount(partial: partial, format: "a Proxmark3 JSON file")
        let bytes = image.bytes(blockCount: count)
        let blocks = stride(from: 0, to: bytes.count, by: 16).map { Array(bytes[$0..<$0 + 16]) }
        let atqa = cardInfo.atqa?.count == 2 ? cardInfo.atqa ?? [] : image.fileType.atqa(uidLength: image.uid(self).count)
        var sectorKeys: [(String, ProxmarkJSON.Value)] = []
        for number in 0..<count where image.layout.isTrailer(number) {
            guard let sector = image.layout.sector(ofBlock: number) else { continue }
            let trailer = blocks[number]
            sectorKeys.append((String(sector), .object([
                ("KeyA", .string(Array(trailer[0..<6]).hexString)),
                ("KeyB", .string(Array(trailer[10..<16]).hexString)),
                ("AccessConditions", .string(Array(trailer[6..<10]).hexString)),
            ])))
        }
        return ProxmarkJSON.text([
            ("Created", .string(ProxmarkJSON.creator)),
            ("FileType", .string(ProxmarkClassicFormat.jsonFileType)),
            ("Card", .object([
                ("UID", .string(image.uid(self).hexString)),
                // Proxmark3 keeps ATQA as received: least significant byte first.
                ("ATQA", .string(Array(atqa.reversed()).hexString)),
                ("SAK", .string([cardInfo.sak ?? image.fileType.sak].hexString)),
            ])),
            ("blocks", ProxmarkJSON.blocksObject(blocks)),
            ("SectorKeys", .object(sectorKeys)),
        ])
    }

    /// The dump's keys as the Proxmark3 key file `hf-mf-<UID>-key.bin`: key A of sectors 0 … N−1, then
    /// key B of sectors 0 … N−1, 6 bytes each (Mini 60, 1K 192, Plus 2K 384, 4K 480 bytes); `FF` × 6
    /// for every key the dump does not know (a sector not read, a key no dictionary key found), as
    /// `hf mf dump` writes it.
    /// - Throws: as ``exportClassicMFD(partial:)``, but never ``NFCError/partialDump(_:)``: the file
    ///   has its own mark for a key not known.
    public func exportProxmark3ClassicKeys() throws -> [UInt8] {
        let image = try ClassicBlockImage(
            self, unsupportedMessage: "Proxmark3 key files are available only for MIFARE Classic dumps.")
        var keysA: [UInt8] = []
        var keysB: [UInt8] = []
        for sector in 0..<image.layout.sectorCount {
            // A block not in the dump has no known byte (``ClassicBlockImage/knownBytes(_:)``).
            let trailer = image.layout.trailerBlock(ofSector: sector).map(image.knownBytes)
                ?? [UInt8?](repeating: nil, count: 16)
            func key(_ part: ClassicTrailerGaps.Part) -> [UInt8] {
                let bytes = trailer[part.bytes]
                return bytes.allSatisfy { $0 != nil } ? bytes.map { $0 ?? 0 } : ProxmarkClassicFormat.unknownKey
            }
            keysA += key(.keyA)
            keysB += key(.keyB)
        }
        return keysA + keysB
    }

    /// The dump as a Proxmark3 `.eml` file: the blocks of the block image, one per line (the same
    /// refusal of a dump with blocks not read unless `partial`).
    /// - Throws: as ``exportClassicMFD(partial:)``.
    public func exportProxmark3ClassicEML(partial: Bool = false) throws -> String {
        let image = try ClassicBlockImage(
            self, unsupportedMessage: "Proxmark3 .eml export of blocks is available only for MIFARE Classic dumps.")
        let bytes = image.bytes(blockCount: try image.readBlockCount(partial: partial, format: "an .eml file"))
        return stride(from: 0, to: bytes.count, by: 16).map { Array(bytes[$0..<$0 + 16]).hexString }.joined(separator: "\n")
    }

    /// Reads a Proxmark3 `mfc v2` (or the older `mfcard`) JSON file: `blocks` `"0"` … (16 bytes each,
    /// from 0 without a gap), typed by their count and `Card.SAK` (else block 0's) as an image is
    /// (``ClassicImageIdentity``: a 1K cut of 320 bytes stays a 1K); then read as an MFD is (a sector of zeros was
    /// not read, a zero key is unknown). UID, ATQA (least significant byte first in the file) and SAK
    /// come from `Card` when there, else from block 0 and the product.
    /// - Throws: ``NFCError/malformedDump(_:)`` for a block that is not 16 bytes of hex, blocks after a
    ///   gap, more blocks than a 4K has, a count no product has, or `Card` values of the wrong size.
    static func importClassicProxmarkJSON(_ document: ProxmarkJSON.Document) throws -> TagDump {
        let blocks = try document.orderedBlocks(size: 16, limit: ClassicLayout.classic4K.totalBlocks, unit: "block")
        let image = blocks.flatMap { $0 }
        let sak = try document.card("SAK", length: 1)?.first
        // Blocks are keyed in JSON, so a file may stop inside a sector: with a Card.SAK, any count below
        // the SAK's product's memory is that product, partial.
        let fileType = ClassicImageIdentity(byteCount: image.count, sak: sak ?? ClassicImageIdentity.sakInManufacturerBlock(image))?.fileType
            ?? ClassicFileType.rows.first { $0.sak == sak && $0.layout.totalBlocks > blocks.count }
        guard let fileType, !blocks.isEmpty else {
            let sizes = ClassicFileType.rows.map { String($0.layout.totalBlocks) }.joined(separator: ", ")
            throw NFCError.malformedDump(
                "Proxmark3 JSON: \(blocks.count) blocks is no MIFARE Classic memory (\(sizes) blocks; fewer only with a Card.SAK)")
        }
        let (known, gaps) = zeroMarkedClassicBlocks(image, layout: fileType.layout)
        let uid = try document.card("UID") ?? known.first { $0.number == 0 }.map { ClassicBlockImage.uid(inBlock0: $0.data) } ?? []
        let atqa = try document.card("ATQA", length: 2).map { Array($0.reversed()) } ?? fileType.atqa(uidLength: uid.count)
        return importedClassicDump(fileType: fileType, uid: uid, atqa: atqa, sak: sak ?? fileType.sak,
                                   blocks: known, gaps: gaps, source: "Proxmark3 JSON")
    }

    /// Reads a Proxmark3 `.eml` file of a MIFARE Classic: one block of 32 hex digits per line (`#`
    /// lines and blank lines skipped), typed by the size as an MFD is and then read as one.
    /// - Throws: ``NFCError/malformedDump(_:)`` for a line that is not one block of hex, or a size no
    ///   Classic product has.
    public static func importProxmark3ClassicEML(_ text: String) throws -> TagDump {
        var bytes: [UInt8] = []
        for (index, line) in text.textLines().enumerated() {
            let trimmed = String(line.filter { $0 != " " && $0 != "\t" && $0 != "\r" })
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let block = [UInt8](hex: trimmed), block.count == 16 else {
                throw NFCError.malformedDump(".eml line \(index + 1) '\(trimmed.prefix(40))' is not one 16-byte block in hex")
            }
            bytes += block
        }
        return try importClassicBlocks(bytes, source: "Proxmark3 .eml")
    }
}

/// Constants of the Proxmark3 Classic files.
enum ProxmarkClassicFormat {
    /// `FileType` of the Classic JSON dump the client writes (`jsfMfc_v2`).
    static let jsonFileType = "mfc v2"
    /// The older name the loader reads the same way.
    static let legacyJSONFileType = "mfcard"
    /// What `createMfcKeyDump` writes for a key not found.
    static let unknownKey: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    /// The sector counts of the Classic products (Mini, 1K, Plus 2K, 4K): a key file is 12 bytes a sector.
    static let keyFileSectorCounts = [5, 16, 32, 40]

    /// Why `bytes` are refused as a Proxmark3 key file (`hf-mf-<UID>-key.bin`, the `pm3key` export),
    /// which holds keys and no card data; nil when they are not one. The rule: the size is exactly
    /// 12 × a Classic sector count (60, 192, 384, 480 bytes) and either the name ends with `-key.bin`,
    /// or no format is named (`--format auto`, whatever the name) and the bytes are no Type 2 image
    /// Proxmark3 would load (no valid UID check bytes after a 56- or 48-byte MFU header or at offset 0).
    /// Of these sizes only 192 bytes could also be a page image (a 48-page Ultralight C with its key pages); a key
    /// file's key A of sectors 0 and 1 passes both UID checks (BCC0, BCC1) only by chance (1 in 65536),
    /// and a real card's page image always passes them.
    static func keyFileRefusal(_ bytes: [UInt8], fileName: String?, formatNamed: Bool) -> String? {
        guard bytes.count % 12 == 0, keyFileSectorCounts.contains(bytes.count / 12) else { return nil }
        let namedAsKeyFile = fileName?.lowercased().hasSuffix("-key.bin") == true
        let noPageImage = !formatNamed
            && ![ProxmarkMFULayout.newHeaderLength, ProxmarkMFULayout.oldHeaderLength, 0]
                .contains(where: { Type2PageImage.hasValidBCC(bytes, at: $0) })
        guard namedAsKeyFile || noPageImage else { return nil }
        return "this looks like a Proxmark3 MIFARE Classic key file (\(bytes.count / 12) sectors × keys A and B), "
            + "which holds no card data: import the card's dump (.bin, .json or .eml) instead"
    }

    /// True when `text` looks like an `.eml` file: at least one line, every line not a comment or
    /// blank exactly 32 hex digits (content sniffing; the import checks the size).
    static func looksLikeEML(_ bytes: [UInt8]) -> Bool {
        var blocks = 0
        // As the import reads it (`textLines`), but on the bytes: sniffing a binary file of megabytes
        // decodes no text. Lines end at LF, CR LF (an empty line between) or CR; a byte-order mark
        // first, spaces and tabs are no part of a block.
        let lineEnd = { (byte: UInt8) in byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") }
        for line in bytes.droppingByteOrderMark.split(omittingEmptySubsequences: false, whereSeparator: lineEnd) {
            let trimmed = line.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
            guard trimmed.count == 32, trimmed.allSatisfy({ Character(UnicodeScalar($0)).isHexDigit }) else { return false }
            blocks += 1
        }
        return blocks > 0
    }
}
