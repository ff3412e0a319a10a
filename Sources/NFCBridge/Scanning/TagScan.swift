import NFCCore

/// What the agent learnt from one tag in the field: NFCCore's scan report (the scan object of
/// `event/scanned`, encoded only when the event is) and the facts the agent itself needs (UID, card
/// type, the Home Assistant tag id from the NDEF records).
package struct TagScan: Sendable, Equatable {
    /// UID (IDm for FeliCa), as selected.
    package var uid: [UInt8]
    /// The scan object: `uid`, `cardType`, `cardFamily`, `product`, `atqa`, `sak`, `ats`, `version`,
    /// `ndef {hex, records}` — NFCCore's scan report, kept typed. The agent adds the envelope.
    package var report: ScanReport
    /// Card type description (`NTAG215`, `MIFARE Classic 1K`, `Unknown (ATQA: …)`): the report's.
    package var cardType: String { report.cardType }
    /// Problems met on the way that did not stop the scan (e.g. the tag left while its NDEF was read);
    /// each becomes an `event/error`.
    package var problems: [NFCError]
    /// What identification found, when it ran (the dumper starts from it).
    package var cardInfo: CardInfo?
    /// A dump a scanner read while scanning, if any: `event/dump` then reuses it instead of reading the
    /// tag twice. ``NFCCoreScanner`` reads only the NDEF message and leaves this nil.
    package var tagDump: TagDump?
    /// An NTAG 424 DNA's SUN message checked (NFCCore's verdict; the agent turns a valid one whose
    /// counter is not above the last seen for the UID into `replayed`); nil for other tags and a 424
    /// without SDM.
    package var sun: SUNCheck?
    /// Set by the agent: this arrival was found by the first poll after start-up and the tag was
    /// already in the field when the previous run stopped (``TagPresence/carriedOver``) — the
    /// `scanned` event's `initial` (docs/mqtt.md).
    package var initial = false
    /// The access checks' verdict (`event/scanned`'s `trust`, docs/access-control.md); nil when no
    /// check ran.
    package var trust: TrustReport?

    /// Creates a scan.
    package init(
        uid: [UInt8], report: ScanReport, problems: [NFCError] = [], cardInfo: CardInfo? = nil, tagDump: TagDump? = nil
    ) {
        self.uid = uid
        self.report = report
        self.problems = problems
        self.cardInfo = cardInfo
        self.tagDump = tagDump
    }

    /// The least the agent knows about a tag: what anticollision told the reader. Used when
    /// identification itself failed, so a tap is never lost.
    package init(target: Target) {
        let info = CardInfo(
            type: .unknown(atqa: target.atqa, sak: target.sak ?? 0), uid: target.uid, atqa: target.atqa,
            sak: target.sak, ats: target.ats.isEmpty ? nil : target.ats)
        // NFCCore's scan report, as for an identified tag.
        self.init(uid: target.uid, report: ScanReport(cardInfo: info))
    }

    /// True for a 4-byte UID starting 08h: a random ID (ISO/IEC 14443-3 §6.5.4), e.g. a phone.
    /// Automations should not enrol those.
    package var hasRandomUID: Bool { Target.isRandomUID(uid) }

    /// The Home Assistant tag id: the id of an NDEF `https://www.home-assistant.io/tag/<id>` URI
    /// record when the tag has one (tags written by the HA companion app), else the UID in hex.
    package var homeAssistantTagID: String {
        HomeAssistantTagURI.tagID(in: report.ndef?.records ?? []) ?? uid.hexString
    }
}

/// Home Assistant's tag URIs (written by the companion apps): `https://www.home-assistant.io/tag/<id>`.
package enum HomeAssistantTagURI {
    /// The URI prefix.
    package static let prefix = "https://www.home-assistant.io/tag/"

    /// The tag id of the first URI record, in message order, whose URI is a Home Assistant tag URI;
    /// the records nested in a Smart Poster count at its place. Text, MIME and other records are not
    /// URIs and never give an id.
    package static func tagID(in records: [NDEFRecordJSON]) -> String? {
        for record in records {
            if let uri = record.uri, let id = tagID(uri: uri) { return id }
            // Nesting is bounded by the message: NFCCore decodes a Smart Poster's records from its payload.
            if let nested = record.records, let id = tagID(in: nested) { return id }
        }
        return nil
    }

    /// The tag id of one URI: the path segment after ``prefix``, without a query or fragment; nil for
    /// another URI or an empty id.
    package static func tagID(uri: String) -> String? {
        guard uri.hasPrefix(prefix) else { return nil }
        let id = uri.dropFirst(prefix.count).prefix { $0 != "?" && $0 != "#" && $0 != "/" }
        return id.isEmpty ? nil : String(id)
    }
}
