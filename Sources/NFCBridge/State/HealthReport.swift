import Foundation

/// The retained `<base>/<id>/health` payload, published every `health_interval_s`.
public struct HealthReport: Sendable, Equatable {
    public var date: Date
    public var uptimeSeconds: Int64
    public var residentBytes: Int?
    public var readerState: ReaderStatus.State
    public var readerReopens: Int
    public var pollErrors: Int
    public var scansTotal: Int
    public var mqttConnected: Bool
    public var mqttReconnects: Int
    public var spoolDepth: Int
    public var spoolBytes: Int
    public var spoolDropped: Int
    public var spoolOldestAgeSeconds: Int64?

    /// The JSON payload.
    public var json: JSONValue {
        [
            "ts": .string(Timestamp.string(date)),
            "uptime_s": .int(uptimeSeconds),
            "rss_bytes": residentBytes.map { .int(Int64($0)) } ?? .null,
            "reader": [
                "state": .string(readerState.rawValue),
                "reopens": .int(Int64(readerReopens)),
                "poll_errors": .int(Int64(pollErrors)),
            ],
            "scans": ["total": .int(Int64(scansTotal))],
            "mqtt": ["connected": .bool(mqttConnected), "reconnects": .int(Int64(mqttReconnects))],
            "spool": [
                "depth": .int(Int64(spoolDepth)),
                "bytes": .int(Int64(spoolBytes)),
                "dropped": .int(Int64(spoolDropped)),
                "oldest_age_s": spoolOldestAgeSeconds.map { .int($0) } ?? .null,
            ],
        ]
    }
}
