/// Dumps a tag with its family's reader.
public enum TagDumper {
    /// Dumps the tag `info` describes (as ``TagIdentifier/identify(_:)`` left it).
    ///
    /// Type 2 (Ultralight / NTAG) → ``Type2Dump``, which fills `type2Progress` page by page when given,
    /// so a caller keeps the pages read before a ``NFCError/tagRemoved``. Other families throw
    /// ``NFCError/unsupportedOperation(_:)`` for now.
    public static func dump(info: CardInfo, transport: some TagTransport, type2Progress: Type2Dump.Progress? = nil)
        async throws -> TagDump
    {
        switch info.type.family {
        case .mifareUltralight, .ntag:
            return try await Type2Dump.dump(info: info, transport: transport, progress: type2Progress)
        default:
            // Classic, Type 4 / DESFire and FeliCa dumps: Families/Classic, Families/Type4, Families/FeliCa.
            throw NFCError.unsupportedOperation("Dumping \(info.type) is not supported")
        }
    }
}
