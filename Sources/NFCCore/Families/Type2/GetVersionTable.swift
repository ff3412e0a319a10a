/// GET_VERSION (60h) answers → Type 2 product.
///
/// Answer layout (8 bytes, MF0ULX1 §10.1 / NTAG213/215/216 §10.1): fixed header 00h, vendor ID (04h NXP),
/// product type (03h Ultralight, 04h NTAG), product subtype (01h 17 pF, 02h 50 pF, 04h NTAG21xF, 05h I2C,
/// 08h DNA StatusDetect), major version, minor version, storage size (7 MSBs n → 2^n bytes; LSB 1 = "between
/// 2^n and 2^(n+1)"), protocol type (03h ISO/IEC 14443-3).
///
/// The full 8 bytes are matched first (``exactMatches``: NXP datasheets, cross-checked with nfcpy's
/// VERSION_MAP and Proxmark3's `GetHF14AMfU_Type`, including clones). An answer not in that table falls
/// back to product type + storage size (``fallbackRules``) under the spec's rule: NTAG storage sizes
/// only count for subtypes 01/02/04 with major version 01, so NTAG I2C (subtype 05), Ultralight Nano
/// (major 02) and NTAG 223 DNA (major 04) stay generic Ultralight. Upstream ignored subtype and major and
/// mis-typed NTAG210 as NTAG212, NTAG212 as NTAG213, I2C 1K as NTAG216 and Nano as MF0UL11.
public enum GetVersionTable {
    /// A successful look-up.
    public struct Match: Sendable, Hashable {
        /// The product row (exact, or the base row of the fallback type).
        public var product: Type2Product
        /// True when the full 8 bytes were found in ``exactMatches``.
        public var isExact: Bool
    }

    /// Looks `version` up. Returns nil when the answer is not 8 bytes long.
    public static func lookup(_ version: [UInt8]) -> Match? {
        guard version.count == 8 else { return nil }
        if let product = exactMatches[version] { return Match(product: product, isExact: true) }
        return Match(product: fallback(version), isExact: false)
    }

    /// Every known answer, byte for byte.
    public static let exactMatches: [[UInt8]: Type2Product] = [
        // MIFARE Ultralight EV1 (MF0ULX1 §10.1 Table 15; nfcpy VERSION_MAP).
        [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03]: .ultralightEV1_MF0UL11,
        [0x00, 0x04, 0x03, 0x02, 0x01, 0x00, 0x0B, 0x03]: .ultralightEV1_MF0ULH11,
        [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0E, 0x03]: .ultralightEV1_MF0UL21,
        [0x00, 0x04, 0x03, 0x02, 0x01, 0x00, 0x0E, 0x03]: .ultralightEV1_MF0ULH21,
        // Ultralight Nano (MF0UNx00, major 02) and Ultralight AES (MF0AES20, major 04): generic.
        [0x00, 0x04, 0x03, 0x01, 0x02, 0x00, 0x0B, 0x03]: .ultralightNano,
        [0x00, 0x04, 0x03, 0x02, 0x02, 0x00, 0x0B, 0x03]: .ultralightNano,
        [0x00, 0x04, 0x03, 0x01, 0x04, 0x00, 0x0F, 0x03]: .ultralightAES,
        [0x00, 0x04, 0x03, 0x02, 0x04, 0x00, 0x0F, 0x03]: .ultralightAES,
        [0x00, 0x04, 0x03, 0x03, 0x04, 0x00, 0x0F, 0x03]: .ultralightAES,
        // NTAG210/212 (NTAG210_212 §10.1), NTAG210µ (NT2L1001 / NT2H1001, major 02).
        [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0B, 0x03]: .ntag210,
        [0x00, 0x04, 0x04, 0x01, 0x02, 0x00, 0x0B, 0x03]: .ntag210u,
        [0x00, 0x04, 0x04, 0x02, 0x02, 0x00, 0x0B, 0x03]: .ntag210u,
        [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0E, 0x03]: .ntag212,
        // NTAG213/215/216 (§10.1 Table 29) and variants: 213C (minor 01), 21xF (subtype 04), 213 TT (major 03).
        [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]: .ntag213,
        [0x00, 0x04, 0x04, 0x02, 0x01, 0x01, 0x0F, 0x03]: .ntag213C,
        [0x00, 0x04, 0x04, 0x04, 0x01, 0x00, 0x0F, 0x03]: .ntag213F,
        [0x00, 0x04, 0x04, 0x02, 0x03, 0x00, 0x0F, 0x03]: .ntag213TT,
        [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]: .ntag215,
        [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]: .ntag216,
        [0x00, 0x04, 0x04, 0x04, 0x01, 0x00, 0x13, 0x03]: .ntag216F,
        // NTAG 22x DNA (major 04 / 05; subtype 08 = StatusDetect): generic.
        [0x00, 0x04, 0x04, 0x02, 0x04, 0x00, 0x0F, 0x03]: .ntag223DNA,
        [0x00, 0x04, 0x04, 0x08, 0x04, 0x00, 0x0F, 0x03]: .ntag223DNAStatusDetect,
        [0x00, 0x04, 0x04, 0x02, 0x05, 0x00, 0x10, 0x03]: .ntag224DNA,
        [0x00, 0x04, 0x04, 0x08, 0x05, 0x00, 0x10, 0x03]: .ntag224DNAStatusDetect,
        // NTAG I2C (NT3H1x01, minor 01; early parts minor 00) and I2C plus (NT3H2x11, minor 02): generic.
        [0x00, 0x04, 0x04, 0x05, 0x02, 0x00, 0x13, 0x03]: .ntagI2C1K,
        [0x00, 0x04, 0x04, 0x05, 0x02, 0x00, 0x15, 0x03]: .ntagI2C2K,
        [0x00, 0x04, 0x04, 0x05, 0x02, 0x01, 0x13, 0x03]: .ntagI2C1K,
        [0x00, 0x04, 0x04, 0x05, 0x02, 0x01, 0x15, 0x03]: .ntagI2C2K,
        [0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x13, 0x03]: .ntagI2CPlus1K,
        [0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x15, 0x03]: .ntagI2CPlus2K,
        // Clones (Proxmark3 cmdhfmfu.c): vendor 53h (Shanghai Feiju), 05h/34h, 34h/21h (Mikron JSC).
        [0x00, 0x53, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]: .ntag213FeijuClone,
        [0x00, 0x05, 0x34, 0x02, 0x01, 0x00, 0x11, 0x03]: .ntag215FeijuClone,
        [0x00, 0x34, 0x21, 0x01, 0x01, 0x00, 0x0E, 0x03]: .ultralightEV1_MF0UL21MikronClone,
    ]

