/// The tag types a scenario can name (`type:`), and the virtual model behind each.
public enum TagKind: String, Sendable, CaseIterable {
    case ultralight, ultralightC = "ultralight_c", ultralightEV1_11 = "ultralight_ev1_11"
    case ultralightEV1_21 = "ultralight_ev1_21"
    /// MIFARE Ultralight AES (MF0AES20; ``VirtualType2Product/ultralightAES``).
    case ultralightAES = "ultralight_aes"
    case ntag203, ntag210, ntag212, ntag213, ntag215, ntag216
    case classicMini = "classic_mini", classic1K = "classic_1k", classic4K = "classic_4k"
    case type4
    case type4V3 = "type4_v3", type4SmallMLc = "type4_small_mlc"
    case felicaLite = "felica_lite", felicaLiteS = "felica_lite_s", felicaStandard = "felica_standard"
    case desfireD40 = "desfire_d40", desfireEV1 = "desfire_ev1", desfireEV2 = "desfire_ev2", desfireEV3 = "desfire_ev3", desfireLight = "desfire_light"
    case ntag424DNA = "ntag424_dna"
    /// An NTAG 424 DNA with SDM on its NDEF file (``VirtualSDMTag``), laid out by the tag's `sun:` mapping.
    case ntag424SUN = "ntag424_sun"
    case type4B = "type4_b"
    case emrtd
    case st25dv64k, icodeSLIX = "icode_slix", icodeSLIX2 = "icode_slix2"

    /// Which family of virtual tag a kind is.
    enum Family {
        case type2(VirtualType2Model), classic(VirtualClassicTag.Model), type4(VirtualType4Tag.Variant), felica(VirtualFeliCaTag.Model)
        case desfire(VirtualDESFireTag.Model)
        /// An NTAG 424 DNA with SUN (``VirtualSDMTag``).
        case sdm
        /// An ISO 14443-B card carrying the Type 4 NDEF application (``VirtualTypeBTag``).
        case type4B
        case emrtd
        case iso15693(VirtualISO15693Model)
    }

    /// Kind → model (the one table; VirtualTagFactory builds from it).
    var family: Family {
        switch self {
        case .ultralight: .type2(.ultralight)
        case .ultralightC: .type2(.ultralightC)
        case .ultralightEV1_11: .type2(.ultralightEV1_11)
        case .ultralightEV1_21: .type2(.ultralightEV1_21)
        case .ultralightAES: .type2(.ultralightAES)
        case .ntag203: .type2(.ntag203)
        case .ntag210: .type2(.ntag210)
        case .ntag212: .type2(.ntag212)
        case .ntag213: .type2(.ntag213)
        case .ntag215: .type2(.ntag215)
        case .ntag216: .type2(.ntag216)
        case .classicMini: .classic(.mini)
        case .classic1K: .classic(.classic1K)
        case .classic4K: .classic(.classic4K)
        case .type4: .type4(.mapping20)
        case .type4V3: .type4(.mapping30)
        case .type4SmallMLc: .type4(.smallChunks)
        case .felicaLite: .felica(.lite)
        case .felicaLiteS: .felica(.liteS)
        case .felicaStandard: .felica(.standard)
        case .desfireD40: .desfire(.d40)
        case .desfireEV1: .desfire(.ev1)
        case .desfireEV2: .desfire(.ev2)
        case .desfireEV3: .desfire(.ev3)
        case .desfireLight: .desfire(.light)
        case .ntag424DNA: .desfire(.ntag424)
        case .ntag424SUN: .sdm
        case .type4B: .type4B
        case .emrtd: .emrtd
        case .st25dv64k: .iso15693(.st25dv64k)
        case .icodeSLIX: .iso15693(.icodeSLIX)
        case .icodeSLIX2: .iso15693(.icodeSLIX2)
        }
    }

    /// Accepted spellings: the raw value, plus `classic1k`-style names without the underscore.
    init?(name: String) {
        let lowered = name.lowercased()
        if let kind = TagKind(rawValue: lowered) {
            self = kind
        } else if let kind = TagKind.allCases.first(where: { $0.rawValue.replacingUnderscores == lowered.replacingUnderscores }) {
            self = kind
        } else {
            return nil
        }
    }
}

extension String {
    fileprivate var replacingUnderscores: String { filter { $0 != "_" && $0 != "-" } }
}
