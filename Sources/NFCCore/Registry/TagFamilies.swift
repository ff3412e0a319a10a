/// The one table of tag families (Flipper's `nfc_devices[]`): every verb and every file format is
/// looked up here, so adding a family is one folder under `Families/` and one row below.
///
/// Order matters twice: the first row that ``TagFamily/claims(_:)`` a card type owns it, and file
/// imports and exports ask the rows in order (MIFARE Classic, DESFire and ISO 15693 — whose Flipper files
/// name their device type — before Type 2, whose page-image formats take any dump or file left over).
public enum TagFamilies {
    /// Every family, in look-up order.
    public static let all: [any TagFamily] = [
        ClassicFamily(),
        DESFireFamily(),
        ISO15693Family(),
        Type2Family(),
        // Before Type 4, which claims every Type 4 type.
        NTAG424Family(),
        Type4Family(),
        FeliCaFamily(),
        EMRTDFamily(),
        IdentificationOnlyFamily(name: "NFC Forum Type 1", families: [.jewelTopaz], capabilities: [.identificationOnly]),
        ISO14443BFamily(),
    ]

    /// The family that owns `type`; nil for none.
    public static func family(for type: CardType) -> (any TagFamily)? {
        all.first { $0.claims(type) }
    }

    /// The verbs of the family that owns `type` (refine, read NDEF, dump, write, format, lock); nil for none.
    public static func verbs(for type: CardType) -> (any TagFamilyVerbs)? { family(for: type) }

    /// The file part of the family that owns `type` (its file formats, bounds, JSON keys); nil for none.
    public static func files(for type: CardType) -> (any TagFamilyFiles)? { family(for: type) }

    /// The wording of dumps of the family that owns `type`; nil for none.
    public static func presentation(for type: CardType) -> (any TagFamilyPresentation)? { family(for: type) }

    /// The file part of every family, in look-up order (file formats are asked in this order).
    public static let allFiles: [any TagFamilyFiles] = all.map { $0 }
}

/// A family NFCCore identifies but has no verbs for yet (Type 1): every
/// verb answers ``TagVerb/unsupported(for:hasNDEFMapping:)``, it has no file formats; only its
/// presentation (the dump summary's wording) is its own.
struct IdentificationOnlyFamily: TagFamily {
    let name: String
    let families: Set<CardFamily>
    var summary: (@Sendable (String) -> String)?
    var capabilities: [CardCapability]?

    init(name: String, families: Set<CardFamily>, summary: (@Sendable (String) -> String)? = nil,
         capabilities: [CardCapability]? = nil) {
        self.name = name
        self.families = families
        self.summary = summary
        self.capabilities = capabilities
    }

    func claims(_ type: CardType) -> Bool { families.contains(type.family) }
    func userSummary(for dump: TagDump, storage: String) -> String? { summary?(storage) }
    func inferredCapabilities(of dump: TagDump) -> [CardCapability]? { capabilities }
}

extension NDEFMapping {
    /// The mapping of `type` (its family's, ``TagFamilyVerbs/ndefMapping(for:)``), or nil when NDEF operations
    /// are not supported for it.
    public static func forType(_ type: CardType) -> NDEFMapping? {
        TagFamilies.verbs(for: type)?.ndefMapping(for: type)
    }
}
