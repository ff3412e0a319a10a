import NFCCore

/// What the agent learnt from one tag in the field: the scan object published in `event/scanned`
/// and the facts the agent itself needs (UID, card type, NDEF URIs for Home Assistant).
public struct TagScan: Sendable, Equatable {
    /// UID (IDm for FeliCa), as selected.
    public var uid: [UInt8]
    /// Card type description (`NTAG215`, `MIFARE Classic 1K`, `Unknown (ATQA: …)`).
    public var cardType: String
    /// The scan object: `uid`, `cardType`, `cardFamily`, `product`, `atqa`, `sak`, `ats`, `version`,
    /// `ndef {hex, records}` — NFCCore's scan report as JSON. The agent adds the envelope.
    public var report: JSONValue
    /// Problems met on the way that did not stop the scan (e.g. the tag left while its NDEF was read);
    /// each becomes an `event/error`.
    public var problems: [NFCError]
    /// What identification found, when it ran (the dumper starts from it).
    public var cardInfo: CardInfo?
    /// A dump a scanner read while scanning, if any: `event/dump` then reuses it instead of reading the
    /// tag twice. ``NFCCoreScanner`` reads only the NDEF message and leaves this nil.
    public var tagDump: TagDump?
    /// Set by the agent: this arrival was found by the first poll after start-up and the tag was
    /// already in the field when the previous run stopped (``TagPresence/carriedOver``) — the
    /// `scanned` event's `initial` (docs/mqtt.md).
    public var initial = false

    /// Creates a scan.
    public init(
        uid: [UInt8], cardType: String, report: JSONValue, problems: [NFCError] = [], cardInfo: CardInfo? = nil,
        tagDump: TagDump? = nil
    ) {
        self.uid = uid
        self.cardType = cardType
        self.report = report
        self.problems = problems
        self.cardInfo = cardInfo
        self.tagDump = tagDump
    }

    /// The least the agent knows about a tag: what anticollision told the reader. Used when
    /// identification itself failed, so a tap is never lost.
    public init(target: Target) {
        let info = CardInfo(
            type: .unknown(atqa: target.atqa, sak: target.sak ?? 0), uid: target.uid, atqa: target.atqa,
            sak: target.sak, ats: target.ats.isEmpty ? nil : target.ats)
        // NFCCore's scan report, as for an identified tag (encoding its strings cannot fail).
        let report = (try? JSONValueEncoder().encode(ScanReport(cardInfo: info))) ?? .null
        self.init(uid: target.uid, cardType: info.type.description, report: report)
    }

    /// True for a 4-byte UID starting 08h: a random ID (ISO/IEC 14443-3 §6.5.4), e.g. a phone.
    /// Automations should not enrol those.
    public var hasRandomUID: Bool { uid.count == 4 && uid.first == 0x08 }

    /// The Home Assistant tag id: the id of an NDEF `https://www.home-assistant.io/tag/<id>` URI
    /// when the tag has one (tags written by the HA companion app), else the UID in hex.
    public var homeAssistantTagID: String {
        HomeAssistantTagURI.tagID(in: report["ndef"] ?? .null) ?? uid.hexString
    }
}

/// Home Assistant's tag URIs (written by the companion apps): `https://www.home-assistant.io/tag/<id>`.
public enum HomeAssistantTagURI {
    /// The URI prefix.
    public static let prefix = "https://www.home-assistant.io/tag/"

    /// The first tag id found in any string of `ndef` (the shape of NDEF records does not matter).
    public static func tagID(in ndef: JSONValue) -> String? {
        for text in ndef.allStrings where text.hasPrefix(prefix) {
            let id = text.dropFirst(prefix.count).prefix { $0 != "?" && $0 != "#" && $0 != "/" }
            if !id.isEmpty { return String(id) }
        }
        return nil
    }
}
