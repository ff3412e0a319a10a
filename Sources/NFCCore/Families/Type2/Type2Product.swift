/// One Type 2 product — the one row that holds every fact about it: name, card type, the commands the
/// chip supports beyond READ and WRITE, its memory map with the protection scheme (``Type2Protection``),
/// its lock bytes (``Type2Locking``, datasheet section in the layout), the factory CC's data area and
/// Flipper's type name. Feature bits steer the dump: signature, counters and tearing flags are only
/// asked of products whose row says they exist. ``GetVersionTable`` maps GET_VERSION answers to rows.
///
/// Sources (command sets): MF0ICU1 §9 (Ultralight), MF0ICU2 §9 (Ultralight C), MF0ULX1 §10 (Ultralight
/// EV1), NTAG203 §9, NTAG210/212 §10, NTAG213/215/216 §10, NTAG213F/216F §10, NT2H1001/NT2L1001 (NTAG210µ).
///
/// Answers to an unsupported command (``unsupportedCommandAnswer``): NAK 0h — MF0ICU2 §8.3 Table 15 ("0h
/// NAK for any other error", then an internal reset to IDLE/HALT), NTAG203 §8.7 Table 8 (internal reset
/// after every NAK), MF0ULX1 §8.3, NTAG210/212 §9.3, NTAG213/215/216 §9.3 and NTAG213F/216F §9.3 Table 21
/// ("NAK for invalid argument"; the chip then returns to IDLE or HALT, §8.4.4). MF0ICU1 sends nothing: its
/// state diagram (§7.1, remark) returns to IDLE/HALT on any unexpected command, and a GET_VERSION to it
/// times out (nfcpy `tt2_nxp.py`: timeout ⇒ MF0ICU1, NAK ⇒ NTAG203; Proxmark3 `hf mfu info` alike). The
/// generic rows (I2C, DNA, Nano, AES) all have GET_VERSION; their NAK 0h is the NTAG21x interface's.
public struct Type2Product: Sendable, Hashable, ProductRow {
    /// Commands a product supports besides READ (30h) and WRITE (A2h), which every Type 2 tag has.
    public struct Features: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// GET_VERSION (60h).
        public static let getVersion = Features(rawValue: 1 << 0)
        /// FAST_READ (3Ah): a page range in one answer.
        public static let fastRead = Features(rawValue: 1 << 1)
        /// READ_SIG (3Ch 00h): the originality signature, ``Type2Product/signatureLength`` bytes. Set
        /// exactly when that length is (the initialiser derives it; a row gives the length only).
        public static let readSignature = Features(rawValue: 1 << 2)
        /// READ_CNT (39h); which counters answer is in ``Type2Product/counters``.
        public static let readCounter = Features(rawValue: 1 << 3)
        /// INCR_CNT (A5h).
        public static let incrementCounter = Features(rawValue: 1 << 4)
        /// CHECK_TEARING_EVENT (3Eh); which counters in ``Type2Product/tearingCounters``.
        public static let checkTearingEvent = Features(rawValue: 1 << 5)
        /// PWD_AUTH (1Bh) with a 32-bit password and AUTH0/PROT protection.
        public static let pwdAuth = Features(rawValue: 1 << 6)
        /// Ultralight C 3DES AUTHENTICATE (1Ah) with AUTH0/AUTH1 protection.
        public static let tripleDESAuthentication = Features(rawValue: 1 << 7)
        /// COMPATIBILITY_WRITE (A0h), the MIFARE Classic-style two-frame write.
        public static let compatibilityWrite = Features(rawValue: 1 << 8)
        /// VCSL (4Bh), virtual card select.
        public static let virtualCardSelect = Features(rawValue: 1 << 9)
    }

    /// Exact product name ("NTAG213 TT", "Ultralight EV1 MF0ULH21", "NTAG I2C plus 2K").
    public var name: String
    /// The card type; it selects the memory map. Products the spec keeps generic (I2C, Nano, 223 DNA, …)
    /// are `.mifareUltralight` here.
    public var cardType: CardType
    /// Supported commands.
    public var features: Features
    /// READ_CNT counter addresses that answer (EV1: 0, 1, 2; NTAG21x: only 2, the NFC counter).
    public var counters: [UInt8]
    /// CHECK_TEARING_EVENT counter addresses (EV1 only).
    public var tearingCounters: [UInt8]
    /// True when READ_CNT only answers once NFC_CNT_EN (ACCESS bit 4) is set, and not without
    /// PWD_AUTH when NFC_CNT_PWD_PROT (bit 3) is set (NTAG213/215/216 §8.5.7, §10.6).
    public var counterNeedsEnable: Bool

    /// Where things are in the memory, and how it is protected.
    public var map: Type2MemoryMap
    /// The lock bytes.
    public var locking: Type2Locking
    /// The data area size the factory CC announces (`E1 10 <size / 8> 00`) where it differs from the
    /// user memory (NTAG213/215/216 §8.5.6: NTAG215 `E1 10 3E 00`, NTAG216 `E1 10 6D 00`); nil: the
    /// whole user memory.
    public var factoryDataAreaSize: Int?
    /// The "NTAG/Ultralight type" a Flipper Zero writes (`mf_ultralight_features[].device_name` in
    /// flipperzero-firmware mf_ultralight.c). Flipper types by storage size alone, so NTAG210/212 are
    /// "Mifare Ultralight 11/21", as their MF0UL11/21 twins (same page count, config page and commands).
    public var flipperName: String
    /// How the product answers a command it does not have (GET_VERSION on an Ultralight, AUTHENTICATE on
    /// an NTAG): what refinement reads a failed GET_VERSION against (``Type2Refinement``).
    public var unsupportedCommandAnswer: UnsupportedCommandAnswer
    /// Bytes of the READ_SIG answer: 32 (secp128r1: NTAG21x, Ultralight EV1, NTAG210µ) or 48 (secp192r1:
    /// Ultralight AES, NTAG 223 / 224 DNA); nil for a product without READ_SIG. The one source of
    /// ``Features/readSignature``.
    public let signatureLength: Int?

    /// How a Type 2 product answers a command it does not support. Either way it falls back to IDLE (or
    /// HALT) and answers nothing more until it is selected again (``Type2Command/probe(via:)`` re-selects).
    public enum UnsupportedCommandAnswer: Sendable, Hashable {
        /// The 4-bit NAK with this value.
        case nak(UInt8)
        /// No answer at all.
        case silence
    }

    /// Creates a product row.
    public init(name: String, cardType: CardType, features: Features, counters: [UInt8] = [],
                tearingCounters: [UInt8] = [], counterNeedsEnable: Bool = false, map: Type2MemoryMap,
                locking: Type2Locking, factoryDataAreaSize: Int? = nil, flipperName: String,
                unsupportedCommandAnswer: UnsupportedCommandAnswer = .nak(0x0), signatureLength: Int? = nil) {
        self.name = name
        self.cardType = cardType
        var derived = Self.authenticationFeatures(features, for: map.protection)
        if signatureLength == nil { derived.remove(.readSignature) } else { derived.insert(.readSignature) }
        self.features = derived
        self.counters = counters
        self.tearingCounters = tearingCounters
        self.counterNeedsEnable = counterNeedsEnable
        self.map = map
        self.locking = locking
        self.factoryDataAreaSize = factoryDataAreaSize
        self.flipperName = flipperName
        self.unsupportedCommandAnswer = unsupportedCommandAnswer
        self.signatureLength = signatureLength
    }

    /// The features with the authentication bits taken from the protection scheme, so the two cannot
    /// disagree: `.pwdAuth` exactly when the map has PWD_AUTH protection, `.tripleDESAuthentication`
    /// exactly when it has 3DES protection.
    private static func authenticationFeatures(_ features: Features, for protection: Type2Protection) -> Features {
        var result = features.subtracting([.pwdAuth, .tripleDESAuthentication])
        switch protection {
        case .none: break
        case .passwordAuth: result.insert(.pwdAuth)
        case .tripleDES: result.insert(.tripleDESAuthentication)
        }
        return result
    }

    /// The memory map (optional for the callers written when maps were a table of card types).
    public var memoryMap: Type2MemoryMap? { map }

    /// The protection scheme.
    public var protection: Type2Protection { map.protection }

    /// The CC a format writes on a blank tag: `E1 10 <data area / 8> 00`.
    public var factoryCapabilityContainer: Type2CapabilityContainer {
        Type2CapabilityContainer(dataAreaSize: factoryDataAreaSize ?? map.userBytes)
    }

    /// The product for a dump or a command: the row identification stored (``CardInfo/product``), else
    /// the GET_VERSION table's row when the version is known, else the base row of the card type. Nil when the type is not Type 2.
    public static func forCardInfo(_ info: CardInfo) -> Type2Product? {
        if let row = info.product?.type2, row.cardType == info.type { return row }
        if let version = info.version, let match = GetVersionTable.lookup(version), match.product.cardType == info.type {
            return match.product
        }
        return forType(info.type)
    }

    /// The base row of a Type 2 card type (nil for other families).
    public static func forType(_ type: CardType) -> Type2Product? {
        baseRows.first { $0.cardType == type }
    }

    /// The base rows without GET_VERSION, the ones a tag that does not answer it may be, in the order
    /// refinement tells them apart: the largest memory first (a READ of its last readable page answers
    /// only on it), the smallest (MF0ICU1) last — and rows that answer an unsupported command as the tag
    /// answered GET_VERSION (`refused`: a NAK, `silent`: nothing) before those that do not, at equal size.
    static func rowsWithoutGetVersion(answeringRefused refused: Bool) -> [Type2Product] {
        baseRows.filter { !$0.features.contains(.getVersion) }
            .sorted { lhs, rhs in
                if lhs.map.readablePages != rhs.map.readablePages { return lhs.map.readablePages > rhs.map.readablePages }
                return lhs.answersUnsupported(refused: refused) && !rhs.answersUnsupported(refused: refused)
            }
    }

    /// True when the row answers an unsupported command with a NAK and `refused` is true, or with silence
    /// and `refused` is false.
    func answersUnsupported(refused: Bool) -> Bool {
        switch unsupportedCommandAnswer {
        case .nak: refused
        case .silence: !refused
        }
    }

    // MARK: - Rows

    private static let ev1Features: Features = [
        .getVersion, .fastRead, .readCounter, .incrementCounter, .checkTearingEvent,
        .compatibilityWrite, .virtualCardSelect,
    ]
    /// NTAG210/212 §10: no counter, no tearing flags.
    private static let ntag210Features: Features = [.getVersion, .fastRead, .compatibilityWrite]
    /// NTAG213/215/216 §10: READ_CNT for the NFC counter (address 02h) only; no CHECK_TEARING_EVENT.
    private static let ntag21xFeatures: Features = [
        .getVersion, .fastRead, .readCounter, .compatibilityWrite,
    ]
    /// READ_SIG's answer on the NTAG21x, Ultralight EV1 and NTAG210µ: a 32-byte secp128r1 signature
    /// (NTAG213/215/216 and MF0ULX1 datasheets, READ_SIG; AN11350).
    private static let secp128r1SignatureLength = 32

    /// MIFARE Ultralight (MF0ICU1): READ, WRITE, COMPATIBILITY_WRITE.
    public static let ultralight = Type2Product(name: "MIFARE Ultralight", cardType: .mifareUltralight,
                                                features: [.compatibilityWrite], map: .ultralight,
                                                locking: .staticOnly, flipperName: "Mifare Ultralight",
                                                unsupportedCommandAnswer: .silence)
    /// MIFARE Ultralight C (MF0ICU2): adds 3DES AUTHENTICATE; no GET_VERSION.
    public static let ultralightC = Type2Product(name: "MIFARE Ultralight C", cardType: .mifareUltralightC,
                                                 features: [.compatibilityWrite],
                                                 map: .ultralightC, locking: .dynamic(.ultralightC),
                                                 flipperName: "Mifare Ultralight C")
    /// Ultralight EV1, 48 bytes user memory, 17 pF.
    public static let ultralightEV1_MF0UL11 = ev1("Ultralight EV1 MF0UL11", .mifareUltralightEV1_MF0UL11,
        map: .ultralightEV1_11, locking: .staticOnly, flipperName: "Mifare Ultralight 11")
    /// Ultralight EV1, 48 bytes user memory, 50 pF.
    public static let ultralightEV1_MF0ULH11 = ev1("Ultralight EV1 MF0ULH11", .mifareUltralightEV1_MF0UL11,
        map: .ultralightEV1_11, locking: .staticOnly, flipperName: "Mifare Ultralight 11")
    /// Ultralight EV1, 128 bytes user memory, 17 pF.
    public static let ultralightEV1_MF0UL21 = ev1("Ultralight EV1 MF0UL21", .mifareUltralightEV1_MF0UL21,
        map: .ultralightEV1_21, locking: .dynamic(.ultralightEV1_21), flipperName: "Mifare Ultralight 21")
    /// Ultralight EV1, 128 bytes user memory, 50 pF.
    public static let ultralightEV1_MF0ULH21 = ev1("Ultralight EV1 MF0ULH21", .mifareUltralightEV1_MF0UL21,
        map: .ultralightEV1_21, locking: .dynamic(.ultralightEV1_21), flipperName: "Mifare Ultralight 21")
    /// NTAG203: READ, WRITE, COMPATIBILITY_WRITE; no GET_VERSION.
    public static let ntag203 = Type2Product(name: "NTAG203", cardType: .ntag203, features: [.compatibilityWrite],
                                             map: .ntag203, locking: .dynamic(.ntag203), flipperName: "NTAG203")
    /// NTAG210.
    public static let ntag210 = Type2Product(name: "NTAG210", cardType: .ntag210, features: ntag210Features,
                                             map: .ntag210, locking: .staticOnly, flipperName: "Mifare Ultralight 11",
                                             signatureLength: secp128r1SignatureLength)
    /// NTAG210µ (NT2L1001/NT2H1001): NTAG210 page layout, but no PWD_AUTH (so no password protection in
    /// its map) and no FAST_READ.
    public static let ntag210u = Type2Product(name: "NTAG210u", cardType: .ntag210,
                                              features: [.getVersion, .compatibilityWrite],
                                              map: .ntag210u, locking: .staticOnly, flipperName: "Mifare Ultralight 11",
                                              signatureLength: secp128r1SignatureLength)
    /// NTAG212.
    public static let ntag212 = Type2Product(name: "NTAG212", cardType: .ntag212, features: ntag210Features,
                                             map: .ntag212, locking: .dynamic(.ntag212), flipperName: "Mifare Ultralight 21",
                                             signatureLength: secp128r1SignatureLength)
    /// NTAG213.
    public static let ntag213 = ntag21x("NTAG213", .ntag213,
        map: .ntag213, locking: .dynamic(.ntag213), flipperName: "NTAG213")
    /// NTAG213C (NT2H1311C1DTL).
    public static let ntag213C = ntag21x("NTAG213C", .ntag213,
        map: .ntag213, locking: .dynamic(.ntag213), flipperName: "NTAG213")
    /// NTAG213F (field detection pin).
    public static let ntag213F = ntag21x("NTAG213F", .ntag213,
        map: .ntag213, locking: .dynamic(.ntag213), flipperName: "NTAG213")
    /// NTAG213 TT (tamper tag); READ_TT_STATUS is not used.
    public static let ntag213TT = ntag21x("NTAG213 TT", .ntag213,
        map: .ntag213, locking: .dynamic(.ntag213), flipperName: "NTAG213")
    /// NTAG215.
    public static let ntag215 = ntag21x("NTAG215", .ntag215,
        map: .ntag215, locking: .dynamic(.ntag215), factoryDataAreaSize: 0x3E * 8, flipperName: "NTAG215")
    /// NTAG216.
    public static let ntag216 = ntag21x("NTAG216", .ntag216,
        map: .ntag216, locking: .dynamic(.ntag216), factoryDataAreaSize: 0x6D * 8, flipperName: "NTAG216")
    /// NTAG216F (field detection pin).
    public static let ntag216F = ntag21x("NTAG216F", .ntag216,
        map: .ntag216, locking: .dynamic(.ntag216), factoryDataAreaSize: 0x6D * 8, flipperName: "NTAG216")
    /// NTAG213 clone by Shanghai Feiju (vendor byte 53h), seen in Xiaomi purifier filters.
    public static let ntag213FeijuClone = ntag21x("NTAG213 (Shanghai Feiju clone)", .ntag213,
        map: .ntag213, locking: .dynamic(.ntag213), flipperName: "NTAG213")
    /// NTAG215 clone by Shanghai Feiju (vendor 05h, product type 34h).
    public static let ntag215FeijuClone = ntag21x("NTAG215 (Shanghai Feiju clone)", .ntag215,
        map: .ntag215, locking: .dynamic(.ntag215), factoryDataAreaSize: 0x3E * 8, flipperName: "NTAG215")
    /// Ultralight EV1 128-byte clone by Mikron JSC (vendor 34h, product type 21h).
    public static let ultralightEV1_MF0UL21MikronClone = ev1("Ultralight EV1 MF0UL21 (Mikron clone)", .mifareUltralightEV1_MF0UL21,
        map: .ultralightEV1_21, locking: .dynamic(.ultralightEV1_21), flipperName: "Mifare Ultralight 21")
    /// MIFARE Ultralight Nano (MF0UNx00): kept generic Ultralight by the spec.
    public static let ultralightNano = generic("Ultralight Nano")
    /// MIFARE Ultralight AES (MF0AES(H)20): not in the spec's type list, generic Ultralight; READ_SIG
    /// answers a 48-byte secp192r1 signature (MF0AES(H)20 §8.9 "Product originality", §10.7 READ_SIG;
    /// AN13452 for the key).
    public static let ultralightAES = generic("Ultralight AES", signatureLength: 48)
    /// NTAG 223 DNA: generic Ultralight per the spec; READ_SIG answers a 48-byte secp192r1 signature
    /// (AN12998 "NTAG 22x DNA features and hints", as Proxmark3's originality.c cites it for the key;
    /// the genuine pairs of its tools/recover_pk.py are 48 bytes).
    public static let ntag223DNA = generic("NTAG 223 DNA", signatureLength: 48)
    /// NTAG 223 DNA StatusDetect.
    public static let ntag223DNAStatusDetect = generic("NTAG 223 DNA StatusDetect", signatureLength: 48)
    /// NTAG 224 DNA: generic Ultralight.
    public static let ntag224DNA = generic("NTAG 224 DNA", signatureLength: 48)
    /// NTAG 224 DNA StatusDetect.
    public static let ntag224DNAStatusDetect = generic("NTAG 224 DNA StatusDetect", signatureLength: 48)
    /// NTAG I2C 1K (NT3H1101): sector-based memory, generic Ultralight (it is not an NTAG216).
    public static let ntagI2C1K = generic("NTAG I2C 1K", flipperName: "NTAG I2C 1K")
    /// NTAG I2C 2K (NT3H1201).
    public static let ntagI2C2K = generic("NTAG I2C 2K", flipperName: "NTAG I2C 2K")
    /// NTAG I2C plus 1K (NT3H2111).
    public static let ntagI2CPlus1K = generic("NTAG I2C plus 1K", flipperName: "NTAG I2C Plus 1K")
    /// NTAG I2C plus 2K (NT3H2211).
    public static let ntagI2CPlus2K = generic("NTAG I2C plus 2K", flipperName: "NTAG I2C Plus 2K")

    /// Every row but the base rows, for look-ups by name (Flipper type names).
    static let productRows: [Type2Product] = [
        .ultralightEV1_MF0ULH11, .ultralightEV1_MF0ULH21, .ntag210u, .ntag213C, .ntag213F, .ntag213TT, .ntag216F,
        .ntag213FeijuClone, .ntag215FeijuClone, .ultralightEV1_MF0UL21MikronClone, .ultralightNano, .ultralightAES,
        .ntag223DNA, .ntag223DNAStatusDetect, .ntag224DNA, .ntag224DNAStatusDetect, .ntagI2C1K, .ntagI2C2K,
        .ntagI2CPlus1K, .ntagI2CPlus2K,
    ]

    /// The row each card type falls back to when no exact product is known.
    static let baseRows: [Type2Product] = [
        .ultralight, .ultralightC, .ultralightEV1_MF0UL11, .ultralightEV1_MF0UL21, .ntag203, .ntag210, .ntag212,
        .ntag213, .ntag215, .ntag216,
    ]

    private static func ev1(_ name: String, _ type: CardType, map: Type2MemoryMap, locking: Type2Locking,
                            flipperName: String) -> Type2Product {
        // MF0ULX1 §10.6/§10.8: three 24-bit one-way counters, each with a tearing flag.
        Type2Product(name: name, cardType: type, features: ev1Features, counters: [0, 1, 2], tearingCounters: [0, 1, 2],
                     map: map, locking: locking, flipperName: flipperName, signatureLength: secp128r1SignatureLength)
    }

    private static func ntag21x(_ name: String, _ type: CardType, map: Type2MemoryMap, locking: Type2Locking,
                                factoryDataAreaSize: Int? = nil, flipperName: String) -> Type2Product {
        Type2Product(name: name, cardType: type, features: ntag21xFeatures, counters: [2], counterNeedsEnable: true,
                     map: map, locking: locking, factoryDataAreaSize: factoryDataAreaSize, flipperName: flipperName,
                     signatureLength: secp128r1SignatureLength)
    }

    /// `signatureLength`: the length of the READ_SIG answer for the generic rows that have one (their
    /// signature is read and verified like the NTAG21x one); nil for the rows without READ_SIG.
    private static func generic(_ name: String, flipperName: String = "Mifare Ultralight",
                                signatureLength: Int? = nil) -> Type2Product {
        // Dumped with the 16-page Ultralight map by plain READ; GET_VERSION is all we rely on. Their lock
        // bytes are not modelled (a lock is refused).
        Type2Product(name: name, cardType: .mifareUltralight, features: [.getVersion, .compatibilityWrite],
                     map: .ultralight, locking: .unknown, flipperName: flipperName, signatureLength: signatureLength)
    }
}

/// The lock bytes of a Type 2 product (what ``Type2Lock`` sets and ``Type2LockMap`` reads).
public enum Type2Locking: Sendable, Hashable {
    /// Static lock bytes only (page 2 bytes 2–3); the user memory ends at page 15.
    case staticOnly
    /// Static lock bytes and the dynamic lock bytes of the map's ``Type2MemoryMap/dynamicLockPage``.
    case dynamic(Type2Lock.DynamicLockLayout)
    /// Not modelled (NTAG I2C, Ultralight Nano/AES, NTAG 223/224 DNA, kept as generic Ultralight): the tag is
    /// never locked.
    case unknown

    /// The dynamic lock layout, when the product has one.
    public var dynamicLayout: Type2Lock.DynamicLockLayout? {
        if case let .dynamic(layout) = self { return layout }
        return nil
    }
}

extension Product {
    /// The Type 2 product row identification found (or a file named); nil for another family's row or a
    /// bare name. The Type 2 family's view of the product.
    public var type2: Type2Product? { row(as: Type2Product.self) }
}
