/// The family file formats (Flipper `.nfc`, libnfc MFD, Proxmark3 MFU) as lookups into ``TagFamilies``:
/// the first row that writes the format for the dump writes it (MIFARE Classic for its products, then the
/// Type 2 page image, which takes any dump and refuses one without pages).
extension TagDump {
    /// The dump as a Flipper Zero `.nfc` file (lines ending in `\n`, as Flipper writes them): an
    /// NTAG/Ultralight file (Families/Type2/Formats/FlipperExport.swift) or a MIFARE Classic file
    /// (Families/Classic/Formats/FlipperClassicExport.swift).
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for dumps without pages or blocks the format holds;
    ///   ``NFCError/malformedDump(_:)`` for pages or blocks the format cannot hold.
    public func exportFlipperNFC() throws -> String {
        String(decoding: try exportFamilyFile(.flipper), as: UTF8.self)
    }

    /// The dump as a libnfc MFD file: the Type 2 page image `nfc-mfultralight` reads, or the MIFARE
    /// Classic block image of `nfc-mfclassic`.
    ///
    /// An MFD has no mark for "not read": a partial dump (a page or block of the image not read) is
    /// refused with ``NFCError/partialDump(_:)`` naming the first one not read, unless `partial`, which
    /// writes the image up to that page or block and nothing after it (never zeros for unread data).
    public func exportLibNFCMFD(partial: Bool = false) throws -> [UInt8] {
        try exportFamilyFile(.mfd, partial: partial)
    }

    /// The dump as a Proxmark3 binary: the MFU file of a Type 2 page dump, the `hf mf` dump
    /// (`hf-mf-<UID>-dump.bin`, the block image) of a MIFARE Classic; a partial dump as for
    /// ``exportLibNFCMFD(partial:)``.
    public func exportProxmark3MFU(partial: Bool = false) throws -> [UInt8] {
        try exportFamilyFile(.proxmark3, partial: partial)
    }

    /// The dump as a Proxmark3 JSON dump file (`FileType` `mfu` for Type 2 pages, `mfc v2` for MIFARE
    /// Classic blocks), with the pages or blocks of ``exportProxmark3MFU(partial:)`` and the same
    /// refusal of a partial dump unless `partial`.
    public func exportProxmark3JSON(partial: Bool = false) throws -> String {
        String(decoding: try exportFamilyFile(.proxmark3JSON, partial: partial), as: UTF8.self)
    }

    /// The MIFARE Classic keys as the Proxmark3 key file `hf mf restore` reads (`hf-mf-<UID>-key.bin`).
    public func exportProxmark3Keys() throws -> [UInt8] {
        try exportFamilyFile(.proxmark3Keys)
    }

    /// The MIFARE Classic blocks as a Proxmark3 `.eml` file (`hf mf eload`), a partial dump as for
    /// ``exportLibNFCMFD(partial:)``.
    public func exportProxmark3EML(partial: Bool = false) throws -> String {
        String(decoding: try exportFamilyFile(.eml, partial: partial), as: UTF8.self)
    }

    /// `format` from the dump's own family first (an ISO 15693 dump's Flipper file is its family's,
    /// not the Type 2 page image's), then from the first family row that writes it for this dump.
    func exportFamilyFile(_ format: FamilyFileFormat, partial: Bool = false) throws -> [UInt8] {
        if let own = TagFamilies.family(for: cardInfo.type),
            let bytes = try own.exportFile(self, as: format, partial: partial)
        {
            return bytes
        }
        for family in TagFamilies.all {
            if let bytes = try family.exportFile(self, as: format, partial: partial) { return bytes }
        }
        throw NFCError.unsupportedOperation("No tag family writes \(format.rawValue) files for \(cardInfo.type)")
    }
}

extension FamilyFileFormat {
    /// The format in words, for messages ("Proxmark3 JSON").
    public var fileDescription: String {
        switch self {
        case .flipper: "Flipper Zero .nfc"
        case .mfd: "libnfc MFD"
        case .proxmark3: "Proxmark3 binary"
        case .proxmark3JSON: "Proxmark3 JSON"
        case .proxmark3Keys: "Proxmark3 key"
        case .eml: "Proxmark3 .eml"
        }
    }

    /// The ``NFCError/unsupportedOperation(_:)`` of a format that cannot hold `dump`'s family: the files
    /// hold `what`; the message names the family of the dump.
    func cannotHold(_ dump: TagDump, what: String) -> NFCError {
        .unsupportedOperation(
            "\(fileDescription) files hold \(what); they cannot hold \(dump.cardInfo.type.family.description) dumps: use json")
    }
}
