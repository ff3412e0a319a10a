/// The NDEF write, format and lock operations, for any tag family that has them — what the command
/// layer (MQTT, CLI) calls once a tag is identified.
///
/// Each operation takes the transport of the selected tag and the ``CardInfo`` identification produced,
/// looks the family up in ``TagFamilies``, and either returns a report made after reading the tag
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
        let family = try family(of: info)
        if !family.acceptsPassword, password != nil { throw passwordRefused(info) }
        return try await family.write(ndef: bytes, to: transport, info: info, password: password)
    }

    /// Formats the tag for NDEF with an empty message (Type 2, and MIFARE Classic per NXP AN1305: Type 3
    /// and Type 4 tags are formatted by their firmware or issuer, and give
    /// ``NFCError/unsupportedOperation(_:)``).
    public static func format(_ transport: any TagTransport, info: CardInfo, password: [UInt8]? = nil)
        async throws(TagOperationError) -> WriteReport
    {
        return try await family(of: info).format(transport, info: info, password: password)
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
        let family = try family(of: info)
        guard transport.target.uid == expectedUID, info.uid == expectedUID else {
            throw TagOperationError(.tagMismatch(expected: expectedUID, actual: transport.target.uid))
        }
        if !family.acceptsPassword, password != nil { throw passwordRefused(info) }
        return try await family.lock(transport, info: info, expectedUID: expectedUID, password: password)
    }

    /// Sets a PWD_AUTH password and switches protection on from `settings.auth0` (NTAG21x, Ultralight
    /// EV1, NTAG210/212; see ``Type2PasswordProtect`` for the order and the checks). Other tags give
    /// ``NFCError/unsupportedOperation(_:)``; a tag other than `expectedUID`,
    /// ``NFCError/tagMismatch(expected:actual:)``; nothing is written in either case.
    public static func protect(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8],
                               settings: Type2PasswordProtect.Settings) async throws(TagOperationError)
        -> Type2PasswordProtect.Report
    {
        guard Type2Product.forCardInfo(info) != nil else {
            throw TagOperationError(.unsupportedOperation("Only NTAG21x, Ultralight EV1 and NTAG210/212 tags take a password, not \(info.type)"))
        }
        return try await Type2PasswordProtect.protect(transport, info: info, expectedUID: expectedUID, settings: settings)
    }

    private static func passwordRefused(_ info: CardInfo) -> TagOperationError {
        TagOperationError(.unsupportedOperation("Passwords are only supported for Type 2 tags, not \(info.type)"))
    }

    /// The family of `info`, when it has NDEF operations for the type (the registry's one refusal otherwise).
    private static func family(of info: CardInfo) throws(TagOperationError) -> any TagFamilyVerbs {
        guard let family = TagFamilies.verbs(for: info.type), family.ndefMapping(for: info.type) != nil else {
            throw TagOperationError(TagVerb.write.unsupported(for: info.type))
        }
        return family
    }
}
