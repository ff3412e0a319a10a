/// How a Type 2 product protects its memory (one case per scheme, so no behaviour is inferred from
/// which pages a map happens to have).
public enum Type2Protection: Sendable, Hashable {
    /// No password protection (Ultralight, NTAG203).
    case none
    /// PWD_AUTH (1Bh) with a 32-bit password: AUTH0 in byte 3 of CFG0 (`configPage`), ACCESS (PROT,
    /// CFGLCK, NFC counter bits, AUTHLIM) in byte 0 of CFG1 (`configPage + 1`), then PWD and PACK, which
    /// read back as zeros. AUTH0 at or beyond the last page turns protection off (MF0ULX1 §8.5.7,
    /// NTAG210/212 §8.5.7, NTAG213/215/216 §8.5.7).
    case passwordAuth(configPage: Int, passwordPage: Int, packPage: Int)
    /// 3DES AUTHENTICATE (1Ah): AUTH0 in byte 0 of `auth0Page`, AUTH1 in byte 0 of `auth1Page`, and the
    /// write-only key pages. AUTH0 of 30h or more turns protection off (MF0ICU2 §7.5.8).
    case tripleDES(auth0Page: Int, auth1Page: Int, keyPages: ClosedRange<Int>)
}

/// Where things are in a Type 2 tag's memory. Page numbers are decimal. Each ``Type2Product`` row holds
/// its map; ``forType(_:)`` is the map of a card type's base row.
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
    /// The protection scheme and its pages.
    public var protection: Type2Protection

    /// CFG0 (AUTH0 in byte 3) on PWD_AUTH products; the AUTH0 page (byte 0) on 3DES products.
    public var configPage: Int? {
        switch protection {
        case .none: nil
        case let .passwordAuth(configPage, _, _): configPage
        case let .tripleDES(auth0Page, _, _): auth0Page
        }
    }

    /// PWD page (PWD_AUTH products); reads back as zeros.
    public var passwordPage: Int? {
        if case let .passwordAuth(_, passwordPage, _) = protection { return passwordPage }
        return nil
    }

    /// PACK page (PWD_AUTH products); reads back as zeros.
    public var packPage: Int? {
        if case let .passwordAuth(_, _, packPage) = protection { return packPage }
        return nil
    }

    /// 3DES key pages: write-only, never read.
    public var keyPages: ClosedRange<Int>? {
        if case let .tripleDES(_, _, keyPages) = protection { return keyPages }
        return nil
    }

    /// User bytes available for the NDEF TLV area.
    public var userBytes: Int { (userEnd - userStart + 1) * 4 }

    /// The pages a reader can ever get back: everything except the 3DES key pages.
    public var readablePages: Int { keyPages.map { $0.lowerBound } ?? totalPages }

    /// CFG1 on PWD_AUTH products (ACCESS in byte 0: bit 7 PROT, bit 6 CFGLCK, bit 4 NFC_CNT_EN, bit 3
    /// NFC_CNT_PWD_PROT, bits 2–0 AUTHLIM), AUTH1 on 3DES products (byte 0).
    public var accessPage: Int? {
        switch protection {
        case .none: nil
        case let .passwordAuth(configPage, _, _): configPage + 1
        case let .tripleDES(_, auth1Page, _): auth1Page
        }
    }

    /// Where AUTH0 sits, as a byte offset in the memory: byte 3 of CFG0 (PWD_AUTH), byte 0 of the AUTH0
    /// page (3DES); nil without password protection.
    public var auth0Offset: Int? {
        switch protection {
        case .none: nil
        case let .passwordAuth(configPage, _, _): configPage * 4 + 3
        case let .tripleDES(auth0Page, _, _): auth0Page * 4
        }
    }

    /// The first page a WRITE needs the password for, from the content of the page holding AUTH0; nil
    /// when protection is off or the content is too short (PWD_AUTH: AUTH0 past the last page,
    /// NTAG213/215/216 §8.8.1; 3DES: AUTH0 ≥ 30h, MF0ICU2 §7.5.8).
    func firstWriteProtectedPage(auth0PageContent content: [UInt8]) -> Int? {
        guard let offset = auth0Offset, offset % 4 < content.count else { return nil }
        let auth0 = Int(content[offset % 4])
        return isProtectionOn(auth0: auth0) ? auth0 : nil
    }

    /// True when an AUTH0 value of `auth0` switches protection on (from page `auth0` upward): below the
    /// last page on PWD_AUTH products, below 30h on 3DES products; never without protection.
    public func isProtectionOn(auth0: Int) -> Bool {
        switch protection {
        case .none: false
        case .passwordAuth: auth0 < totalPages
        case .tripleDES: auth0 < 0x30
        }
    }

    public init(totalPages: Int, userStart: Int = 4, userEnd: Int, dynamicLockPage: Int? = nil,
                protection: Type2Protection = .none) {
        self.totalPages = totalPages
        self.userStart = userStart
        self.userEnd = userEnd
        self.dynamicLockPage = dynamicLockPage
        self.protection = protection
    }

    /// The map of `type`'s base product row, or nil when `type` is not a Type 2 product.
    public static func forType(_ type: CardType) -> Type2MemoryMap? {
        Type2Product.forType(type)?.memoryMap
    }

    // MARK: - Maps (reference notes §2.6, "Complete reference map"), used by the product rows

    /// MF0ICU1 §7.5: 16 pages.
    static let ultralight = Type2MemoryMap(totalPages: 16, userEnd: 15)
    /// MF0ICU2 §7.5: 48 pages; lock bytes 28h, AUTH0 2Ah, AUTH1 2Bh, key 2Ch–2Fh.
    static let ultralightC = Type2MemoryMap(totalPages: 48, userEnd: 39, dynamicLockPage: 40,
                                            protection: .tripleDES(auth0Page: 42, auth1Page: 43, keyPages: 44...47))
    /// MF0ULX1 §8.5: MF0UL11, 20 pages.
    static let ultralightEV1_11 = Type2MemoryMap(totalPages: 20, userEnd: 15,
                                                 protection: .passwordAuth(configPage: 16, passwordPage: 18, packPage: 19))
    /// MF0ULX1 §8.5: MF0UL21, 41 pages.
    static let ultralightEV1_21 = Type2MemoryMap(totalPages: 41, userEnd: 35, dynamicLockPage: 36,
                                                 protection: .passwordAuth(configPage: 37, passwordPage: 39, packPage: 40))
    /// NTAG203 §7.5: 42 pages.
    static let ntag203 = Type2MemoryMap(totalPages: 42, userEnd: 39, dynamicLockPage: 40)
    /// NTAG210/212 §8.5: NTAG210, 20 pages.
    static let ntag210 = Type2MemoryMap(totalPages: 20, userEnd: 15,
                                        protection: .passwordAuth(configPage: 16, passwordPage: 18, packPage: 19))
    /// NTAG210µ (NT2L1001/NT2H1001): the NTAG210 page layout (the spec's GET_VERSION table), but no
    /// PWD_AUTH, so no AUTH0/ACCESS/PWD/PACK protection (third-party command tables list PWD_AUTH and
    /// FAST_READ as "NTAG 21x excluding 210u"; the NXP datasheet could not be retrieved to cite a section).
    static let ntag210u = Type2MemoryMap(totalPages: 20, userEnd: 15, protection: .none)
    /// NTAG210/212 §8.5: NTAG212, 41 pages.
    static let ntag212 = Type2MemoryMap(totalPages: 41, userEnd: 35, dynamicLockPage: 36,
                                        protection: .passwordAuth(configPage: 37, passwordPage: 39, packPage: 40))
    /// NTAG213/215/216 §8.5: NTAG213, 45 pages.
    static let ntag213 = Type2MemoryMap(totalPages: 45, userEnd: 39, dynamicLockPage: 40,
                                        protection: .passwordAuth(configPage: 41, passwordPage: 43, packPage: 44))
    /// NTAG213/215/216 §8.5: NTAG215, 135 pages.
    static let ntag215 = Type2MemoryMap(totalPages: 135, userEnd: 129, dynamicLockPage: 130,
                                        protection: .passwordAuth(configPage: 131, passwordPage: 133, packPage: 134))
    /// NTAG213/215/216 §8.5: NTAG216, 231 pages.
    static let ntag216 = Type2MemoryMap(totalPages: 231, userEnd: 225, dynamicLockPage: 226,
                                        protection: .passwordAuth(configPage: 227, passwordPage: 229, packPage: 230))
}
