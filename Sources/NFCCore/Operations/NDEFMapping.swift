/// How a tag family holds NDEF: the NFC Forum tag type whose mapping its write, format and lock follow.
public enum NDEFMapping: String, Sendable, CaseIterable {
    /// Type 2: TLVs in pages from page 4, CC in page 3 (Ultralight, NTAG).
    case type2
    /// Type 3: attribute block and data blocks behind services 000Bh/0009h (FeliCa).
    case type3
    /// Type 4: NDEF Tag Application, CC file and NDEF file over ISO-DEP (DESFire, Type 4 tags, SmartMX).
    case type4

    /// Family → mapping. Families without a row (MIFARE Classic, whose NDEF sits behind MAD and keys;
    /// ISO 15693, which a PN53x cannot reach; Type 1, ISO 14443-B, passports) have no NDEF operations here.
    static let byFamily: [CardFamily: NDEFMapping] = [
        .mifareUltralight: .type2,
        .ntag: .type2,
        .felica: .type3,
        .mifareDesfire: .type4,
        .type4: .type4,
    ]

    /// Types whose family says nothing about NDEF but which may carry a Type 4 NDEF application.
    static let byType: [CardType: NDEFMapping] = [.smartMX: .type4]

    /// The mapping of `type`, or nil when NDEF operations are not supported for it.
    public static func forType(_ type: CardType) -> NDEFMapping? {
        byType[type] ?? byFamily[type.family]
    }
}
