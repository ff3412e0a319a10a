/// The simulator's own Type 2 product rows, written from the NXP datasheets (never from NFCCore's
/// tables: a wrong row must not be wrong on both sides of the in-process tests; one test in
/// PN532SimTests compares the two row by row).
///
/// Page numbers are decimal; the hexadecimal addresses the datasheets use are in the comments.

/// Where a product keeps its protection settings.
public enum VirtualType2Protection: Sendable, Hashable {
    /// No password or key (MF0ICU1 Ultralight, NTAG203).
    case none
    /// PWD_AUTH (EV1, NTAG21x): CFG0 byte 3 is AUTH0, CFG1 (the next page) byte 0 is ACCESS (bit 7 PROT,
    /// bit 6 CFGLCK, bit 4 NFC_CNT_EN, bit 3 NFC_CNT_PWD_PROT); PWD and PACK read back as 00h
    /// (MF0ULX1 §8.6, NTAG210_212 §8.6, NTAG213/215/216 §8.5.7 and §8.8).
    case password(configPage: Int, passwordPage: Int, packPage: Int)
    /// 3DES AUTHENTICATE (Ultralight C): AUTH0 in byte 0 of `auth0Page` (03h–30h, 30h = off), AUTH1 in
    /// byte 0 of `auth0Page + 1` (bit 0: 1 = only writes protected, 0 = reads and writes), the key in
    /// `keyPages`, which never read back (MF0ICU2 §7.5.7, §7.5.8).
    case tripleDES(auth0Page: Int, keyPages: ClosedRange<Int>)
}

/// The memory map of one Type 2 product.
public struct VirtualType2Layout: Sendable, Hashable {
    /// Pages in the whole memory, key pages included.
    public var totalPages: Int
    /// First user page (04h on every product).
    public var userStart: Int = 4
    /// Last user page.
    public var userEnd: Int
    /// The page whose bytes 0–2 hold the dynamic lock bits, nil without them.
    public var dynamicLockPage: Int?
    /// Protection settings.
    public var protection: VirtualType2Protection = .none

    /// User bytes (the NDEF TLV area).
    public var userBytes: Int { (userEnd - userStart + 1) * 4 }

    /// Pages READ may ever address: all but the Ultralight C key pages (MF0ICU2 §9.2).
    public var readablePages: Int {
        if case let .tripleDES(_, keys) = protection { return keys.lowerBound }
        return totalPages
    }

    /// CFG0 (EV1/NTAG21x) or the AUTH0 page (Ultralight C).
    public var configPage: Int? {
        switch protection {
        case .none: nil
        case let .password(config, _, _): config
        case let .tripleDES(auth0, _): auth0
        }
    }

    /// CFG1 with ACCESS (EV1/NTAG21x) or the AUTH1 page (Ultralight C): byte 0 of the page after AUTH0's.
    public var accessPage: Int? { configPage.map { $0 + 1 } }

    /// Byte offset of AUTH0: CFG0 byte 3, or byte 0 of the Ultralight C AUTH0 page.
    public var auth0Offset: Int? {
        switch protection {
        case .none: nil
        case let .password(config, _, _): config * 4 + 3
        case let .tripleDES(auth0, _): auth0 * 4
        }
    }

    /// The PWD page (EV1/NTAG21x).
    public var passwordPage: Int? {
        if case let .password(_, pwd, _) = protection { return pwd }
        return nil
    }

    /// The PACK page (EV1/NTAG21x).
    public var packPage: Int? {
        if case let .password(_, _, pack) = protection { return pack }
        return nil
    }

    /// The Ultralight C key pages.
    public var keyPages: ClosedRange<Int>? {
        if case let .tripleDES(_, keys) = protection { return keys }
        return nil
    }
}

/// One dynamic lock bit: `byte` (0–2) and `bit` of the dynamic lock page make `pages` read-only.
public struct VirtualType2LockBit: Sendable, Hashable {
    public var byte: Int
    public var bit: Int
    public var pages: ClosedRange<Int>
}

