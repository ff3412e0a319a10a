/// The ISO 14443-B row of ``TagFamilies``: cards found with 106 kbps type B polling, reported with
/// their PUPI as the UID and the ATQB's application data and protocol info.
///
/// An ISO/IEC 14443-4 compliant B card (the ATQB's Protocol_Type, ISO/IEC 14443-3 §7.9.4.3) is
/// probed exactly as an ISO-DEP A card, by the same code (``ISODEPRefinement``): an eMRTD SELECT, the
/// NFC Forum Type 4 CC, DESFire GET_VERSION. What it finds moves the card to that family's row (a
/// Type 4 tag to ``Type4Family``, whose NDEF read, write and dump are shared by A and B; a passport to
/// the eMRTD row); a card that is none of them stays a generic ISO 14443-4 B card, identification only.
struct ISO14443BFamily: TagFamily {
    var name: String { "ISO 14443-B" }

    func claims(_ type: CardType) -> Bool { type.family == .iso14443B }

    func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo {
        guard info.type == .iso14443B_generic, transport.target.speaksISODEPOverB else { return info }
        let (refined, stop) = await ISODEPRefinement.run(info, transport: transport)
        if let stop { throw stop }
        return refined
    }
}
