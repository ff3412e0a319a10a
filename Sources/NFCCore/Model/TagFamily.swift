/// One tag family — the unit Flipper's `nfc_devices[]` lists: what it answers to (its card types) and
/// the verbs it supports. ``TagFamilies/all`` is the one table of families; `TagIdentifier`,
/// `TagDumper`, `NDEFReader`, `TagOperations`, the dump summary and every file export and import look
/// the family up there and never switch on the card type themselves.
///
/// Every verb has a default that answers "not supported" through ``TagVerb/unsupported(for:)``, so a
/// family implements only what it has and the refusal is worded in one place. A new family is one
/// folder under `Families/` with a type conforming to this protocol, and one row in ``TagFamilies/all``
/// (docs/architecture.md, "Adding a family").
public protocol TagFamily: Sendable {
    /// The family's name in docs and messages ("NFC Forum Type 2").
    var name: String { get }

    /// True when cards of `type` belong to this family (the first row of the table that claims a type
    /// owns it).
    func claims(_ type: CardType) -> Bool

    /// The ISO/IEC 14443-A ATQA/SAK rules that give this family's card types before any command
    /// (``CardClassifier/rules`` assembles them, first match wins). Default: none.
    var classifierRules: [CardClassifier.Rule] { get }

    /// Refines a coarse identification (``CardClassifier``) with the family's probes; returns `info`
    /// unchanged when there is nothing to probe. Probes that the tag refuses re-select it; a tag that
    /// left the field or a reader that went away is thrown.
    func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo

    /// The NFC Forum mapping the NDEF write, format and lock of `type` follow; nil when the family has
    /// no NDEF operations for it.
    func ndefMapping(for type: CardType) -> NDEFMapping?

    /// Reads only the NDEF message (``NDEFReader``).
    func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult

    /// Dumps the tag (``TagDumper``), reading what it needs from `options`.
    func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump

    /// Writes NDEF message bytes (``TagOperations/write(ndef:to:info:password:)``).
    func write(ndef bytes: [UInt8], to transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport

    /// Formats the tag for NDEF (``TagOperations/format(_:info:password:)``).
    func format(_ transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport

    /// Makes the NDEF data read-only (``TagOperations/lock(_:info:expectedUID:password:)``), after the
    /// registry checked the UID.
    func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8], password: [UInt8]?)
        async throws(TagOperationError) -> LockReport

    /// True when the family's operations take a PWD_AUTH-style password.
    var acceptsPassword: Bool { get }

    /// The family's file-format table: one row per format it saves, loads or detects, save and load
    /// side by side (``FileFormatRow``). Default: none (json, hex and bin are every dump's).
    var fileFormats: [FileFormatRow] { get }

    /// Throws ``NFCError/malformedDump(_:)`` when an imported `dump` names memory this family's
    /// products do not have (page or block numbers past the memory map); applies to the family's own
    /// dumps only. Default: no check beyond ``DumpImporter/checkBounds(_:)``'s generic limits.
    func checkFileBounds(_ dump: TagDump) throws

    /// The sentence ``DumpSummary/userSummary`` opens with for a dump holding `storage`.
    func userSummary(for dump: TagDump, storage: String) -> String?

    /// The capabilities a dump that stores none is taken to have; nil for the generic rule.
    func inferredCapabilities(of dump: TagDump) -> [CardCapability]?

    /// The product row of `type` that a file names `name` (a JSON file keeps only the product's name);
    /// nil when the family has no such row.
    func product(named name: String, type: CardType) -> Product?

    /// The typed data of `dump` as the JSON export writes it: additive keys at the top level of the
    /// document (``FamilyDumpPayload``). Default: the dump's payload, when it has one.
    func jsonFamilyData(of dump: TagDump) -> (any Encodable)?

    /// Rebuilds ``TagDump/family`` of a dump read from a JSON file: from the keys ``jsonFamilyData(of:)``
    /// writes, or — for a file written without them — from what the memory (`dump`'s pages, blocks,
    /// files) shows; never from the facts, which are for people. Nil when `json` holds none of this
    /// family's keys and `dump` is not one of its cards.
    /// - Throws: ``NFCError/malformedDump(_:)`` when a key's value is malformed.
    func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData?
}

/// A verb of ``TagFamily``, with the one wording of its refusal.
public enum TagVerb: String, Sendable, CaseIterable {
    case refine, readNDEF = "read_ndef", dump, write, format, lock

    /// The ``NFCError/unsupportedOperation(_:)`` a family without this verb answers for `type`. These are
    /// the messages the CLI and MQTT have always printed (a test compares them byte for byte).
    /// `hasNDEFMapping` tells a format refusal for a family whose NDEF is formatted elsewhere from one
    /// for a family without NDEF operations.
    public func unsupported(for type: CardType, hasNDEFMapping: Bool = false) -> NFCError {
        switch self {
        case .refine: .unsupportedOperation("\(type) is not refined")
        case .readNDEF: .unsupportedOperation("NDEF is not read from \(type.description) tags")
        case .dump: .unsupportedOperation("Dumping \(type) is not supported")
        case .write, .lock: .unsupportedOperation("NDEF operations are not supported for \(type)")
        case .format:
            !hasNDEFMapping
                ? .unsupportedOperation("NDEF operations are not supported for \(type)")
                : .unsupportedOperation(
                    "\(type) tags are NDEF-formatted by their firmware or issuer; format is only for Type 2 tags")
        }
    }
}

/// Options a dump reads, one typed key per setting (the family-neutral ``progress``, Classic keys, …), so
/// ``TagDumper/dump(info:transport:options:)`` does not grow a parameter per family. A family declares
/// its own keys next to its dump (`DumpOptions.classicKeys`).
public struct DumpOptions: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// No options: every family's defaults.
    public init() {}

    /// The value of `key`, or its default.
    public subscript<Key: DumpOptionKey>(key: Key.Type) -> Key.Value {
        get { values[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}

/// One setting of ``DumpOptions``.
public protocol DumpOptionKey {
    associatedtype Value: Sendable
    static var defaultValue: Value { get }
}

extension TagFamily {
    public var classifierRules: [CardClassifier.Rule] { [] }
    public func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo { info }
    public func ndefMapping(for type: CardType) -> NDEFMapping? { nil }
    public func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult {
        .notRead(TagVerb.readNDEF.unsupported(for: info.type))
    }
    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        throw TagVerb.dump.unsupported(for: info.type)
    }
    public func write(ndef bytes: [UInt8], to transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        throw TagOperationError(TagVerb.write.unsupported(for: info.type))
    }
    public func format(_ transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        throw TagOperationError(
            TagVerb.format.unsupported(for: info.type, hasNDEFMapping: ndefMapping(for: info.type) != nil))
    }
    public func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8], password: [UInt8]?)
        async throws(TagOperationError) -> LockReport
    {
        throw TagOperationError(TagVerb.lock.unsupported(for: info.type))
    }
    public var acceptsPassword: Bool { false }
    public var fileFormats: [FileFormatRow] { [] }
    public func checkFileBounds(_ dump: TagDump) throws {}
    public func userSummary(for dump: TagDump, storage: String) -> String? { nil }
    public func inferredCapabilities(of dump: TagDump) -> [CardCapability]? { nil }
    public func jsonFamilyData(of dump: TagDump) -> (any Encodable)? { dump.family.payload }
    public func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData? { nil }
    public func product(named name: String, type: CardType) -> Product? { nil }
}
