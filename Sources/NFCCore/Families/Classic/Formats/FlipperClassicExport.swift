/// Flipper Zero `.nfc` export for MIFARE Classic (file format Version 4, Classic data format 2).
///
/// Keys in the order Flipper's loader reads them (flipperzero-firmware
/// `lib/nfc/protocols/mf_classic/mf_classic.c` `mf_classic_load`, after `iso14443_3a_load`): the
/// loader searches each key forward from the last, so `Mifare Classic type` must come before
/// `Data format version` — the other way round it misses the version, takes the file for the old
/// format and forgets every block and key. See docs/formats.md.
extension TagDump {
    /// The dump as a Flipper Zero `.nfc` file for a MIFARE Classic (lines ending in `\n`).
    ///
    /// Every block of the product is written; `??` stands for each unknown byte, as Flipper writes
    /// them (`mf_classic_set_block_str`): all 16 bytes of a block not in the dump, and in a trailer
    /// key A, access bits or key B where the dump's ``ClassicTrailerGaps`` list them.
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for dumps of other families;
    ///   ``NFCError/malformedDump(_:)`` when a block is not 16 bytes, lies outside the layout or appears
    ///   twice, the gap facts are not sector lists, or no UID of 4, 7 or 10 bytes is known (neither in
    ///   the dump nor block 0: ``FlipperNFCFormat/header(deviceType:uid:atqa:sak:)``).
    public func exportFlipperClassicNFC() throws -> String {
        let image = try ClassicBlockImage(
            self, unsupportedMessage: "Flipper Zero export of blocks is available only for MIFARE Classic dumps.")
        let uid = image.uid(self)
        let atqa = cardInfo.atqa?.count == 2 ? cardInfo.atqa ?? [] : image.fileType.atqa(uidLength: uid.count)
        let sak = cardInfo.sak ?? image.fileType.sak
        var lines = try FlipperNFCFormat.header(deviceType: FlipperClassicFormat.deviceType, uid: uid, atqa: atqa, sak: sak) + [
            "Mifare Classic type: \(image.fileType.flipperName)",
            "Data format version: \(FlipperClassicFormat.dataFormatVersion)",
        ]
        for number in 0..<image.layout.totalBlocks {
            let bytes = image.knownBytes(number).map { $0.map(\.hexString) ?? FlipperClassicFormat.unknownByte }
            lines.append("Block \(number): " + bytes.joined(separator: " "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Constants of Flipper's MIFARE Classic files (flipperzero-firmware `mf_classic.c`).
enum FlipperClassicFormat {
    /// The protocol name (`MF_CLASSIC_PROTOCOL_NAME`), also the `Device type` of Version 2 and 3 files.
    static let deviceType = "Mifare Classic"
    /// `mf_classic_data_format_version`: 2 marks unknown bytes with `??`; 1 had `Key A map` / `Key B map`.
    static let dataFormatVersion = 2
    /// What Flipper writes for a byte it does not know.
    static let unknownByte = "??"
}
