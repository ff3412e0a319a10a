/// Infers that another client uses this client's id: the pure rule behind
/// `MQTTConnectionEvent.duplicateClientID`, kept apart from the network loop so it can be tested
/// with plain numbers.
///
/// Why inferred: a broker closes the older connection when a second CONNECT comes with the same
/// client id (MQTT 3.1.1 §3.1.4, MQTT 5.0 §3.1.4 "Session Takeover"). MQTT 5 lets it say so with a
/// DISCONNECT reason code 0x8E, but Mosquitto 2.0 and RabbitMQ's MQTT plugin (3.1.1 only) simply
/// close the socket. Two clients with one id then take the session from each other within a
/// second of every reconnect, for ever. So: a connection the broker closes less than ``window``
/// after its CONNACK is a suspected takeover; ``threshold`` of them in a row are a duplicate client
/// id. From then on each takeover waits ``initialDelay``, doubling up to ``maximumDelay``, instead
/// of taking the session straight back; a connection that lasts ``settledAfter`` ends the episode.
struct TakeoverWatch: Sendable, Equatable {
    /// A connection closed by the broker sooner than this after its CONNACK is a suspected takeover.
    static let window: Duration = .seconds(10)
    /// Suspected takeovers in a row that make a duplicate client id.
    static let threshold = 3
    /// The first wait after a takeover once a duplicate id is known.
    static let initialDelay: Duration = .seconds(5)
    /// The longest such wait.
    static let maximumDelay: Duration = .seconds(300)
    /// A connection that lasts this long ends a duplicate-id episode: two clients that back off to
    /// ``maximumDelay`` in turn never hold the session longer (the other one is back by then).
    static let settledAfter: Duration = .seconds(600)

    /// What a connection's end means.
    enum Verdict: Equatable {
        /// An ordinary end: the usual back-off.
        case ordinary
        /// The takeover that makes this a duplicate client id (`takeovers` so far, ``threshold`` at first).
        case detected(takeovers: Int)
        /// Another takeover of a known duplicate id.
        case again(takeovers: Int)
    }

    /// Suspected takeovers in a row.
    private(set) var streak = 0
    /// Takeovers counted since the first duplicate id was detected, the detecting ones included;
    /// 0 while none was (`health.mqtt.duplicate_client_id`).
    private(set) var takeovers = 0
    /// True from a detection until a connection lasts ``settledAfter``.
    private(set) var isDuplicate = false

    /// A connection ended after `lasted` (from its CONNACK). `closedByBroker`: the broker closed it
    /// (not this client, not a recycle it asked for).
    mutating func connectionEnded(lasted: Duration, closedByBroker: Bool) -> Verdict {
        if lasted >= (isDuplicate ? Self.settledAfter : Self.window) {
            streak = 0
            isDuplicate = false
        }
        guard closedByBroker, lasted < (isDuplicate ? Self.settledAfter : Self.window) else { return .ordinary }
        streak += 1
        if isDuplicate {
            takeovers += 1
            return .again(takeovers: takeovers)
        }
        guard streak >= Self.threshold else { return .ordinary }
        isDuplicate = true
        takeovers += streak
        return .detected(takeovers: takeovers)
    }

    /// The wait before the next attempt while a duplicate id is known (nil otherwise): ``initialDelay``
    /// after the detecting takeover, doubling with each further one, at most ``maximumDelay``.
    var delay: Duration? {
        guard isDuplicate else { return nil }
        let doublings = min(max(streak - Self.threshold, 0), 16)
        return min(Self.maximumDelay, Self.initialDelay * (1 << doublings))
    }
}
