/// What identification found out about a tag: the type, the exact product, and the evidence.
public struct CardInfo: Sendable, Hashable {
    /// Card type (CoreExtendedNFC vocabulary).
    public var type: CardType
    /// UID (IDm for FeliCa), transmission order.
    public var uid: [UInt8]
    /// ATQA, MSB first (`00 44`); nil when unknown (e.g. imported from a file without it).
    public var atqa: [UInt8]?
    /// SAK; nil when unknown.
    public var sak: UInt8?
    /// ATS without TL; nil when not ISO-DEP.
    public var ats: [UInt8]?
    /// Exact product from the full GET_VERSION / DESFire version / FeliCa tables: the table's row, rendered
    /// by its name ("NTAG213 TT", "NTAG I2C plus 2K", …); nil when nothing finer than ``type`` is known.
    public var product: Product?
    /// Raw GET_VERSION answer (8 bytes) of a Type 2 tag, or the DESFire version (28 bytes).
    public var version: [UInt8]?
    /// FeliCa PMm.
    public var pmm: [UInt8]?
    /// FeliCa system code (2 bytes, big-endian).
    public var systemCode: [UInt8]?
    /// ISO 14443-B: the ATQB's Application Data (4 bytes, ISO/IEC 14443-3 §7.9.3); nil otherwise.
    public var applicationData: [UInt8]?
    /// ISO 14443-B: the ATQB's Protocol Info (3 bytes, ISO/IEC 14443-3 §7.9.4); nil otherwise.
    public var protocolInfo: [UInt8]?
    /// Which probes were sent during refinement and how each ended, in order
    /// (e.g. `["GET_VERSION: ok"]`, `["GET_VERSION: refused", "READ 2B: 16 bytes"]`).
    public var probes: [String]
    /// The refinement steps the reader could not take (``RefinementGap``); empty when none was missed.
    public var notRefined: [RefinementGap] = []
    /// The Type 4 CC identification read, when it left the NDEF Tag Application and its CC file selected
    /// (``ISODEPRefinement``): the NDEF read right after it starts at the NDEF file (T4T v2.0 §5.4.2)
    /// instead of selecting and reading the CC again (issue 25). A later exchange may have selected
    /// something else: a refused NDEF file SELECT falls back to the whole procedure
    /// (``Type4NDEFReader``), and a walk that selects other applications clears it first. State of the
    /// session, not a fact about the card: two infos that differ only in it are equal.
    var type4Selection: Type4CapabilityContainer? {
        get { selection.capabilityContainer }
        set { selection.capabilityContainer = newValue }
    }
    private var selection = SessionSelection()
    /// The blocks of a FeliCa Lite-S that identification read with its block 90h probe (the attribute
    /// block 00h and the first NDEF blocks, one Read Without Encryption: ``FeliCaRefinement``), for the
    /// NDEF read right after it (issue 25). Only ``NDEFReader/read(info:transport:justIdentified:)``
    /// with `justIdentified` uses them: any other read (after a write, or of an older identification)
    /// reads the tag again. State of the session like ``type4Selection``: never part of equality.
    var feliCaIdentificationBlocks: [Block] {
        get { selection.feliCaBlocks }
        set { selection.feliCaBlocks = newValue }
    }

    /// Creates card information.
    public init(
        type: CardType, uid: [UInt8], atqa: [UInt8]? = nil, sak: UInt8? = nil, ats: [UInt8]? = nil,
        product: Product? = nil, version: [UInt8]? = nil, pmm: [UInt8]? = nil, systemCode: [UInt8]? = nil,
        probes: [String] = []
    ) {
        self.type = type
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
        self.ats = ats
        self.product = product
        self.version = version
        self.pmm = pmm
        self.systemCode = systemCode
        self.probes = probes
    }

    /// True for a 4-byte UID starting 08h (random ID, ISO/IEC 14443-3 §6.5.4).
    public var hasRandomUID: Bool { Target.isRandomUID(uid) }
}

/// What identification left selected on the tag (``CardInfo/type4Selection``): equal and hashed as
/// nothing, so it never makes two identifications of one card differ.
struct SessionSelection: Sendable, Hashable {
    var capabilityContainer: Type4CapabilityContainer?
    var feliCaBlocks: [Block] = []

    static func == (lhs: SessionSelection, rhs: SessionSelection) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
