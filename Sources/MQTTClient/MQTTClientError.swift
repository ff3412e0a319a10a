import CMosquitto
import FoundationEssentials
import Glibc

/// Every way the MQTT client can fail. `code` is a stable snake_case string (it is published on
/// MQTT by the agent — never rename one); `message` is for people.
///
/// libmosquitto's `MOSQ_ERR_*` results and CONNACK/PUBACK/SUBACK reason codes are translated in one
/// place, `init(mosquittoCode:phase:)` and `connackRefusal(reasonCode:isV5:)`, the way pcsc-rust maps
/// `SCARD_*` once.
public enum MQTTClientError: Error, Sendable, Hashable {
    /// The broker URL cannot be used (`invalid_url`).
    case invalidURL(url: String, reason: String)
    /// A configuration value is out of range or inconsistent (`invalid_configuration`).
    case invalidConfiguration(String)
    /// A topic name or filter is not valid MQTT (`invalid_topic`).
    case invalidTopic(topic: String, reason: String)
    /// The operation needs a live connection (`not_connected`): a QoS 0 publish while disconnected,
    /// or a request that was pending when the client was stopped.
    case notConnected
    /// No TCP connection to the broker: refused, unreachable, name lookup failed (`broker_unreachable`).
    case brokerUnreachable(String)
    /// The broker answered CONNACK with a refusal other than an authentication one (`connection_refused`).
    case connectionRefused(reasonCode: Int, reason: String)
    /// The broker refused the credentials: v3.1.1 CONNACK 4/5, v5 0x86/0x87/0x8C (`auth_failed`).
    case authFailed(reasonCode: Int, reason: String)
    /// TLS failed: handshake, certificate verification, hostname mismatch, unreadable CA/cert/key
    /// files (`tls_error`). The text carries OpenSSL's reason when libmosquitto logged one.
    case tlsError(String)
    /// An established connection ended (`connection_lost`).
    case connectionLost(String)
    /// The peer broke the MQTT protocol, or a packet was malformed (`protocol_error`).
    case protocolError(String)
    /// The payload (or whole packet) exceeds what MQTT or the broker allows (`payload_too_large`).
    case payloadTooLarge(size: Int)
    /// The feature is not available on this connection, e.g. v5 properties on MQTT 3.1.1, or a QoS
    /// above the broker's maximum (`not_supported`).
    case notSupported(String)
    /// A v5 broker refused a publish in its PUBACK/PUBREC, e.g. 0x87 by ACL (`publish_refused`).
    case publishRefused(reasonCode: Int, reason: String)
    /// The broker refused a subscription in its SUBACK (`subscription_refused`).
    case subscriptionRefused(topic: String, reasonCode: Int, reason: String)
    /// An argument libmosquitto rejected (`invalid_argument`).
    case invalidArgument(String)
    /// libmosquitto ran out of memory (`out_of_memory`).
    case outOfMemory
    /// A libmosquitto result this client does not know (`unknown`), with its `MOSQ_ERR_*` number.
    case unknown(mosquittoCode: Int, message: String)
    /// libmosquitto (opened when the first client is made) could not be loaded, or lacks a function
    /// (`library_unavailable`); the text names the Debian package to install.
    case libraryUnavailable(String)

    /// The stable machine-readable code.
    public var code: String {
        switch self {
        case .invalidURL: "invalid_url"
        case .libraryUnavailable: "library_unavailable"
        case .invalidConfiguration: "invalid_configuration"
        case .invalidTopic: "invalid_topic"
        case .notConnected: "not_connected"
        case .brokerUnreachable: "broker_unreachable"
        case .connectionRefused: "connection_refused"
        case .authFailed: "auth_failed"
        case .tlsError: "tls_error"
        case .connectionLost: "connection_lost"
        case .protocolError: "protocol_error"
        case .payloadTooLarge: "payload_too_large"
        case .notSupported: "not_supported"
        case .publishRefused: "publish_refused"
        case .subscriptionRefused: "subscription_refused"
        case .invalidArgument: "invalid_argument"
        case .outOfMemory: "out_of_memory"
        case .unknown: "unknown"
        }
    }

    /// A human-readable description built from the case's facts.
    public var message: String {
        switch self {
        case let .invalidURL(url, reason): "invalid broker URL '\(url)': \(reason)"
        case let .invalidConfiguration(text): "invalid MQTT configuration: \(text)"
        case let .invalidTopic(topic, reason): "invalid topic '\(topic)': \(reason)"
        case .notConnected: "not connected to the MQTT broker"
        case let .brokerUnreachable(text): "cannot reach the MQTT broker: \(text)"
        case let .connectionRefused(code, reason): "the broker refused the connection (CONNACK \(code): \(reason))"
        case let .authFailed(code, reason): "the broker refused the credentials (CONNACK \(code): \(reason))"
        case let .tlsError(text): "TLS failed: \(text)"
        case let .connectionLost(text): "connection to the MQTT broker lost: \(text)"
        case let .protocolError(text): "MQTT protocol error: \(text)"
        case let .payloadTooLarge(size): "payload of \(size) bytes is too large for MQTT or this broker"
        case let .notSupported(text): "not supported: \(text)"
        case let .publishRefused(code, reason): "the broker refused the publish (reason \(code): \(reason))"
        case let .subscriptionRefused(topic, code, reason):
            "the broker refused the subscription to '\(topic)' (reason \(code): \(reason))"
        case let .invalidArgument(text): "invalid argument: \(text)"
        case .outOfMemory: "libmosquitto ran out of memory"
        case let .unknown(code, message): "libmosquitto error \(code): \(message)"
        case let .libraryUnavailable(text): text
        }
    }
}

