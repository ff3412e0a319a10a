/// The verbs part of a ``TagFamily``: what the family does with a tag on the reader. `TagIdentifier`
/// (refine), `NDEFReader`, `TagDumper` and `TagOperations` (write, format, lock) ask for this part only
/// (``TagFamilies/verbs(for:)``).
///
/// Every verb has a default that answers "not supported" through ``TagVerb/unsupported(for:hasNDEFMapping:)``,
/// so a family implements only what it has and the refusal is worded in one place.
public protocol TagFamilyVerbs: Sendable {
    /// Refines a coarse identification (``CardClassifier``) with the family's probes; returns `info`
    /// unchanged when there is nothing to probe. Probes that the tag refuses re-select it; a tag that
    /// left the field or a reader that went away is thrown.
    func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo

    /// The NFC Forum mapping the NDEF write, format and lock of `type` follow; nil when the family has
    /// no NDEF operations for it.
    func ndefMapping(for type: CardType) -> NDEFMapping?

    /// Reads only the NDEF message (``NDEFReader``).
    func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult

    /// Dumps the tag (``TagDumper``), reading what it needs from `options`: the family-neutral
    /// ``DumpOptions/progress`` and ``DumpOptions/target``, and its own settings from
    /// ``DumpOptions/families`` (Classic's keys).
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
}

/// A verb of ``TagFamilyVerbs``, with the one wording of its refusal.
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

extension TagFamilyVerbs {
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
}
