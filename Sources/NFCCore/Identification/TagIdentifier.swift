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
        switch target.modulation {
        case .iso14443a:
            info.atqa = target.atqa.isEmpty ? nil : target.atqa
            info.sak = target.sak
            info.ats = target.ats.isEmpty ? nil : target.ats
        case .felica212, .felica424:
            info.pmm = target.pmm.isEmpty ? nil : target.pmm
            info.systemCode = target.systemCode.isEmpty ? nil : target.systemCode
        case .iso14443b:
            info.applicationData = target.applicationData.isEmpty ? nil : target.applicationData
            info.protocolInfo = target.protocolInfo.isEmpty ? nil : target.protocolInfo
        case .iso15693:
            break
        }

        // The family's probes (Type 2 GET_VERSION / READ 2B, Classic-looking 7-byte UIDs, ISO-DEP, FeliCa Lite).
        guard let family = TagFamilies.family(for: info.type) else { return info }
        return try await family.refine(info, transport: transport)
    }
}
