import MQTTClient

/// MQTT quality of service.
package enum MessageQoS: Int, Sendable, Equatable, Codable {
    case atMostOnce = 0
    case atLeastOnce = 1
    case exactlyOnce = 2
}

/// A message the agent sends.
package struct OutboundMessage: Sendable, Equatable {
    package var topic: String
    package var payload: [UInt8]
    package var qos: MessageQoS
    package var retain: Bool
    /// MQTT 5 Correlation Data to send along (a command response echoes the request's); ignored
    /// with MQTT 3.1.1.
    package var correlationData: [UInt8]?

    /// Creates a message.
    package init(
        topic: String, payload: [UInt8], qos: MessageQoS = .atLeastOnce, retain: Bool = false,
        correlationData: [UInt8]? = nil
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.correlationData = correlationData
    }

    /// The payload as UTF-8 text.
    package var text: String { String(decoding: payload, as: UTF8.self) }

}

/// A message the agent received on a subscription.
package struct InboundMessage: Sendable, Equatable {
    package var topic: String
    package var payload: [UInt8]
    package var retained: Bool
    /// MQTT 5 Response Topic of a request (nil with MQTT 3.1.1 or when the sender set none).
    package var responseTopic: String?
    /// MQTT 5 Correlation Data of a request, echoed on its response.
    package var correlationData: [UInt8]?

    /// Creates a message.
    package init(
        topic: String, payload: [UInt8], retained: Bool = false, responseTopic: String? = nil,
        correlationData: [UInt8]? = nil
    ) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }

    /// The payload as UTF-8 text.
    package var text: String { String(decoding: payload, as: UTF8.self) }
}

/// What happens on the broker connection.
package enum PublisherEvent: Sendable, Equatable {
    /// The connection is up (first connect or a reconnect): publish retained state, resubscribe is
    /// the publisher's job, replay the spool.
    case connected
    /// The connection went down; the publisher reconnects on its own.
    case disconnected
    /// Another client with the agent's client id keeps taking the session (`takeovers` so far):
    /// reported once; the publisher now backs off (5 s doubling to 5 min) instead of fighting.
    case duplicateClientID(takeovers: Int, retryIn: Duration)
    /// The broker node `broker` refused MQTT 5 and took MQTT 3.1.1, which the publisher speaks to it
    /// from now on (docs/fleet.md, "Brokers that speak only MQTT 3.1.1"). Once per node.
    case fellBackToV311(broker: String)
    /// A message arrived on a subscription.
    case message(InboundMessage)
}

/// Why a publish did not reach the broker.
package enum PublisherError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not connected (`not_connected`): the event goes to the spool.
    case notConnected
    /// The broker did not acknowledge the publish in time (`timeout`).
    case timedOut(Duration)
    /// The broker or the MQTT client refused it: the client's error, with its stable code.
    case refused(MQTTClientError)

    /// The stable code: `not_connected`, `timeout`, or the MQTT client's code (`publish_refused`, …).
    package var code: String {
        switch self {
        case .notConnected: "not_connected"
        case .timedOut: "timeout"
        case let .refused(error): error.code
        }
    }

    /// What happened, for people.
    package var message: String {
        switch self {
        case .notConnected: "not connected to the broker"
        case let .timedOut(limit): "no acknowledgement from the broker within \(limit)"
        case let .refused(error): error.message
        }
    }

    package var description: String { "\(code): \(message)" }
}

/// The agent's one seam to MQTT: publish, subscribe, and hear about the connection. The MQTT
/// wrapper (`MQTTClient`) is adapted to it for real brokers; ``InMemoryPublisher`` implements it
/// for tests, so the whole agent core is tested without a broker.
///
/// The will (`<base>/<id>/status` = `offline`, retained, QoS 1 — see ``TopicMap/will``) is set by
/// whoever creates the connection.
package protocol MessagePublisher: Sendable {
    /// True while connected to the broker.
    var isConnected: Bool { get }

    /// Publishes `message`. For QoS ≥ 1 returns once the broker acknowledged it. Throws
    /// ``PublisherError/notConnected`` when there is no connection (the caller spools), and must
    /// not block for long: a publish that cannot complete fails.
    func publish(_ message: OutboundMessage) async throws

    /// Publishes `message` and, for QoS ≥ 1, waits for the broker's acknowledgement however long
    /// it takes — across reconnects, where the MQTT library sends it again itself. Throws
    /// ``PublisherError/notConnected`` at once when there is no connection. ``EventPipeline``'s
    /// sender uses it, so the agent never sends a second copy of a message the broker may already
    /// have. Default: ``publish(_:)``.
    func deliver(_ message: OutboundMessage) async throws

    /// Drops the broker connection so that it is made again: for a broker that stopped
    /// acknowledging while TCP stays up. Messages not yet acknowledged are sent again on the next
    /// connection. Default: does nothing.
    func recycleConnection()

    /// Makes the coming disconnect end the connection so that the broker publishes the will (the
    /// retained `status` `offline`) instead of discarding it: for a stop whose own `offline` the
    /// broker did not acknowledge in time. Default: does nothing.
    func leaveWillOnDisconnect()

    /// Subscribes to `filter`; the publisher keeps the subscription across reconnects.
    func subscribe(to filter: String, qos: MessageQoS) async throws

    /// The connection changes and incoming messages. Called once, by the agent.
    func events() -> AsyncStream<PublisherEvent>
}

extension MessagePublisher {
    package func deliver(_ message: OutboundMessage) async throws {
        try await publish(message)
    }

    package func recycleConnection() {}

    package func leaveWillOnDisconnect() {}
}
