/// Identifies the tag behind a transport: classify from anticollision data, then refine with the
/// family's probes. The evidence (every probe and how it ended) is kept in ``CardInfo/probes``.
public enum TagIdentifier {
    /// Identifies the selected tag behind `transport`.
    ///
    /// Fills uid/atqa/sak/ats (and PMm / system code for FeliCa) from the target, classifies with
    /// ``CardClassifier``, then refines Type 2 tags (GET_VERSION, READ 2Bh / 29h fallbacks) and
    /// Classic-looking tags with a 7-byte UID (READ 30 00 + BCC check), ISO-DEP cards
    /// (``ISODEPRefinement``, on ISO 14443-A and -B alike) and FeliCa Lite / Lite-S (``FeliCaRefinement``). Refused probes re-select the
    /// tag, so it is ACTIVE again when this returns. Throws ``NFCError/tagRemoved`` when the tag
    /// leaves during probing; other transport errors pass through.
    public static func identify(_ transport: some TagTransport) async throws -> CardInfo {
        let target = transport.target
        var info = CardInfo(type: CardClassifier.classify(target), uid: target.uid)
        target.modulation.technology.keepAnticollision(of: target, in: &info)

        // The family's probes (Type 2 GET_VERSION / READ 2B, Classic-looking 7-byte UIDs, ISO-DEP, FeliCa Lite).
        guard let family = TagFamilies.verbs(for: info.type) else { return info }
        return try await family.refine(info, transport: transport)
    }
}
