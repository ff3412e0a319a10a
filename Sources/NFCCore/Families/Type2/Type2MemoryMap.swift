/// Where things are in a Type 2 tag's memory. Page numbers are decimal.
///
/// Sources: MF0ICU1 §7.5 (Ultralight), MF0ICU2 §7.5 (Ultralight C), MF0ULX1 §8.5 (Ultralight EV1),
/// NTAG203 §7.5, NTAG210/212 §8.5, NTAG213/215/216 §8.5 (memory organisation tables). Corrected
/// against the upstream library, which gave NTAG210/212 the 16-page default (see the reference
/// notes, coreextendednfc.md §2.6).
public struct Type2MemoryMap: Sendable, Hashable {
    /// Pages in the whole memory (readable or not).
    public var totalPages: Int
    /// First user (NDEF) page; always 4 on these products.
    public var userStart: Int
    /// Last user page.
    public var userEnd: Int
    /// Page holding the dynamic lock bytes, if the product has them.
    public var dynamicLockPage: Int?
    /// CFG0 (AUTH0 in byte 3) on EV1/NTAG21x; on Ultralight C the AUTH0 page (byte 0).
    public var configPage: Int?
    /// PWD page (EV1/NTAG21x); reads back as zeros.
    public var passwordPage: Int?
    /// PACK page (EV1/NTAG21x); reads back as zeros.
    public var packPage: Int?
    /// Ultralight C 3DES key pages (44-47): write-only, never read.
    public var keyPages: ClosedRange<Int>?

    /// User bytes available for the NDEF TLV area.
    public var userBytes: Int { (userEnd - userStart + 1) * 4 }

    /// The pages a reader can ever get back: everything except the UL-C key pages.
    public var readablePages: Int { keyPages.map { $0.lowerBound } ?? totalPages }

    /// The page after ``configPage``: CFG1 on EV1/NTAG21x (ACCESS in byte 0: bit 7 PROT, bit 6 CFGLCK,
    /// bit 4 NFC_CNT_EN, bit 3 NFC_CNT_PWD_PROT, bits 2–0 AUTHLIM), AUTH1 on Ultralight C (byte 0).
    public var accessPage: Int? { configPage.map { $0 + 1 } }

    /// Where AUTH0 sits: byte 3 of CFG0 on EV1/NTAG21x, byte 0 of page 42 on Ultralight C (nil when the
    /// product has no password protection).
    public var auth0Offset: Int? {
        guard let configPage else { return nil }
        return keyPages == nil ? configPage * 4 + 3 : configPage * 4
    }

    public init(totalPages: Int, userStart: Int = 4, userEnd: Int, dynamicLockPage: Int? = nil, configPage: Int? = nil,
                passwordPage: Int? = nil, packPage: Int? = nil, keyPages: ClosedRange<Int>? = nil) {
        self.totalPages = totalPages
        self.userStart = userStart
        self.userEnd = userEnd
        self.dynamicLockPage = dynamicLockPage
        self.configPage = configPage
        self.passwordPage = passwordPage
        self.packPage = packPage
        self.keyPages = keyPages
    }

    /// The map for `type`, or nil when `type` is not a Type 2 product.
    public static func forType(_ type: CardType) -> Type2MemoryMap? {
        table[type]
    }

    /// One row per product (reference notes §2.6, "Complete reference map").
    static let table: [CardType: Type2MemoryMap] = [
        .mifareUltralight: Type2MemoryMap(totalPages: 16, userEnd: 15),
        .mifareUltralightC: Type2MemoryMap(totalPages: 48, userEnd: 39, dynamicLockPage: 40, configPage: 42,
                                           keyPages: 44...47),
        .mifareUltralightEV1_MF0UL11: Type2MemoryMap(totalPages: 20, userEnd: 15, configPage: 16, passwordPage: 18,
                                                     packPage: 19),
        .mifareUltralightEV1_MF0UL21: Type2MemoryMap(totalPages: 41, userEnd: 35, dynamicLockPage: 36, configPage: 37,
                                                     passwordPage: 39, packPage: 40),
        .ntag203: Type2MemoryMap(totalPages: 42, userEnd: 39, dynamicLockPage: 40),
        .ntag210: Type2MemoryMap(totalPages: 20, userEnd: 15, configPage: 16, passwordPage: 18, packPage: 19),
        .ntag212: Type2MemoryMap(totalPages: 41, userEnd: 35, dynamicLockPage: 36, configPage: 37, passwordPage: 39,
                                 packPage: 40),
        .ntag213: Type2MemoryMap(totalPages: 45, userEnd: 39, dynamicLockPage: 40, configPage: 41, passwordPage: 43,
                                 packPage: 44),
        .ntag215: Type2MemoryMap(totalPages: 135, userEnd: 129, dynamicLockPage: 130, configPage: 131,
                                 passwordPage: 133, packPage: 134),
        .ntag216: Type2MemoryMap(totalPages: 231, userEnd: 225, dynamicLockPage: 226, configPage: 227,
                                 passwordPage: 229, packPage: 230),
    ]
}
