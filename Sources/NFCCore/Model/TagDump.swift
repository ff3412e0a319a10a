/// What a dump could do with a tag. Raw values are used verbatim in exports (upstream strings).
public enum CardCapability: String, Sendable, Codable, CaseIterable {
    case readable = "Readable"
    case writable = "Writable"
    case authenticationRequired = "Authentication Required"
    case partiallyReadable = "Partially Readable"
    case identificationOnly = "Identification Only"
}

/// An ordered name/value pair shown to people and kept in exports. Keys are the upstream strings
/// ("Pages", "Unauthenticated Boundary", "NDEF Bytes", …).
public struct Fact: Sendable, Hashable, Codable {
    public var key: String
    public var value: String
    public var monospaced: Bool

    public init(key: String, value: String, monospaced: Bool = false) {
        self.key = key
        self.value = value
        self.monospaced = monospaced
    }
}

/// One Type 2 page (4 bytes when read from a tag; imports may hold other lengths, which the
/// page-based exports refuse with ``NFCError/malformedDump(_:)``).
public struct Page: Sendable, Hashable, Codable {
    public var number: Int
    public var data: [UInt8]

    public init(number: Int, data: [UInt8]) {
        self.number = number
        self.data = data
    }
}

/// One block (FeliCa, ISO 15693, MIFARE Classic).
public struct Block: Sendable, Hashable, Codable {
    public var number: Int
    public var data: [UInt8]
    public var locked: Bool

    public init(number: Int, data: [UInt8], locked: Bool = false) {
        self.number = number
        self.data = data
        self.locked = locked
    }
}

/// One file (DESFire AID+file, Type 4 CC/NDEF file, FeliCa service snapshot).
public struct FileData: Sendable, Hashable, Codable {
    public var identifier: [UInt8]
    public var data: [UInt8]
    public var name: String?

    public init(identifier: [UInt8], data: [UInt8], name: String? = nil) {
        self.identifier = identifier
        self.data = data
        self.name = name
    }
}

/// Type 2 chip data read beside the pages, needed for complete Flipper / Proxmark3 files.
public struct Type2Extras: Sendable, Hashable {
    /// READ_SIG answer (32 bytes) when the product supports it and the tag answered.
    public var signature: [UInt8]?
    /// READ_CNT values of counters 0, 1, 2 (nil where not supported or not read).
    public var counters: [UInt32?]
    /// CHECK_TEARING_EVENT values of counters 0, 1, 2 (nil where not supported or not read).
    public var tearing: [UInt8?]
    /// Total pages of the product's memory (readable or not).
    public var totalPages: Int?

    public init(signature: [UInt8]? = nil, counters: [UInt32?] = [nil, nil, nil], tearing: [UInt8?] = [nil, nil, nil],
                totalPages: Int? = nil) {
        self.signature = signature
        self.counters = counters
        self.tearing = tearing
        self.totalPages = totalPages
    }
}

/// The typed data of one family that a dump carries beside its generic memory (pages, blocks, files).
/// Facts shown to people are derived from it when the dump is made; exports read it, never the facts.
public enum FamilyDumpData: Sendable, Hashable {
    /// Nothing family-specific.
    case none
    /// Type 2 chip data: originality signature, counters, tearing flags, total pages.
    case type2(Type2Extras)
    /// MIFARE Classic: the sector-trailer parts whose value no key revealed.
    case classic(ClassicTrailerGaps)
    /// Type 4: what the CC says about writing the NDEF file.
    case type4(ndefWritable: Bool)
    /// FeliCa (Type 3): what the attribute block says about writing NDEF.
    case felica(ndefWritable: Bool)
    /// MIFARE DESFire: the walk of applications and files (settings, contents, what was skipped).
    case desfire(DESFireDump)
}

/// A dump of one tag: the data model every export reads and every import produces
/// (CoreExtendedNFC's `MemoryDump`, plus the typed family data of ``family``).
public struct TagDump: Sendable, Hashable {
    public var cardInfo: CardInfo
    /// Type 2 pages, in read order.
    public var pages: [Page]
    /// Blocks (FeliCa, ISO 15693, Classic).
    public var blocks: [Block]
    /// Files (DESFire, Type 4, FeliCa services).
    public var files: [FileData]
    /// The raw NDEF message (no TLV), when the tag has one.
    public var ndefMessage: [UInt8]?
    /// Ordered facts, for people (derived from the data when the dump is made; never read back).
    public var facts: [Fact]
    /// Capabilities; may be empty, then exports infer them (see the summary rules).
    public var capabilities: [CardCapability]
    /// The family's typed data.
    public var family: FamilyDumpData

    public init(
        cardInfo: CardInfo, pages: [Page] = [], blocks: [Block] = [], files: [FileData] = [],
        ndefMessage: [UInt8]? = nil, facts: [Fact] = [], capabilities: [CardCapability] = [],
        family: FamilyDumpData = .none
    ) {
        self.cardInfo = cardInfo
        self.pages = pages
        self.blocks = blocks
        self.files = files
        self.ndefMessage = ndefMessage
        self.facts = facts
        self.capabilities = capabilities
        self.family = family
    }

    /// Type 2 chip data (signature, counters, tearing); nil for other families. A view of ``family``.
    public var type2: Type2Extras? {
        get {
            if case let .type2(extras) = family { return extras }
            return nil
        }
        set { family = newValue.map(FamilyDumpData.type2) ?? .none }
    }

    /// The MIFARE Classic trailer gaps (empty for other families). A view of ``family``.
    public var classicTrailerGaps: ClassicTrailerGaps {
        if case let .classic(gaps) = family { return gaps }
        return ClassicTrailerGaps()
    }

    /// The value of the first fact with this key.
    public func fact(_ key: String) -> String? {
        facts.first { $0.key == key }?.value
    }
}