/// One Type 2 product as the simulator plays it.
public struct VirtualType2Product: Sendable, Hashable {
    /// Commands beyond READ (30h), WRITE (A2h) and HALT (50h), which every product answers, by command code.
    public struct Features: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let getVersion = Features(rawValue: 1 << 0)  // 60h
        public static let fastRead = Features(rawValue: 1 << 1)  // 3Ah
        public static let readSignature = Features(rawValue: 1 << 2)  // 3Ch
        public static let readCounter = Features(rawValue: 1 << 3)  // 39h
        public static let checkTearingEvent = Features(rawValue: 1 << 4)  // 3Eh
        public static let pwdAuth = Features(rawValue: 1 << 5)  // 1Bh
        public static let tripleDESAuthentication = Features(rawValue: 1 << 6)  // 1Ah, AFh
        public static let compatibilityWrite = Features(rawValue: 1 << 7)  // A0h
        public static let incrementCounter = Features(rawValue: 1 << 8)  // A5h
        public static let virtualCardSelect = Features(rawValue: 1 << 9)  // 4Bh
    }

    /// What the tag answers to a command it lacks; either way it drops to IDLE.
    public enum UnsupportedAnswer: Sendable, Hashable {
        /// Nothing: MF0ICU1 lists no NAK for unknown commands, and nfcpy's transcripts of the original
        /// Ultralight time out on GET_VERSION.
        case silent
        /// NAK 0h (MF0ICU2 §9, MF0ULX1 §8.3, NTAG213/215/216 §9.3: "any other command" → NAK, IDLE).
        case nak
    }

    /// The datasheet's product name.
    public var name: String
    /// The datasheet the row comes from, with the sections used.
    public var source: String
    /// The GET_VERSION answer; nil when the product has no GET_VERSION.
    public var version: [UInt8]?
    /// The memory map.
    public var layout: VirtualType2Layout
    /// Supported commands.
    public var features: Features
    /// READ_CNT addresses that answer.
    public var counters: [UInt8] = []
    /// CHECK_TEARING_EVENT addresses that answer.
    public var tearingCounters: [UInt8] = []
    /// NTAG21x: READ_CNT needs NFC_CNT_EN, and PWD_AUTH first when NFC_CNT_PWD_PROT is set.
    public var counterNeedsEnable = false
    /// The answer to a command the product lacks.
    public var unsupportedAnswer: UnsupportedAnswer = .nak
    /// The dynamic lock bits that lock user pages (block-locking bits are not modelled).
    public var dynamicLockBits: [VirtualType2LockBit] = []
    /// The CC the virtual tag leaves the factory with (page 3).
    public var factoryCC: [UInt8]
    /// Factory content of the dynamic lock page.
    public var factoryDynamicLock: [UInt8] = [0x00, 0x00, 0x00, 0x00]
    /// Factory CFG0 / CFG1 (EV1, NTAG21x), or the AUTH0 page (Ultralight C: CFG0 only).
    public var factoryCFG0: [UInt8] = [0x00, 0x00, 0x00, 0xFF]
    public var factoryCFG1: [UInt8] = [0x00, 0x00, 0x00, 0x00]
    /// Bytes from page 4 on at delivery.
    public var factoryUserArea: [UInt8] = [0x03, 0x00, 0xFE, 0x00]
    /// Bytes of the READ_SIG answer: 32 (the READ_SIG sections of MF0ULX1 §10, NTAG210_212 §10 and
    /// NTAG213/215/216 §10: a 32-byte ECC signature) or 48 (MF0AES(H)20 §10.7, ``ultralightAES``).
    public var signatureLength = 32
}

extension VirtualType2Product {
    // MARK: Dynamic lock bits

    /// `count` lock bits from byte 0 bit 0 upward (bits listed in `skip` lock nothing), each locking
    /// the next `pagesPerBit` pages from page 16, the last group ending at `userEnd`.
    private static func lockBits(pagesPerBit: Int, userEnd: Int, skip: Set<Int> = []) -> [VirtualType2LockBit] {
        var bits: [VirtualType2LockBit] = []
        var first = 16
        var index = 0
        while first <= userEnd {
            if !skip.contains(index) {
                bits.append(VirtualType2LockBit(byte: index / 8, bit: index % 8,
                                                pages: first...min(first + pagesPerBit - 1, userEnd)))
                first += pagesPerBit
            }
            index += 1
        }
        return bits
    }

    // MARK: Rows