    /// A fallback rule: product type, accepted subtypes and major version, storage size → product row
    /// (whose card type selects the memory map).
    public struct FallbackRule: Sendable, Hashable {
        public var productType: UInt8
        public var subtypes: Set<UInt8>
        public var major: UInt8
        public var storageSize: UInt8
        public var product: Type2Product
    }

    /// Product type + storage size → product, for answers not matched byte for byte. Anything else
    /// (other product types, NTAG I2C subtype 05, majors other than those listed) is generic Ultralight.
    public static let fallbackRules: [FallbackRule] = [
        FallbackRule(productType: 0x03, subtypes: [0x01, 0x02], major: 0x01, storageSize: 0x0B,
                     product: .ultralightEV1_MF0UL11),
        FallbackRule(productType: 0x03, subtypes: [0x01, 0x02], major: 0x01, storageSize: 0x0E,
                     product: .ultralightEV1_MF0UL21),
        FallbackRule(productType: 0x04, subtypes: [0x01, 0x02, 0x04], major: 0x01, storageSize: 0x0B, product: .ntag210),
        FallbackRule(productType: 0x04, subtypes: [0x01, 0x02, 0x04], major: 0x01, storageSize: 0x0E, product: .ntag212),
        FallbackRule(productType: 0x04, subtypes: [0x01, 0x02, 0x04], major: 0x01, storageSize: 0x0F, product: .ntag213),
        FallbackRule(productType: 0x04, subtypes: [0x01, 0x02, 0x04], major: 0x01, storageSize: 0x11, product: .ntag215),
        FallbackRule(productType: 0x04, subtypes: [0x01, 0x02, 0x04], major: 0x01, storageSize: 0x13, product: .ntag216),
        // The spec's special cases: NTAG210µ (major 02) uses the NTAG210 map, NTAG213 TT (major 03) the NTAG213 map.
        FallbackRule(productType: 0x04, subtypes: [0x01, 0x02], major: 0x02, storageSize: 0x0B, product: .ntag210u),
        FallbackRule(productType: 0x04, subtypes: [0x02], major: 0x03, storageSize: 0x0F, product: .ntag213),
    ]

    private static func fallback(_ version: [UInt8]) -> Type2Product {
        let rule = fallbackRules.first {
            $0.productType == version[2] && $0.subtypes.contains(version[3]) && $0.major == version[4]
                && $0.storageSize == version[6]
        }
        return rule?.product ?? .ultralight
    }
}
