/// The file-format table as look-ups: the generic rows (json, hex, bin: every dump has them) and each
/// family's rows (``TagFamilyFiles/fileFormats``), asked in the order ``ExportFormat/render(_:compact:partial:)``,
/// ``ExportFormat/holds(_:)`` and ``DumpImporter`` need.
enum FileFormatLookup {
    /// Every row of `format`: the generic rows, then the families' in registry order.
    static func rows(of format: ExportFormat) -> [FileFormatRow] {
        (GenericFileFormats.rows + TagFamilies.allFiles.flatMap(\.fileFormats)).filter { $0.format == format }
    }

    /// The row that writes `dump` as `format`: the generic rows, then the dump's own family's (an ISO
    /// 15693 dump's Flipper file is its family's, not the Type 2 page image's), then the first family
    /// row that takes it, in registry order. Nil when no row takes it.
    static func saver(of format: ExportFormat, for dump: TagDump) -> FileFormatRow? {
        let own = TagFamilies.files(for: dump.cardInfo.type).map(\.fileFormats) ?? []
        return (GenericFileFormats.rows + own + TagFamilies.allFiles.flatMap(\.fileFormats)).first {
            $0.format == format && $0.save != nil && $0.takes(dump)
        }
    }
}

/// The rows of the formats every dump has, whatever its family.
enum GenericFileFormats {
    static let rows: [FileFormatRow] = [
        FileFormatRow(.json, save: { dump, options in Array(try dump.exportJSON(prettyPrinted: !options.compact).utf8) },
                      load: { try TagDump.importJSON($0) }),
        FileFormatRow(.hex, save: { dump, _ in Array(dump.exportHex().utf8) }),
        FileFormatRow(.bin, save: { dump, _ in dump.exportBinary() }),
    ]
}

/// The family file formats by name, for callers that want one format's text or bytes: each is a
/// look-up of the table (``ExportFormat/render(_:compact:partial:)``).
extension TagDump {
    /// The dump as a Flipper Zero `.nfc` file (lines ending in `\n`, as Flipper writes them): an
    /// NTAG/Ultralight file (Families/Type2/Formats/FlipperExport.swift), a MIFARE Classic file
    /// (Families/Classic/Formats/FlipperClassicExport.swift), an ISO 15693 or DESFire file.
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for dumps without pages or blocks the format holds;
    ///   ``NFCError/malformedDump(_:)`` for pages or blocks the format cannot hold.
    public func exportFlipperNFC() throws -> String {
        String(decoding: try ExportFormat.flipper.render(self), as: UTF8.self)
    }

    /// The dump as a libnfc MFD file: the Type 2 page image `nfc-mfultralight` reads, or the MIFARE
    /// Classic block image of `nfc-mfclassic`.
    ///
    /// An MFD has no mark for "not read": a partial dump (a page or block of the image not read) is
    /// refused with ``NFCError/partialDump(_:)`` naming the first one not read, unless `partial`, which
    /// writes the image up to that page or block and nothing after it (never zeros for unread data).
    public func exportLibNFCMFD(partial: Bool = false) throws -> [UInt8] {
        try ExportFormat.mfd.render(self, partial: partial)
    }

    /// The dump as a Proxmark3 binary: the MFU file of a Type 2 page dump, the `hf mf` dump
    /// (`hf-mf-<UID>-dump.bin`, the block image) of a MIFARE Classic; a partial dump as for
    /// ``exportLibNFCMFD(partial:)``.
    public func exportProxmark3MFU(partial: Bool = false) throws -> [UInt8] {
        try ExportFormat.pm3.render(self, partial: partial)
    }

    /// The dump as a Proxmark3 JSON dump file (`FileType` `mfu` for Type 2 pages, `mfc v2` for MIFARE
    /// Classic blocks), with the pages or blocks of ``exportProxmark3MFU(partial:)`` and the same
    /// refusal of a partial dump unless `partial`.
    public func exportProxmark3JSON(partial: Bool = false) throws -> String {
        String(decoding: try ExportFormat.pm3json.render(self, partial: partial), as: UTF8.self)
    }

    /// The MIFARE Classic keys as the Proxmark3 key file `hf mf restore` reads (`hf-mf-<UID>-key.bin`).
    public func exportProxmark3Keys() throws -> [UInt8] {
        try ExportFormat.pm3key.render(self)
    }

    /// The MIFARE Classic blocks as a Proxmark3 `.eml` file (`hf mf eload`), a partial dump as for
    /// ``exportLibNFCMFD(partial:)``.
    public func exportProxmark3EML(partial: Bool = false) throws -> String {
        String(decoding: try ExportFormat.eml.render(self, partial: partial), as: UTF8.self)
    }
}