    /// MF0ULX1 §9.1 (command overview) and §10: GET_VERSION, READ, FAST_READ, WRITE, COMP_WRITE, READ_CNT,
    /// INCR_CNT, PWD_AUTH, READ_SIG, CHECK_TEARING_EVENT, VCSL.
    private static let ev1Features: Features = [
        .getVersion, .fastRead, .readSignature, .readCounter, .incrementCounter, .checkTearingEvent, .pwdAuth,
        .compatibilityWrite, .virtualCardSelect,
    ]
    /// NTAG213/215/216 §9.1 (command overview): GET_VERSION, READ, FAST_READ, WRITE, COMP_WRITE, READ_CNT,
    /// PWD_AUTH, READ_SIG; no INCR_CNT, CHECK_TEARING_EVENT or VCSL.
    private static let ntag21xFeatures: Features = [
        .getVersion, .fastRead, .readSignature, .readCounter, .pwdAuth, .compatibilityWrite,
    ]
    /// NTAG210_212 §9.1 (command overview): GET_VERSION, READ, FAST_READ, WRITE, COMP_WRITE, PWD_AUTH,
    /// READ_SIG; no counter commands, no VCSL.
    private static let ntag210Features: Features = [.getVersion, .fastRead, .readSignature, .pwdAuth, .compatibilityWrite]

    /// MF0ICU1 §7.5 (16 pages: UID 00h–02h, OTP 03h, user 04h–0Fh), §9 (READ, WRITE, COMPATIBILITY_WRITE).
    public static let ultralight = VirtualType2Product(
        name: "MIFARE Ultralight", source: "MF0ICU1 §7.5, §9", version: nil,
        layout: VirtualType2Layout(totalPages: 16, userEnd: 15), features: [.compatibilityWrite],
        unsupportedAnswer: .silent, factoryCC: [0xE1, 0x10, 0x06, 0x00])

    /// MF0ICU2 §7.5 Table 5 (48 pages: user 04h–27h, lock bytes 28h, counter 29h, AUTH0 2Ah, AUTH1 2Bh,
    /// key 2Ch–2Fh), §7.5.3 (page 28h byte 0: bits 1–3 lock 16–19, 20–23, 24–27; bits 5–7 lock 28–31,
    /// 32–35, 36–39; bits 0 and 4 are block-locking bits), §7.5.10 Table 13 (delivery: lock bytes 00h,
    /// AUTH0 30h, AUTH1 00h, key "BREAKMEIFYOUCAN!"), §9 (no GET_VERSION; unknown commands NAK).
    /// Page 28h byte 1 (locks of pages 41–47) is not modelled.
    public static let ultralightC = VirtualType2Product(
        name: "MIFARE Ultralight C", source: "MF0ICU2 §7.5, §9", version: nil,
        layout: VirtualType2Layout(totalPages: 48, userEnd: 39, dynamicLockPage: 40,
                                   protection: .tripleDES(auth0Page: 42, keyPages: 44...47)),
        features: [.compatibilityWrite, .tripleDESAuthentication],
        dynamicLockBits: lockBits(pagesPerBit: 4, userEnd: 39, skip: [0, 4]),
        factoryCC: [0xE1, 0x10, 0x12, 0x00], factoryCFG0: [0x30, 0x00, 0x00, 0x00])

