/// Dumps a tag with its family's reader.
public enum TagDumper {
    /// Dumps the tag `info` describes (as ``TagIdentifier/identify(_:)`` left it).
    ///
    /// Type 2 (Ultralight / NTAG) → ``Type2Dump``, which fills `type2Progress` page by page when given,
    /// so a caller keeps the pages read before a ``NFCError/tagRemoved``. MIFARE Classic (and Plus in
    /// SL1) → ``ClassicDump`` with `classicKeys`; Type 4 → ``Type4Dump``; FeliCa → ``FeliCaDump``.
    /// Other families — or a transport that cannot do what the family needs (Crypto1, ISO-DEP) — throw
    /// ``NFCError/unsupportedOperation(_:)``.
    public static func dump(info: CardInfo, transport: some TagTransport, type2Progress: Type2Dump.Progress? = nil,
                            classicKeys: ClassicKeyDictionary = .standard)
        async throws -> TagDump
    {
        switch info.type.family {
        case .mifareUltralight, .ntag:
            return try await Type2Dump.dump(info: info, transport: transport, progress: type2Progress)
        case .mifareClassic, .mifarePlus:
            // Plus SL2/SL3 have no Classic layout (AES only).
            guard ClassicLayout.forType(info.type) != nil else {
                throw NFCError.unsupportedOperation("Dumping \(info.type) is not supported")
            }
            guard let classic = transport as? any ClassicAuthenticating else {
                throw NFCError.unsupportedOperation("This reader cannot authenticate MIFARE Classic sectors")
            }
            return try await ClassicDump.dump(info: info, transport: classic, keys: classicKeys)
        case .type4:
            guard let apdu = transport as? any APDUTransport else {
                throw NFCError.unsupportedOperation("This reader cannot exchange ISO 7816 APDUs")
            }
            return try await Type4Dump.dump(info: info, transport: apdu)
        case .felica:
            return try await FeliCaDump.dump(info: info, transport: transport)
        default:
            // DESFire: Families/DESFire.
            throw NFCError.unsupportedOperation("Dumping \(info.type) is not supported")
        }
    }
}
