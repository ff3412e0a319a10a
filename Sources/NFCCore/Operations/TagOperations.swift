/// The NDEF write, format and lock operations, for any tag family that has them — what the command
/// layer (MQTT, CLI) calls once a tag is identified.
///
/// Each operation takes the transport of the selected tag and the ``CardInfo`` identification produced,
/// dispatches on ``NDEFMapping/forType(_:)``, and either returns a report made after reading the tag
/// back, or throws a ``TagOperationError``: the ``NFCError`` (``NFCError/code`` is the stable code to
/// publish) plus the pages the tag acknowledged before the failure.
///
/// Common failures: ``NFCError/capacityExceeded(needed:available:)`` (message bytes; nothing written),
/// ``NFCError/tagLocked`` (read-only CC, lock bits, RWFlag or CC write access; nothing written),
/// ``NFCError/authenticationRequired`` / ``NFCError/authenticationFailed`` (password missing / wrong),
/// ``NFCError/verifyFailed(page:)`` (read-back differs), ``NFCError/tagRemoved`` (pages written so far in
/// the error), ``NFCError/unsupportedOperation(_:)`` and ``NFCError/tagNotSupported``.
public enum TagOperations {
    /// Writes `message` as the tag's NDEF message and reads it back.
    ///
    /// - Parameters:
    ///   - password: NTAG21x / Ultralight EV1 / NTAG210/212 PWD_AUTH password (4 bytes), sent before
    ///     anything else; nil when the tag is not protected. Other families refuse a password.
    public static func write(_ message: NDEFMessage, to transport: any TagTransport, info: CardInfo,
                             password: [UInt8]? = nil) async throws(TagOperationError) -> WriteReport {
        let bytes: [UInt8]
        do { bytes = try message.bytes } catch { throw TagOperationError(error) }
        return try await write(ndef: bytes, to: transport, info: info, password: password)
    }

    /// Writes raw NDEF message bytes (empty: an empty message) and reads them back.
    public static func write(ndef bytes: [UInt8], to transport: any TagTransport, info: CardInfo,
                             password: [UInt8]? = nil) async throws(TagOperationError) -> WriteReport {
        let mapping = try mapping(of: info)
        if mapping != .type2, password != nil { throw passwordRefused(info) }
        switch mapping {
        case .type2:
            return try await Type2NDEFWriter.write(bytes, to: transport, info: info, password: password)
        case .type3:
            return try await Type3NDEFOperations.write(bytes, to: transport, info: info)
        case .type4:
            return try await Type4NDEFOperations.write(bytes, to: transport, info: info)
        }
    }

    /// Formats the tag for NDEF with an empty message (Type 2 only: Type 3 and Type 4 tags are formatted
    /// by their firmware or issuer, and give ``NFCError/unsupportedOperation(_:)``).
    public static func format(_ transport: any TagTransport, info: CardInfo, password: [UInt8]? = nil)
        async throws(TagOperationError) -> WriteReport
    {
        switch try mapping(of: info) {
        case .type2:
            return try await Type2Format.format(transport, info: info, password: password)
        case .type3, .type4:
            throw TagOperationError(.unsupportedOperation(
                "\(info.type) tags are NDEF-formatted by their firmware or issuer; format is only for Type 2 tags"))
        }
    }

    /// Makes the tag's NDEF data read-only. **IRREVERSIBLE** on Type 2: lock bits and the CC can never be
    /// cleared again (see ``Type2Lock`` for what is set). On Type 3 the attribute block's RWFlag becomes
    /// 00h (the NFC Forum read-only state, which NFC readers honour). Type 4 tags give
    /// ``NFCError/unsupportedOperation(_:)`` unless already read-only: their CC write access can only
    /// change through vendor commands.
    ///
    /// Refuses with ``NFCError/tagMismatch(expected:actual:)`` (nothing written) unless the tag in the
    /// field has `expectedUID` (IDm for FeliCa) — the UID of the tag the user chose to lock.
    public static func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8],
                            password: [UInt8]? = nil) async throws(TagOperationError) -> LockReport {
        let mapping = try mapping(of: info)
        guard transport.target.uid == expectedUID, info.uid == expectedUID else {
            throw TagOperationError(.tagMismatch(expected: expectedUID, actual: transport.target.uid))
        }
        if mapping != .type2, password != nil { throw passwordRefused(info) }
        switch mapping {
        case .type2:
            return try await Type2Lock.lock(transport, info: info, expectedUID: expectedUID, password: password)
        case .type3:
            return try await Type3NDEFOperations.lock(transport, info: info)
        case .type4:
            return try await Type4NDEFOperations.lock(transport, info: info)
        }
    }

    private static func passwordRefused(_ info: CardInfo) -> TagOperationError {
        TagOperationError(.unsupportedOperation("Passwords are only supported for Type 2 tags, not \(info.type)"))
    }

    private static func mapping(of info: CardInfo) throws(TagOperationError) -> NDEFMapping {
        guard let mapping = NDEFMapping.forType(info.type) else {
            throw TagOperationError(.unsupportedOperation("NDEF operations are not supported for \(info.type)"))
        }
        return mapping
    }
}