    /// MF0ULX1 §8.5 Table 7 (MF0UL11: 20 pages, user 04h–0Fh, CFG0 10h, CFG1 11h, PWD 12h, PACK 13h),
    /// §8.5.7 (CFG1 at delivery 00 05 00 00: VCTID 05h), §10.1 Table 15 (GET_VERSION), §10 (three
    /// counters, each with a tearing flag).
    public static let ultralightEV1_MF0UL11 = VirtualType2Product(
        name: "Ultralight EV1 MF0UL11", source: "MF0ULX1 §8.5, §10",
        version: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03],
        layout: VirtualType2Layout(totalPages: 20, userEnd: 15,
                                   protection: .password(configPage: 16, passwordPage: 18, packPage: 19)),
        features: ev1Features, counters: [0, 1, 2], tearingCounters: [0, 1, 2],
        factoryCC: [0xE1, 0x10, 0x06, 0x00], factoryCFG1: [0x00, 0x05, 0x00, 0x00])

    /// MF0ULX1 §8.5 Table 8 (MF0UL21: 41 pages, user 04h–23h, dynamic lock 24h, CFG0 25h, CFG1 26h,
    /// PWD 27h, PACK 28h), §8.5.2 (dynamic lock bytes: byte 0 locks pages 16–31 two a bit, byte 1 bits 0–1
    /// pages 32–35; byte 2 block-locking bits), §10.1 Table 15.
    public static let ultralightEV1_MF0UL21 = VirtualType2Product(
        name: "Ultralight EV1 MF0UL21", source: "MF0ULX1 §8.5, §10",
        version: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0E, 0x03],
        layout: VirtualType2Layout(totalPages: 41, userEnd: 35, dynamicLockPage: 36,
                                   protection: .password(configPage: 37, passwordPage: 39, packPage: 40)),
        features: ev1Features, counters: [0, 1, 2], tearingCounters: [0, 1, 2],
        dynamicLockBits: lockBits(pagesPerBit: 2, userEnd: 35),
        factoryCC: [0xE1, 0x10, 0x10, 0x00], factoryDynamicLock: [0x00, 0x00, 0x00, 0xBD],
        factoryCFG1: [0x00, 0x05, 0x00, 0x00])

    /// NTAG203 §7.5 (42 pages: user 04h–27h, lock bytes 28h, counter 29h), §7.5.3 (page 28h byte 0 as on
    /// Ultralight C), §7.5.5 (delivery: CC E1 10 12 00, Lock Control TLV 01 03 A0 10 44, empty NDEF TLV),
    /// §9 (READ, WRITE, COMPATIBILITY_WRITE; no GET_VERSION).
    public static let ntag203 = VirtualType2Product(
        name: "NTAG203", source: "NTAG203 §7.5, §9", version: nil,
        layout: VirtualType2Layout(totalPages: 42, userEnd: 39, dynamicLockPage: 40),
        features: [.compatibilityWrite], dynamicLockBits: lockBits(pagesPerBit: 4, userEnd: 39, skip: [0, 4]),
        factoryCC: [0xE1, 0x10, 0x12, 0x00], factoryUserArea: [0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x00, 0xFE])

    /// NTAG210_212 §8.5 (NTAG210: 20 pages, user 04h–0Fh, CFG0 10h, CFG1 11h, PWD 12h, PACK 13h; CC
    /// E1 10 06 00), §10 (no counters, no tearing flags), §10.1 (GET_VERSION).
    public static let ntag210 = VirtualType2Product(
        name: "NTAG210", source: "NTAG210_212 §8.5, §10",
        version: [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0B, 0x03],
        layout: VirtualType2Layout(totalPages: 20, userEnd: 15,
                                   protection: .password(configPage: 16, passwordPage: 18, packPage: 19)),
        features: ntag210Features, factoryCC: [0xE1, 0x10, 0x06, 0x00])

    /// NTAG210_212 §8.5 (NTAG212: 41 pages, user 04h–23h, dynamic lock 24h, CFG0 25h, CFG1 26h, PWD 27h,
    /// PACK 28h; CC E1 10 10 00), §8.5.3 (dynamic lock: byte 0 pages 16–31 two a bit, byte 1 bits 0–1
    /// pages 32–35), §10.1.
    public static let ntag212 = VirtualType2Product(
        name: "NTAG212", source: "NTAG210_212 §8.5, §10",
        version: [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0E, 0x03],
        layout: VirtualType2Layout(totalPages: 41, userEnd: 35, dynamicLockPage: 36,
                                   protection: .password(configPage: 37, passwordPage: 39, packPage: 40)),
        features: ntag210Features, dynamicLockBits: lockBits(pagesPerBit: 2, userEnd: 35),
        factoryCC: [0xE1, 0x10, 0x10, 0x00], factoryDynamicLock: [0x00, 0x00, 0x00, 0xBD])

    /// NTAG213/215/216 §8.5 Table 4 (NTAG213: 45 pages, user 04h–27h, dynamic lock 28h, CFG0 29h, CFG1 2Ah,
    /// PWD 2Bh, PACK 2Ch), §8.5.3 (byte 0 locks 16–31, byte 1 bits 0–3 locks 32–39, two pages a bit),
    /// §8.5.6 (delivery: CC E1 10 12 00, 03 00 FE 00, dynamic lock 00 00 00 BD, CFG0 04 00 00 FF),
    /// §10.1 Table 29 (GET_VERSION), §10.6 (READ_CNT 02h only, with NFC_CNT_EN).
    public static let ntag213 = ntag21x(
        "NTAG213", storage: 0x0F, totalPages: 45, userEnd: 39, pagesPerBit: 2, cc: 0x12)
    /// NTAG213/215/216 §8.5 Table 5 (NTAG215: 135 pages, user 04h–81h, dynamic lock 82h, CFG0 83h, CFG1 84h,
    /// PWD 85h, PACK 86h), §8.5.3 (byte 0 locks 16–129, sixteen pages a bit; byte 1 RFUI).
    public static let ntag215 = ntag21x(
        "NTAG215", storage: 0x11, totalPages: 135, userEnd: 129, pagesPerBit: 16, cc: 0x3E)
    /// NTAG213/215/216 §8.5 Table 6 (NTAG216: 231 pages, user 04h–E1h, dynamic lock E2h, CFG0 E3h, CFG1 E4h,
    /// PWD E5h, PACK E6h), §8.5.3 (byte 0 and byte 1 bits 0–5 lock 16–225, sixteen pages a bit).
    public static let ntag216 = ntag21x(
        "NTAG216", storage: 0x13, totalPages: 231, userEnd: 225, pagesPerBit: 16, cc: 0x6D)

    private static func ntag21x(_ name: String, storage: UInt8, totalPages: Int, userEnd: Int, pagesPerBit: Int,
                                cc: UInt8, subtype: UInt8 = 0x02, major: UInt8 = 0x01) -> VirtualType2Product {
        VirtualType2Product(
            name: name, source: "NTAG213/215/216 §8.5, §10",
            version: [0x00, 0x04, 0x04, subtype, major, 0x00, storage, 0x03],
            layout: VirtualType2Layout(totalPages: totalPages, userEnd: userEnd, dynamicLockPage: userEnd + 1,
                                       protection: .password(configPage: userEnd + 2, passwordPage: userEnd + 4,
                                                             packPage: userEnd + 5)),
            features: ntag21xFeatures, counters: [2], counterNeedsEnable: true,
            dynamicLockBits: lockBits(pagesPerBit: pagesPerBit, userEnd: userEnd),
            factoryCC: [0xE1, 0x10, cc, 0x00], factoryDynamicLock: [0x00, 0x00, 0x00, 0xBD],
            factoryCFG0: [0x04, 0x00, 0x00, 0xFF])
    }

    /// The rows behind the named models.
    public static let named: [VirtualType2Product] = [
        .ultralight, .ultralightC, .ultralightEV1_MF0UL11, .ultralightEV1_MF0UL21, .ntag203, .ntag210, .ntag212,
        .ntag213, .ntag215, .ntag216,
    ]

    /// Variants a `.custom` model can answer GET_VERSION as, each with the memory and commands of its
    /// datasheet: the 50 pF EV1 parts (MF0ULX1 §10.1 Table 15: subtype 02h), NTAG213 TT (NT2H1311TT §10.1:
    /// major 03h; NTAG213 memory map plus READ_TT_STATUS, which is not modelled), NTAG I2C (NT3H1101/1201
    /// §10.1: subtype 05h, major 02h, minor 01h; 1K 13h, 2K 15h) and NTAG I2C plus (NT3H2111/2211 §10.1:
    /// minor 02h). The I2C products' sector memory is not modelled: they answer GET_VERSION, READ, FAST_READ,
    /// READ_SIG and WRITE over whatever page count the custom model has, with no protection or lock pages.
    /// MIFARE Ultralight AES (MF0AES20 / MF0AESH20): ``ultralightAES``.
    public static let variants: [VirtualType2Product] = {
        var ulh11 = ultralightEV1_MF0UL11
        ulh11.name = "Ultralight EV1 MF0ULH11"
        ulh11.version = [0x00, 0x04, 0x03, 0x02, 0x01, 0x00, 0x0B, 0x03]
        var ulh21 = ultralightEV1_MF0UL21
        ulh21.name = "Ultralight EV1 MF0ULH21"
        ulh21.version = [0x00, 0x04, 0x03, 0x02, 0x01, 0x00, 0x0E, 0x03]
        var tt = ntag213
        tt.name = "NTAG213 TT"
        tt.source = "NT2H1311TT §8.5, §10"
        tt.version = [0x00, 0x04, 0x04, 0x02, 0x03, 0x00, 0x0F, 0x03]
        func i2c(_ name: String, _ source: String, minor: UInt8, storage: UInt8) -> VirtualType2Product {
            VirtualType2Product(
                name: name, source: source, version: [0x00, 0x04, 0x04, 0x05, 0x02, minor, storage, 0x03],
                layout: VirtualType2Layout(totalPages: 0, userEnd: 0),
                features: [.getVersion, .fastRead, .readSignature, .compatibilityWrite],
                factoryCC: [0, 0, 0, 0], factoryUserArea: [])
        }
        return [
            ulh11, ulh21, tt, ultralightAES, ultralightAESH,
            i2c("NTAG I2C 1K", "NT3H1101 §10.1", minor: 0x01, storage: 0x13),
            i2c("NTAG I2C 2K", "NT3H1201 §10.1", minor: 0x01, storage: 0x15),
            i2c("NTAG I2C plus 1K", "NT3H2111 §10.1", minor: 0x02, storage: 0x13),
            i2c("NTAG I2C plus 2K", "NT3H2211 §10.1", minor: 0x02, storage: 0x15),
        ]
    }()

    /// The row whose GET_VERSION answer is `version`, byte for byte; nil for an answer no row has.
    public static func answering(_ version: [UInt8]) -> VirtualType2Product? {
        (named + variants).first { $0.version == version }
    }

    /// A product the tables do not know that answers GET_VERSION with `version`: READ, WRITE,
    /// COMPATIBILITY_WRITE and GET_VERSION, NAK for anything else, no protection or lock pages.
    public static func unknown(version: [UInt8]) -> VirtualType2Product {
        VirtualType2Product(name: "unknown Type 2 product", source: "-", version: version,
                            layout: VirtualType2Layout(totalPages: 0, userEnd: 0),
                            features: [.getVersion, .compatibilityWrite], factoryCC: [0, 0, 0, 0], factoryUserArea: [])
    }
}

