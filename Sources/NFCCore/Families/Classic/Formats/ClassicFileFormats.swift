/// The MIFARE Classic row of the file-format table (``TagFamilyFiles/fileFormats``), save and load side by
/// side. The saves take the dumps of the products the Classic files hold (``ClassicFileType``); the
/// block images (MFD, `hf mf` dump, JSON, `.eml`) refuse a dump with blocks not read unless `partial`.
/// The loads read Flipper files whose device type is MIFARE Classic, MFD and `hf mf` images of a
/// Classic size, `mfc v2` JSON and `.eml` text; other files go to the next row.
enum ClassicFileFormats {
    static let rows: [FileFormatRow] = [
        FileFormatRow(.flipper, takes: isClassic, save: { dump, _ in Array(try dump.exportFlipperClassicNFC().utf8) },
                      load: { bytes in
                          let text = try FileFormatRow.utf8Text(bytes)
                          guard FlipperKeyValues(text)["Device type"] == FlipperClassicFormat.deviceType else { return nil }
                          return try TagDump.importFlipperClassicNFC(text)
                      }),
        // Text of 32-digit hex lines is asked before the MFD sizes (the order the detection always had).
        FileFormatRow(.eml, takes: isClassic,
                      save: { dump, options in Array(try dump.exportProxmark3ClassicEML(partial: options.partial).utf8) },
                      load: { try TagDump.importProxmark3ClassicEML(FileFormatRow.utf8Text($0)) },
                      detect: { ProxmarkClassicFormat.looksLikeEML($0) }),
        FileFormatRow(.mfd, takes: isClassic, save: { dump, options in try dump.exportClassicMFD(partial: options.partial) },
                      load: { bytes in
                          guard ClassicImageIdentity(image: bytes) != nil else { return nil }
                          return try TagDump.importClassicMFD(bytes)
                      },
                      // 320, 1024, 2048, 4096 bytes (no MFU file has these sizes), or a cut image whose
                      // manufacturer block names its product (``ClassicImageIdentity``).
                      detect: { ClassicImageIdentity(image: $0) != nil }),
        FileFormatRow(.pm3, takes: isClassic,
                      save: { dump, options in try dump.exportProxmark3ClassicDump(partial: options.partial) },
                      load: { bytes in
                          // Proxmark3 saves `hf mf` dumps as the raw block image, the same bytes as an MFD.
                          guard ClassicImageIdentity(image: bytes) != nil else { return nil }
                          return try TagDump.importClassicBlocks(bytes, source: "Proxmark3 MFC")
                      }),
        FileFormatRow(.pm3json, takes: isClassic,
                      save: { dump, options in Array(try dump.exportClassicProxmarkJSON(partial: options.partial).utf8) },
                      load: { bytes in
                          let document = try ProxmarkJSON.Document(bytes)
                          let fileTypes = [ProxmarkClassicFormat.jsonFileType, ProxmarkClassicFormat.legacyJSONFileType]
                          guard fileTypes.contains(document.fileType) else { return nil }
                          return try TagDump.importClassicProxmarkJSON(document)
                      }),
        FileFormatRow(.pm3key, takes: isClassic, save: { dump, _ in try dump.exportProxmark3ClassicKeys() }),
    ]

    /// A dump of a product the Classic files hold (Mini, 1K, 2K, 4K).
    @Sendable static func isClassic(_ dump: TagDump) -> Bool { ClassicFileType.forType(dump.cardInfo.type) != nil }
}
