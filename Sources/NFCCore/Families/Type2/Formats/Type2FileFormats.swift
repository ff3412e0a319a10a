/// The Type 2 row of the file-format table (``TagFamilyFiles/fileFormats``): the page-image formats, save
/// and load side by side. They take any dump (an imported page dump of another type too, and every
/// dump the rows before them left), so ``Type2Family`` comes after the families whose files name
/// their device type (``TagFamilies/all``); a dump without pages is refused by the save, and the
/// MIFARE Classic formats (keys, `.eml`) are refused for every dump that reaches this row.
enum Type2FileFormats {
    static let rows: [FileFormatRow] = [
        FileFormatRow(.flipper, holds: hasPages, save: { dump, _ in Array(try dump.exportType2FlipperNFC().utf8) },
                      load: { try TagDump.importFlipperNFC(FileFormatRow.utf8Text($0)) }),
        FileFormatRow(.pm3, holds: hasPages, save: { dump, options in try dump.exportType2Proxmark3MFU(partial: options.partial) },
                      load: { try TagDump.importProxmark3MFU($0) }, detect: isProxmark3MFU),
        FileFormatRow(.pm3json, holds: hasPages,
                      save: { dump, options in Array(try dump.exportType2ProxmarkJSON(partial: options.partial).utf8) },
                      load: { bytes in
                          let document = try ProxmarkJSON.Document(bytes)
                          guard document.fileType == ProxmarkMFUJSONFormat.fileType else { return nil }
                          return try TagDump.importProxmark3MFUJSON(document)
                      }),
        .refusing(.pm3key) { ExportFormat.pm3key.cannotHold($0, what: "MIFARE Classic keys and blocks") },
        .refusing(.eml) { ExportFormat.eml.cannotHold($0, what: "MIFARE Classic keys and blocks") },
        FileFormatRow(.mfd, holds: hasPages, save: { dump, options in try dump.exportType2MFD(partial: options.partial) },
                      load: { try TagDump.importLibNFCMFD($0) }, detect: isMFD),
        FileFormatRow(.mfd64, holds: { hasPages($0) && !answersGetVersion($0) },
                      save: { dump, options in try dump.exportLibNFCMFD64(partial: options.partial) }),
    ]

    /// The page-image formats hold a dump's pages (the save refuses pages that are not 4 bytes as malformed).
    @Sendable static func hasPages(_ dump: TagDump) -> Bool { !dump.pages.isEmpty }

    /// True unless the dump is of a Type 2 product without GET_VERSION (the 64-byte MFD's products).
    @Sendable static func answersGetVersion(_ dump: TagDump) -> Bool {
        Type2Product.forType(dump.cardInfo.type).map { $0.features.contains(.getVersion) } ?? true
    }

    /// A Proxmark3 MFU file: a 56- or 48-byte header before valid UID check bytes, or a plain page
    /// image that is not of a Type 2 MFD size and has valid UID check bytes at its start (the layout
    /// ``ProxmarkMFULayout/detect(_:)`` falls back to for any whole number of pages does not say so).
    @Sendable static func isProxmark3MFU(_ bytes: [UInt8]) -> Bool {
        switch ProxmarkMFULayout.detect(bytes) {
        case .new, .old: true
        case .plain: !Type2FileIdentity.mfdSizes.contains(bytes.count) && Type2PageImage.hasValidBCC(bytes, at: 0)
        case nil: false
        }
    }

    /// A plain page image (valid UID check bytes) of a Type 2 MFD size.
    @Sendable static func isMFD(_ bytes: [UInt8]) -> Bool {
        ProxmarkMFULayout.detect(bytes) == .plain && Type2FileIdentity.mfdSizes.contains(bytes.count)
    }
}