/// The static lock bits of page 2 (MF0ICU1 §7.5.2, MF0ICU2 §7.5.2 Figure 6, NTAG213/215/216 §8.5.2):
/// byte 2 bit 3 locks page 3 (CC/OTP), bits 4–7 lock pages 4–7, byte 3 bits 0–7 lock pages 8–15; byte 2
/// bits 0–2 are block-locking bits (bit 0 freezes the CC lock bit, bit 1 those of pages 4–9, bit 2 those of
/// pages 10–15). Writes OR into the bytes; frozen bits keep their value.
enum VirtualType2StaticLock {
    /// (byte in page 2, bit) of the lock bit of pages 3–15.
    static func bit(ofPage page: Int) -> (byte: Int, bit: Int)? {
        switch page {
        case 3: (2, 3)
        case 4...7: (2, page)
        case 8...15: (3, page - 8)
        default: nil
        }
    }

    /// Bits (bytes 2, 3) each block-locking bit of byte 2 freezes.
    static let frozenBy: [(blockLockingBit: Int, masks: [UInt8])] = [
        (0, [0x08, 0x00]),  // BL-CC / BL-OTP: L-CC
        (1, [0xF0, 0x03]),  // BL 9-4: L4 … L9
        (2, [0x00, 0xFC]),  // BL 15-10: L10 … L15
    ]

    /// The lock bytes after a WRITE of `requested` over `current` (each 2 bytes: page 2 bytes 2–3).
    static func merge(current: [UInt8], requested: [UInt8]) -> [UInt8] {
        guard current.count == 2, requested.count == 2 else { return current }
        var frozen: [UInt8] = [0, 0]
        for entry in frozenBy where current[0] & (1 << entry.blockLockingBit) != 0 {
            frozen[0] |= entry.masks[0]
            frozen[1] |= entry.masks[1]
        }
        return (0..<2).map { current[$0] | (requested[$0] & ~frozen[$0]) }
    }
}
