/// Tag family, as CoreExtendedNFC names it. ``description`` strings are kept byte-identical to the
/// upstream library so JSON exports diff cleanly against iOS dumps.
public enum CardFamily: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case mifareUltralight, mifareClassic, mifarePlus, mifareDesfire, type4, ntag, felica, iso15693
    case jewelTopaz, iso14443B, passport, unknown

    public var description: String {
        switch self {
        case .mifareUltralight: "MIFARE Ultralight"
        case .mifareClassic: "MIFARE Classic"
        case .mifarePlus: "MIFARE Plus"
        case .mifareDesfire: "MIFARE DESFire"
        case .type4: "NFC Forum Type 4"
        case .ntag: "NTAG"
        case .felica: "FeliCa"
        case .iso15693: "ISO 15693"
        case .jewelTopaz: "Jewel / Topaz"
        case .iso14443B: "ISO 14443-B"
        case .passport: "Passport / eMRTD"
        case .unknown: "Unknown"
        }
    }
}

/// Card type, as CoreExtendedNFC names it, plus the products it lacks (NTAG203, and NTAG210/212
/// with their own memory maps). The exact product name (NTAG213 TT, NTAG I2C plus 2K, …) lives in
/// ``CardInfo/product``.
public enum CardType: Sendable, Hashable, CustomStringConvertible {
    case mifareUltralight, mifareUltralightC, mifareUltralightEV1_MF0UL11, mifareUltralightEV1_MF0UL21
    case ntag203, ntag210, ntag212, ntag213, ntag215, ntag216
    case mifareClassic1K, mifareClassic4K, mifareMini
    case mifarePlusSL1_2K, mifarePlusSL1_4K, mifarePlusSL2_2K, mifarePlusSL2_4K, mifarePlusSL3_2K, mifarePlusSL3_4K
    case mifareDesfire, mifareDesfireEV1, mifareDesfireEV2, mifareDesfireEV3
    case type4NDEF
    case felicaLite, felicaLiteS, felicaStandard
    case iso15693_ICODE_SLIX, iso15693_ST25TV, iso15693_generic
    case ePassport, myNumberCard, jewelTopaz, iso14443B_generic, smartMX
    /// Unrecognised ATQA/SAK. ATQA MSB first.
    case unknown(atqa: [UInt8], sak: UInt8)

    /// Every case without associated values, for look-ups by description.
    public static let knownCases: [CardType] = [
        .mifareUltralight, .mifareUltralightC, .mifareUltralightEV1_MF0UL11, .mifareUltralightEV1_MF0UL21,
        .ntag203, .ntag210, .ntag212, .ntag213, .ntag215, .ntag216,
        .mifareClassic1K, .mifareClassic4K, .mifareMini,
        .mifarePlusSL1_2K, .mifarePlusSL1_4K, .mifarePlusSL2_2K, .mifarePlusSL2_4K, .mifarePlusSL3_2K, .mifarePlusSL3_4K,
        .mifareDesfire, .mifareDesfireEV1, .mifareDesfireEV2, .mifareDesfireEV3,
        .type4NDEF, .felicaLite, .felicaLiteS, .felicaStandard,
        .iso15693_ICODE_SLIX, .iso15693_ST25TV, .iso15693_generic,
        .ePassport, .myNumberCard, .jewelTopaz, .iso14443B_generic, .smartMX,
    ]

    /// Looks a type up by its ``description`` (used by importers). Also parses
    /// `Unknown (ATQA: 0044, SAK: 00)`.
    public init?(description: String) {
        if let match = Self.knownCases.first(where: { $0.description == description }) {
            self = match
            return
        }
        // "Unknown (ATQA: <HEX>, SAK: <HH>)"
        guard description.hasPrefix("Unknown (ATQA: "), description.hasSuffix(")"),
            let comma = description.range(of: ", SAK: ")
        else { return nil }
        let atqaText = description[description.index(description.startIndex, offsetBy: 15)..<comma.lowerBound]
        let sakText = description[comma.upperBound..<description.index(before: description.endIndex)]
        guard let atqa = [UInt8](hex: String(atqaText)), let sak = [UInt8](hex: String(sakText)), sak.count == 1
        else { return nil }
        self = .unknown(atqa: atqa, sak: sak[0])
    }

