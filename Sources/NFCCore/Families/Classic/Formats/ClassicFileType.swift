/// The MIFARE Classic products the Classic file formats (libnfc MFD, Flipper `.nfc`) can hold, with
/// what those files need and do not store themselves.
///
/// Sizes follow the sector layouts (``ClassicLayout``): Mini 320, 1K 1024, Plus 2K 2048, 4K 4096 bytes
/// — the sizes `nfc-mfclassic` reads and writes (peers-nfc.md §3.6, §9 item 8). SAK and ATQA are the
/// values NXP's products answer (AN10833 §3.2: SAK 09 Mini, 08 1K and Plus 2K in SL1, 18 4K; ATQA
/// 0004h, 0002h for the 4K, with bit 6 set for a 7-byte UID, ISO/IEC 14443-3 §6.3.2), used when a
/// dump does not know its own. Flipper's type names are `mf_classic_features[].type_name`
/// (flipperzero-firmware `lib/nfc/protocols/mf_classic/mf_classic.c`).
struct ClassicFileType: Sendable {
    var type: CardType
    /// `Mifare Classic type:` value.
    var flipperName: String
    var sak: UInt8
    /// Low ATQA byte for a 4-byte UID (the high byte is 00).
    var atqaLow: UInt8

    /// Rows in import order: the first row of a size or Flipper name is the type an import gives.
    static let rows: [ClassicFileType] = [
        ClassicFileType(type: .mifareMini, flipperName: "MINI", sak: 0x09, atqaLow: 0x04),
        ClassicFileType(type: .mifareClassic1K, flipperName: "1K", sak: 0x08, atqaLow: 0x04),
        ClassicFileType(type: .mifareClassic4K, flipperName: "4K", sak: 0x18, atqaLow: 0x02),
        // "Plus 2K" exists in current Flipper firmware only; older firmware refuses the file.
        ClassicFileType(type: .mifarePlusSL1_2K, flipperName: "Plus 2K", sak: 0x08, atqaLow: 0x04),
        // Flipper has no Plus 4K type: in SL1 it is a Classic 4K to every reader.
        ClassicFileType(type: .mifarePlusSL1_4K, flipperName: "4K", sak: 0x18, atqaLow: 0x02),
    ]

    /// The row of `type`, nil for types that are not Classic-compatible.
    static func forType(_ type: CardType) -> ClassicFileType? {
        rows.first { $0.type == type }
    }

    /// The row an MFD of `size` bytes reads as.
    static func forMFDSize(_ size: Int) -> ClassicFileType? {
        rows.first { $0.layout.totalBytes == size }
    }

    /// The row a Flipper `Mifare Classic type:` value reads as.
    static func forFlipperName(_ name: String) -> ClassicFileType? {
        rows.first { $0.flipperName == name }
    }

    /// Every MFD size of a Classic memory.
    static var mfdSizes: Set<Int> { Set(rows.map(\.layout.totalBytes)) }

    /// The sector layout.
    var layout: ClassicLayout { ClassicLayout.forType(type) ?? .classic1K }

    /// ATQA, most significant byte first, for a UID of `uidLength` bytes.
    func atqa(uidLength: Int) -> [UInt8] {
        [0x00, uidLength == 7 ? atqaLow | 0x40 : atqaLow]
    }
}
