import FoundationEssentials
import Glibc

/// A connection attempt that failed, as the reconnect loop reports it to the handler given to
/// `MQTTClient.init(configuration:onConnectionFailure:)`: once when the client starts failing and
/// again only when the reason changes (a broker that stays down gives one report, not one per retry).
public struct MQTTConnectionFailure: Sendable, Hashable, CustomStringConvertible {
    /// The broker, `host:port`.
    public var broker: String
    /// The node the next attempt goes to, `host:port`: another node of the cluster when
    /// `MQTTConfiguration.failoverURLs` lists more, else ``broker``.
    public var nextBroker: String
    /// Why the attempt failed: `broker_unreachable` (refused, DNS, timeout), `tls_error` (with
    /// OpenSSL's reason), `auth_failed` (not authorised), `connection_refused` (another CONNACK refusal).
    public var error: MQTTClientError
    /// Retries since the last successful connection, including this one.
    public var attempt: Int
    /// When the next attempt comes.
    public var retryIn: Duration
    /// The longest back-off (`MQTTReconnectPolicy.maximumDelay`).
    public var maximumDelay: Duration

    /// The reason in a few words: `connection refused`, `host name lookup failed`, `TLS`, `not authorised`, `timed out`.
    public var reason: String { Self.classify(error).words }

    /// The reason as a stable snake_case key, for counters (`health.mqtt.connect_failures`):
    /// `refused` (TCP connection refused), `dns` (host name lookup failed), `timeout`, `unreachable`
    /// (another socket error), `tls` (handshake or certificate verification), `not_authorized`
    /// (CONNACK: bad user name or password, not authorised), `connack_refused` (another CONNACK
    /// refusal), or the error's `code` for anything else.
    public var reasonKey: String { Self.reasonKey(for: error) }

    /// ``reasonKey`` of a connection error.
    public static func reasonKey(for error: MQTTClientError) -> String { classify(error).key }

    /// The counter key and the words of an error: one table for both.
    private static func classify(_ error: MQTTClientError) -> (key: String, words: String) {
        switch error {
        case .authFailed: return ("not_authorized", "not authorised")
        case .tlsError: return ("tls", "TLS")
        case .connectionRefused: return ("connack_refused", "refused by the broker")
        case .brokerUnreachable(let text):
            let lower = text.lowercased()
            if lower.contains("refused") { return ("refused", "connection refused") }
            if lower.contains("lookup") || lower.contains("name or service") { return ("dns", "host name lookup failed") }
            if lower.contains("timed out") || lower.contains("timeout") { return ("timeout", "timed out") }
            return ("unreachable", "unreachable")
        default: return (error.code, error.code)
        }
    }

    /// `cannot connect to the MQTT broker 127.0.0.1:1 (connection refused): broker_unreachable: …; retrying in 0.5 s (back-off up to 30 s)`.
    public var description: String {
        let next = nextBroker == broker ? "retrying" : "trying the next node \(nextBroker)"
        return "cannot connect to the MQTT broker \(broker) (\(reason)): \(error); \(next) in \(Self.seconds(retryIn)) s "
            + "(back-off up to \(Self.seconds(maximumDelay)) s; logged again when the reason changes)"
    }

    /// Creates a report.
    public init(broker: String, nextBroker: String? = nil, error: MQTTClientError, attempt: Int, retryIn: Duration,
                maximumDelay: Duration) {
        self.broker = broker
        self.nextBroker = nextBroker ?? broker
        self.error = error
        self.attempt = attempt
        self.retryIn = retryIn
        self.maximumDelay = maximumDelay
    }

    /// `duration` in seconds, whole or with one decimal (`0.5`, `5`).
    static func seconds(_ duration: Duration) -> String {
        let parts = duration.components
        let value = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
        guard value != value.rounded() else { return String(Int(value)) }
        // printf's "%.1f" (vsnprintf: String(format:) is Foundation's, not FoundationEssentials').
        var text = [CChar](repeating: 0, count: 32)
        _ = withVaList([value]) { vsnprintf(&text, text.count, "%.1f", $0) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