    public var description: String {
        switch self {
        case .mifareUltralight: "MIFARE Ultralight"
        case .mifareUltralightC: "MIFARE Ultralight C"
        case .mifareUltralightEV1_MF0UL11: "MIFARE Ultralight EV1 (MF0UL11)"
        case .mifareUltralightEV1_MF0UL21: "MIFARE Ultralight EV1 (MF0UL21)"
        case .ntag203: "NTAG203"
        case .ntag210: "NTAG210"
        case .ntag212: "NTAG212"
        case .ntag213: "NTAG213"
        case .ntag215: "NTAG215"
        case .ntag216: "NTAG216"
        case .mifareClassic1K: "MIFARE Classic 1K"
        case .mifareClassic4K: "MIFARE Classic 4K"
        case .mifareMini: "MIFARE Mini 0.3K"
        case .mifarePlusSL1_2K: "MIFARE Plus 2K (SL1)"
        case .mifarePlusSL1_4K: "MIFARE Plus 4K (SL1)"
        case .mifarePlusSL2_2K: "MIFARE Plus 2K (SL2)"
        case .mifarePlusSL2_4K: "MIFARE Plus 4K (SL2)"
        case .mifarePlusSL3_2K: "MIFARE Plus 2K (SL3)"
        case .mifarePlusSL3_4K: "MIFARE Plus 4K (SL3)"
        case .mifareDesfire: "MIFARE DESFire"
        case .mifareDesfireEV1: "MIFARE DESFire EV1"
        case .mifareDesfireEV2: "MIFARE DESFire EV2"
        case .mifareDesfireEV3: "MIFARE DESFire EV3"
        case .type4NDEF: "NFC Forum Type 4 Tag"
        case .felicaLite: "FeliCa Lite"
        case .felicaLiteS: "FeliCa Lite-S"
        case .felicaStandard: "FeliCa Standard"
        case .iso15693_ICODE_SLIX: "ICODE SLIX (ISO 15693)"
        case .iso15693_ST25TV: "ST25TV (ISO 15693)"
        case .iso15693_generic: "ISO 15693"
        case .ePassport: "ePassport (eMRTD)"
        case .myNumberCard: "Japanese My Number Card"
        case .jewelTopaz: "Jewel/Topaz (Type 1)"
        case .iso14443B_generic: "ISO 14443-B"
        case .smartMX: "SmartMX / Generic ISO 7816"
        case let .unknown(atqa, sak): "Unknown (ATQA: \(atqa.hexString), SAK: \(sak.hexString))"
        }
    }

    /// The family this type belongs to.
    public var family: CardFamily {
        switch self {
        case .mifareUltralight, .mifareUltralightC, .mifareUltralightEV1_MF0UL11, .mifareUltralightEV1_MF0UL21:
            .mifareUltralight
        case .ntag203, .ntag210, .ntag212, .ntag213, .ntag215, .ntag216: .ntag
        case .mifareClassic1K, .mifareClassic4K, .mifareMini: .mifareClassic
        case .mifarePlusSL1_2K, .mifarePlusSL1_4K, .mifarePlusSL2_2K, .mifarePlusSL2_4K, .mifarePlusSL3_2K,
            .mifarePlusSL3_4K:
            .mifarePlus
        case .mifareDesfire, .mifareDesfireEV1, .mifareDesfireEV2, .mifareDesfireEV3: .mifareDesfire
        case .type4NDEF: .type4
        case .felicaLite, .felicaLiteS, .felicaStandard: .felica
        case .iso15693_ICODE_SLIX, .iso15693_ST25TV, .iso15693_generic: .iso15693
        case .ePassport: .passport
        case .myNumberCard, .iso14443B_generic: .iso14443B
        case .jewelTopaz: .jewelTopaz
        case .smartMX, .unknown: .unknown
        }
    }

    /// True for the Type 2 (page-based) families: Ultralight and NTAG.
    public var isType2: Bool { family == .mifareUltralight || family == .ntag }
}
