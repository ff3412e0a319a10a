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
    /// NTAG 424 DNA (NT4H2421Gx): a Type 4 tag with its own family (SUN / SDM, ``NTAG424Family``).
    case ntag424DNA
    case felicaLite, felicaLiteS, felicaStandard
    case iso15693_ICODE_SLIX, iso15693_ST25TV, iso15693_generic
    case iso15693_ICODE_SLIX2, iso15693_ICODE_DNA, iso15693_ST25DV, iso15693_TagIt
    case ePassport, myNumberCard, jewelTopaz, iso14443B_generic, smartMX
    /// Unrecognised ATQA/SAK. ATQA MSB first.
    case unknown(atqa: [UInt8], sak: UInt8)

    /// One row per case without associated values: the type, its ``description`` (CoreExtendedNFC's
    /// strings, kept byte-identical) and its ``family`` — the one table those three come from.
    private struct Row: Sendable {
        var type: CardType
        var description: String
        var family: CardFamily
        init(_ type: CardType, _ description: String, _ family: CardFamily) {
            self.type = type
            self.description = description
            self.family = family
        }
    }

    private static let rows: [Row] = [
        Row(.mifareUltralight, "MIFARE Ultralight", .mifareUltralight),
        Row(.mifareUltralightC, "MIFARE Ultralight C", .mifareUltralight),
        Row(.mifareUltralightEV1_MF0UL11, "MIFARE Ultralight EV1 (MF0UL11)", .mifareUltralight),
        Row(.mifareUltralightEV1_MF0UL21, "MIFARE Ultralight EV1 (MF0UL21)", .mifareUltralight),
        Row(.ntag203, "NTAG203", .ntag),
        Row(.ntag210, "NTAG210", .ntag),
        Row(.ntag212, "NTAG212", .ntag),
        Row(.ntag213, "NTAG213", .ntag),
        Row(.ntag215, "NTAG215", .ntag),
        Row(.ntag216, "NTAG216", .ntag),
        Row(.mifareClassic1K, "MIFARE Classic 1K", .mifareClassic),
        Row(.mifareClassic4K, "MIFARE Classic 4K", .mifareClassic),
        Row(.mifareMini, "MIFARE Mini 0.3K", .mifareClassic),
        Row(.mifarePlusSL1_2K, "MIFARE Plus 2K (SL1)", .mifarePlus),
        Row(.mifarePlusSL1_4K, "MIFARE Plus 4K (SL1)", .mifarePlus),
        Row(.mifarePlusSL2_2K, "MIFARE Plus 2K (SL2)", .mifarePlus),
        Row(.mifarePlusSL2_4K, "MIFARE Plus 4K (SL2)", .mifarePlus),
        Row(.mifarePlusSL3_2K, "MIFARE Plus 2K (SL3)", .mifarePlus),
        Row(.mifarePlusSL3_4K, "MIFARE Plus 4K (SL3)", .mifarePlus),
        Row(.mifareDesfire, "MIFARE DESFire", .mifareDesfire),
        Row(.mifareDesfireEV1, "MIFARE DESFire EV1", .mifareDesfire),
        Row(.mifareDesfireEV2, "MIFARE DESFire EV2", .mifareDesfire),
        Row(.mifareDesfireEV3, "MIFARE DESFire EV3", .mifareDesfire),
        Row(.type4NDEF, "NFC Forum Type 4 Tag", .type4),
        Row(.ntag424DNA, "NTAG 424 DNA", .type4),
        Row(.felicaLite, "FeliCa Lite", .felica),
        Row(.felicaLiteS, "FeliCa Lite-S", .felica),
        Row(.felicaStandard, "FeliCa Standard", .felica),
        Row(.iso15693_ICODE_SLIX, "ICODE SLIX (ISO 15693)", .iso15693),
        Row(.iso15693_ST25TV, "ST25TV (ISO 15693)", .iso15693),
        Row(.iso15693_generic, "ISO 15693", .iso15693),
        Row(.iso15693_ICODE_SLIX2, "ICODE SLIX2 (ISO 15693)", .iso15693),
        Row(.iso15693_ICODE_DNA, "ICODE DNA (ISO 15693)", .iso15693),
        Row(.iso15693_ST25DV, "ST25DV (ISO 15693)", .iso15693),
        Row(.iso15693_TagIt, "Tag-it HF-I (ISO 15693)", .iso15693),
        Row(.ePassport, "ePassport (eMRTD)", .passport),
        Row(.myNumberCard, "Japanese My Number Card", .iso14443B),
        Row(.jewelTopaz, "Jewel/Topaz (Type 1)", .jewelTopaz),
        Row(.iso14443B_generic, "ISO 14443-B", .iso14443B),
        Row(.smartMX, "SmartMX / Generic ISO 7816", .unknown),
    ]

    /// Every case without associated values, for look-ups by description.
    public static let knownCases: [CardType] = rows.map(\.type)

    /// Looks a type up by its ``description`` (used by importers). Also parses
    /// `Unknown (ATQA: 0044, SAK: 00)`.
    public init?(description: String) {
        if let match = Self.knownCases.first(where: { $0.description == description }) {
            self = match
            return
        }
        // "Unknown (ATQA: <HEX>, SAK: <HH>)"
        guard description.hasPrefix("Unknown (ATQA: "), description.hasSuffix(")"),
            let comma = description.firstRange(of: ", SAK: ")
        else { return nil }
        let atqaText = description[description.index(description.startIndex, offsetBy: 15)..<comma.lowerBound]
        let sakText = description[comma.upperBound..<description.index(before: description.endIndex)]
        guard let atqa = [UInt8](hex: String(atqaText)), let sak = [UInt8](hex: String(sakText)), sak.count == 1
        else { return nil }
        self = .unknown(atqa: atqa, sak: sak[0])
    }

    public var description: String {
        if case let .unknown(atqa, sak) = self { return "Unknown (ATQA: \(atqa.hexString), SAK: \(sak.hexString))" }
        return Self.rows.first { $0.type == self }?.description ?? ""
    }

    /// The family this type belongs to.
    public var family: CardFamily {
        Self.rows.first { $0.type == self }?.family ?? .unknown
    }
}
