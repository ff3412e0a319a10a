/// Dumps a tag with its family's reader (the row of ``TagFamilies``).
public enum TagDumper {
    /// Dumps the tag `info` describes (as ``TagIdentifier/identify(_:)`` left it), with `options` for the
    /// families that read them (``DumpOptions/type2Progress``, ``DumpOptions/classicKeys``). A family
    /// without a dump — or a transport that cannot do what the family needs (Crypto1, ISO-DEP) — throws
    /// ``NFCError/unsupportedOperation(_:)``.
    public static func dump(info: CardInfo, transport: some TagTransport, options: DumpOptions = DumpOptions())
        async throws -> TagDump
    {
        guard let family = TagFamilies.family(for: info.type) else { throw TagVerb.dump.unsupported(for: info.type) }
        return try await family.dump(info: info, transport: transport, options: options)
    }

    /// ``dump(info:transport:options:)`` with the Type 2 progress sink and the Classic keys as options
    /// (kept for callers written before ``DumpOptions``).
    public static func dump(info: CardInfo, transport: some TagTransport, type2Progress: Type2Dump.Progress?,
                            classicKeys: ClassicKeyDictionary = .standard) async throws -> TagDump
    {
        var options = DumpOptions()
        options.type2Progress = type2Progress
        options.classicKeys = classicKeys
        return try await dump(info: info, transport: transport, options: options)
    }

    /// ``dump(info:transport:options:)`` with the Classic keys as an option.
    public static func dump(info: CardInfo, transport: some TagTransport, classicKeys: ClassicKeyDictionary)
        async throws -> TagDump
    {
        var options = DumpOptions()
        options.classicKeys = classicKeys
        return try await dump(info: info, transport: transport, options: options)
    }
}
