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

/// One family's typed dump data (``TagDump/family``). Each family declares its payload in its own folder
/// (Type 2 chip data, Classic trailer gaps, Type 4 / FeliCa write access), so the generic model names no
/// family. Facts shown to people are derived from it when the dump is made; exports read it, never the facts.
///
/// `Encodable`: its encoding is the payload's additive keys at the top level of the JSON export
/// (``TagDump/exportJSON(prettyPrinted:)``); the family reads them back (``TagFamilyFiles/familyData(fromJSON:dump:)``).
public protocol FamilyDumpPayload: Sendable, Hashable, Encodable {}

/// The typed data of one family that a dump carries beside its generic memory (pages, blocks, files):
/// one ``FamilyDumpPayload`` of the family's folder, or ``none``. Each family adds its constructor
/// (`.type2(_:)`, `.classic(_:)`, `.desfire(_:)`, `.iso15693(_:)`, `.type4(ndefWritable:)`,
/// `.felica(ndefWritable:)`) and its typed view of the payload (``TagDump/type2``,
/// ``TagDump/classicTrailerGaps``, ``TagDump/desfire``, ``TagDump/iso15693System``,
/// ``TagDump/ndefWriteAccess``) next to the payload type; the views are the only readers of the payload.
public struct FamilyDumpData: Sendable, Hashable {
    /// The payload; nil for nothing family-specific.
    public let payload: (any FamilyDumpPayload)?

    /// Wraps `payload`.
    public init(_ payload: (any FamilyDumpPayload)?) {
        self.payload = payload
    }

    /// Nothing family-specific.
    public static var none: FamilyDumpData { FamilyDumpData(nil) }

    /// The payload when it is a `Payload` (nil for another family's or none): what a family's typed view
    /// of ``TagDump/family`` reads, next to its payload type.
    func payload<Payload: FamilyDumpPayload>(as type: Payload.Type) -> Payload? {
        payload as? Payload
    }

    /// The payload as a hashable value: two payloads are equal when they are of one type and equal.
    private var hashable: AnyHashable? { payload.map { AnyHashable($0) } }

    public static func == (lhs: FamilyDumpData, rhs: FamilyDumpData) -> Bool { lhs.hashable == rhs.hashable }

    public func hash(into hasher: inout Hasher) { hasher.combine(hashable) }
}

/// A dump of one tag: the data model every export reads and every import produces
/// (CoreExtendedNFC's `MemoryDump`, plus the typed family data of ``family``).
///
/// Two halves: the memory image — ``pages``, ``blocks`` or ``files``, the three shapes of the upstream
/// schema, which the summary, the raw binary, the hex listing and the JSON keys read without knowing the
/// family — and ``family``, the one place for what only a family knows (chip data, trailer gaps, write
/// access). ``facts`` are derived from both for people and never read back.
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

    /// The value of the first fact with this key.
    public func fact(_ key: String) -> String? {
        facts.first { $0.key == key }?.value
    }
}
