import FoundationEssentials
import Glibc

/// The retained `<base>/<id>/health` payload, published every `health_interval_s`.
package struct HealthReport: Sendable, Equatable, Encodable {
    package var date: Date
    package var uptimeSeconds: Int64
    package var residentBytes: Int?
    package var readerState: ReaderStatus.State
    package var readerReopens: Int
    package var pollErrors: Int
    package var scansTotal: Int
    package var mqttConnected: Bool
    package var mqttReconnects: Int
    package var spoolDepth: Int
    package var spoolBytes: Int
    package var spoolDropped: Int
    package var spoolOldestAgeSeconds: Int64?
    /// Failed connection attempts since start by reason (`MQTTConnectionFailure.reasonKey`:
    /// `refused`, `dns`, `timeout`, `unreachable`, `tls`, `not_authorized`, `connack_refused`).
    package var mqttConnectFailures: [String: Int] = [:]
    /// Unreadable lines found in the spool at start-up (`spool.corrupt_lines`).
    package var spoolCorruptLines = 0
    /// True while the state directory refuses the spool's writes (`spool.write_failed`); outages
    /// since start (`spool.write_failures`).
    package var spoolWriteFailed = false
    package var spoolWriteFailures = 0
    /// Command responses that never reached the broker (`mqtt.responses_dropped`) and events the
    /// broker refused for their size (`mqtt.refused_for_size`).
    package var responsesDropped = 0
    package var refusedForSize = 0
    /// The broker node of the current (or last) connection (`mqtt.node`, one of `mqtt.url`; null
    /// before the first), connections made on another node than the one before
    /// (`mqtt.failovers`), and takeovers of the session by another client with the agent's id
    /// (`mqtt.duplicate_client_id`, 0 unless one was detected).
    package var mqttNode: String?
    package var mqttFailovers = 0
    package var duplicateClientIDTakeovers = 0
    /// Events that went out `buffered: true` this run (`spool.replayed`): taps made while the
    /// broker was away or stalled, which Home Assistant does not act on.
    package var spoolReplayed = 0
    /// Whether the kernel says the wall clock is synchronized (`clock.synchronized`; nil: unknown).
    package var clockSynchronized: Bool?
    /// How the broker acknowledges (`mqtt.stalled`, `mqtt.unacked_s`, `mqtt.stalls`, `mqtt.recycles`).
    package var broker = EventPipeline.BrokerStatus()

    enum CodingKeys: String, CodingKey {
        case ts, uptime = "uptime_s", rss = "rss_bytes", reader, scans, mqtt, spool, clock
    }
    enum ClockKeys: String, CodingKey { case synchronized }
    enum ReaderKeys: String, CodingKey { case state, reopens, pollErrors = "poll_errors" }
    enum ScanKeys: String, CodingKey { case total }
    enum MQTTKeys: String, CodingKey {
        case connected, reconnects, connectFailures = "connect_failures", stalled, unacknowledged = "unacked_s", stalls, recycles
        case responsesDropped = "responses_dropped", refusedForSize = "refused_for_size"
        case node, failovers, duplicateClientID = "duplicate_client_id"
    }
    enum SpoolKeys: String, CodingKey { case depth, bytes, dropped, oldestAge = "oldest_age_s", corruptLines = "corrupt_lines"
        case writeFailed = "write_failed", writeFailures = "write_failures", replayed
    }

    /// The payload (docs/mqtt.md, "health"); `rss_bytes`, `spool.oldest_age_s` and `mqtt.unacked_s`
    /// are `null` when unknown or when nothing waits.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Timestamp.string(date), forKey: .ts)
        try container.encode(uptimeSeconds, forKey: .uptime)
        try container.encode(residentBytes, forKey: .rss)
        var reader = container.nestedContainer(keyedBy: ReaderKeys.self, forKey: .reader)
        try reader.encode(readerState, forKey: .state)
        try reader.encode(readerReopens, forKey: .reopens)
        try reader.encode(pollErrors, forKey: .pollErrors)
        var scans = container.nestedContainer(keyedBy: ScanKeys.self, forKey: .scans)
        try scans.encode(scansTotal, forKey: .total)
        var mqtt = container.nestedContainer(keyedBy: MQTTKeys.self, forKey: .mqtt)
        try mqtt.encode(mqttConnected, forKey: .connected)
        try mqtt.encode(mqttReconnects, forKey: .reconnects)
        try mqtt.encode(mqttConnectFailures, forKey: .connectFailures)
        try mqtt.encode(broker.stalled, forKey: .stalled)
        try mqtt.encode(broker.unacknowledgedMilliseconds.map { $0 / 1000 }, forKey: .unacknowledged)
        try mqtt.encode(broker.stalls, forKey: .stalls)
        try mqtt.encode(broker.recycles, forKey: .recycles)
        try mqtt.encode(responsesDropped, forKey: .responsesDropped)
        try mqtt.encode(refusedForSize, forKey: .refusedForSize)
        try mqtt.encode(mqttNode, forKey: .node)
        try mqtt.encode(mqttFailovers, forKey: .failovers)
        try mqtt.encode(duplicateClientIDTakeovers, forKey: .duplicateClientID)
        var spool = container.nestedContainer(keyedBy: SpoolKeys.self, forKey: .spool)
        try spool.encode(spoolDepth, forKey: .depth)
        try spool.encode(spoolBytes, forKey: .bytes)
        try spool.encode(spoolDropped, forKey: .dropped)
        try spool.encode(spoolOldestAgeSeconds, forKey: .oldestAge)
        try spool.encode(spoolCorruptLines, forKey: .corruptLines)
        try spool.encode(spoolWriteFailed, forKey: .writeFailed)
        try spool.encode(spoolWriteFailures, forKey: .writeFailures)
        try spool.encode(spoolReplayed, forKey: .replayed)
        var clock = container.nestedContainer(keyedBy: ClockKeys.self, forKey: .clock)
        try clock.encode(clockSynchronized, forKey: .synchronized)
    }
}