extension MQTTClientError: CustomStringConvertible {
    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

// MARK: - Translation of libmosquitto results (the one place)

extension MQTTClientError {
    /// What the client was doing when libmosquitto returned an error; the same `MOSQ_ERR_ERRNO`
    /// means "broker unreachable" while connecting and "connection lost" afterwards.
    enum Phase: Sendable {
        case connecting
        case connected
        case request
    }

    /// Maps a `MOSQ_ERR_*` result (never `MOSQ_ERR_SUCCESS`). `errno` is read by the caller right
    /// after the failing call; `detail` is the last error libmosquitto logged (OpenSSL's reason).
    init(mosquittoCode rc: Int32, phase: Phase, errno errorNumber: Int32 = 0, detail: String? = nil) {
        let text = detail ?? Self.libraryText(rc)
        switch mosq_err_t(rawValue: rc) {
        case MOSQ_ERR_NOMEM: self = .outOfMemory
        case MOSQ_ERR_PROTOCOL, MOSQ_ERR_MALFORMED_PACKET, MOSQ_ERR_DUPLICATE_PROPERTY, MOSQ_ERR_TOPIC_ALIAS_INVALID:
            self = .protocolError(text)
        case MOSQ_ERR_INVAL: self = .invalidArgument(text)
        case MOSQ_ERR_NO_CONN: self = .notConnected
        case MOSQ_ERR_CONN_REFUSED: self = .connectionRefused(reasonCode: -1, reason: text)
        case MOSQ_ERR_CONN_LOST, MOSQ_ERR_KEEPALIVE, MOSQ_ERR_TIMEOUT, MOSQ_ERR_ADMINISTRATIVE_ACTION:
            self = phase == .connecting ? .brokerUnreachable(text) : .connectionLost(text)
        case MOSQ_ERR_TLS, MOSQ_ERR_TLS_HANDSHAKE, MOSQ_ERR_OCSP: self = .tlsError(text)
        case MOSQ_ERR_PAYLOAD_SIZE, MOSQ_ERR_OVERSIZE_PACKET: self = .payloadTooLarge(size: -1)
        case MOSQ_ERR_NOT_SUPPORTED, MOSQ_ERR_QOS_NOT_SUPPORTED, MOSQ_ERR_RETAIN_NOT_SUPPORTED:
            self = .notSupported(text)
        case MOSQ_ERR_AUTH: self = .authFailed(reasonCode: -1, reason: text)
        case MOSQ_ERR_ACL_DENIED: self = .publishRefused(reasonCode: Int(MQTT_RC_NOT_AUTHORIZED.rawValue), reason: text)
        case MOSQ_ERR_ERRNO:
            let systemText = errorNumber != 0 ? String(cString: strerror(errorNumber)) : text
            self = phase == .connecting ? .brokerUnreachable(systemText) : .connectionLost(systemText)
        case MOSQ_ERR_EAI, MOSQ_ERR_LOOKUP: self = .brokerUnreachable("host name lookup failed")
        case MOSQ_ERR_MALFORMED_UTF8: self = .invalidArgument("malformed UTF-8")
        default: self = .unknown(mosquittoCode: Int(rc), message: text)
        }
    }

    /// CONNACK reason codes that mean "your credentials are not accepted": MQTT 3.1.1 §3.2.2.3
    /// (4 bad user name or password, 5 not authorized) and MQTT 5.0 §3.2.2.2 (0x86, 0x87, 0x8C).
    static let authenticationRefusals: (v311: Set<Int>, v5: Set<Int>) = ([4, 5], [0x86, 0x87, 0x8C])

    /// The error for a refusing CONNACK (reason code ≠ 0).
    static func connackRefusal(reasonCode: Int, isV5: Bool) -> MQTTClientError {
        let reason = isV5 ? reasonText(reasonCode) : libraryString("CONNACK \(reasonCode)") { $0.mosquitto_connack_string(Int32(reasonCode)) }
        let authCodes = isV5 ? authenticationRefusals.v5 : authenticationRefusals.v311
        return authCodes.contains(reasonCode)
            ? .authFailed(reasonCode: reasonCode, reason: reason)
            : .connectionRefused(reasonCode: reasonCode, reason: reason)
    }

    /// libmosquitto's name of an MQTT v5 reason code.
    static func reasonText(_ reasonCode: Int) -> String {
        libraryString("reason code \(reasonCode)") { $0.mosquitto_reason_string(Int32(reasonCode)) }
    }

    /// The text one of libmosquitto's string functions gives; `fallback` when the library is not
    /// loaded (no libmosquitto call can have failed then) or the function gives none.
    private static func libraryString(_ fallback: String, _ call: (LibMosquitto) -> UnsafePointer<CChar>?) -> String {
        guard let lib = MosquittoLibrary.loaded, let text = call(lib) else { return fallback }
        return String(cString: text)
    }

    /// libmosquitto's text for a `MOSQ_ERR_*` result.
    static func libraryText(_ rc: Int32) -> String {
        libraryString("MOSQ_ERR \(rc)") { $0.mosquitto_strerror(rc) }
    }
}
