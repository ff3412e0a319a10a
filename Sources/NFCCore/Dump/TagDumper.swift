/// Dumps a tag with its family's reader (the row of ``TagFamilies``).
public enum TagDumper {
    /// Dumps the tag `info` describes (as ``TagIdentifier/identify(_:)`` left it), with `options` for the
    /// families that read them (``DumpOptions/progress``, ``DumpOptions/target``, and the families' own in ``DumpOptions/families``, such as ``FamilyDumpOptions/classicKeys``). A family
    /// without a dump — or a transport that cannot do what the family needs (Crypto1, ISO-DEP) — throws
    /// ``NFCError/unsupportedOperation(_:)``.
    public static func dump(info: CardInfo, transport: some TagTransport, options: DumpOptions = DumpOptions())
        async throws -> TagDump
    {
        guard let family = TagFamilies.verbs(for: info.type) else { throw TagVerb.dump.unsupported(for: info.type) }
        return try await family.dump(info: info, transport: transport, options: options)
    }
}
