/// An MQTT 3.1.1 / 5.0 client over libmosquitto 2.0, with its own reconnect loop.
///
/// ```swift
/// try await MQTTClient.withConnection(configuration) { client in
///     try await client.subscribe(to: "nfc/reader-1/request/#")
///     try await client.publish(to: "nfc/reader-1/availability", payload: Array("online".utf8),
///                              qos: .atLeastOnce, retain: true)
///     for await message in client.messages { … }
/// }
/// ```
///
/// **Shape.** A `final class` that is `Sendable` through a lock, not an actor: libmosquitto calls back
/// on its own thread, and those callbacks must hand data over without ever awaiting an actor. All
/// methods may be called from any task.
///
/// **Threads.** `start()`/`connect()` start one network thread per client (named `mqtt-network`). It
/// runs the connection cycle — blocking TCP connect and name lookup included — so nothing in this
/// client blocks Swift's cooperative pool. The thread ends on `disconnect()`, on a failed `connect()`,
/// or soon after the client is released.
///
/// **Reconnecting.** Once started, the client never gives up: a broker that is down, restarts, or
/// refuses a CONNACK (e.g. a password not yet deployed) is retried with exponential back-off and
/// jitter (`MQTTReconnectPolicy`), reported on `events`. After every CONNACK the client re-subscribes
/// to everything `subscribe` registered, and reports `.connected` once the broker acknowledged them.
/// With `failoverURLs` (a cluster's other nodes), each attempt after a failed attempt or a lost
/// connection goes to the next node. A session the broker keeps handing to another client with the
/// same id is reported once (`.duplicateClientID`) and then retried slowly (`TakeoverWatch`).
///
/// **Publishing while disconnected.** QoS 0 fails at once with `not_connected`. A QoS 1/2 publish is
/// kept by libmosquitto in an unbounded *in-memory* queue and sent after the next CONNACK; `publish`
/// returns only when the broker acknowledged it (PUBACK/PUBCOMP), however long that takes — cancel the
/// task to stop waiting (libmosquitto still sends it). The queue is lost when the process ends. An
/// agent that must not lose events checks `isConnected` and spools to disk itself, removing a spooled
/// event only when `publish` returned.
///
/// **Lifetime.** `disconnect()` is final: it sends DISCONNECT (so no will, unless asked for), ends the thread and
/// finishes `messages` and `events`; the libmosquitto handle is destroyed when the client is released.
/// Releasing a running client without `disconnect()` stops it in the background.
public final class MQTTClient: Sendable {
    /// The configuration this client was created with.
    public let configuration: MQTTConfiguration
    /// The broker address parsed from `configuration.url` (the first node).
    public let address: MQTTBrokerAddress
    private let session: MosquittoSession

    /// Creates a client (wraps `mosquitto_new` and the option setters). Nothing is sent yet.
    /// - Throws: `invalid_url`, `invalid_configuration`, `invalid_topic` (will topic), `tls_error`
    ///   (unreadable CA/certificate/key file), `not_supported` (will properties on v3.1.1).
    /// - Parameter onConnectionFailure: told why connecting fails and when the next attempt comes
    ///   (on the network thread: return quickly), when the client starts failing and again only
    ///   when the reason changes — one report for a broker that stays down, not one per retry.
    public init(
        configuration: MQTTConfiguration, onConnectionFailure: (@Sendable (MQTTConnectionFailure) -> Void)? = nil
    ) throws(MQTTClientError) {
        self.configuration = configuration
        self.session = try MosquittoSession(configuration: configuration, onConnectionFailure: onConnectionFailure)
        self.address = session.address
    }

    deinit {
        session.closeInBackground()
    }

    /// Messages from all subscriptions, in arrival order. One consumer: iterate it from one task. It
    /// buffers `configuration.messageBufferSize` messages (oldest dropped beyond that) and finishes
    /// after `disconnect()`.
    public var messages: AsyncStream<MQTTMessage> { session.messages }

    /// Connection events, in order. One consumer; buffers the latest 256; finishes after `disconnect()`.
    public var events: AsyncStream<MQTTConnectionEvent> { session.events }

    /// `true` between a `.connected` and the next `.disconnected` event.
    public var isConnected: Bool { session.isConnected }

    /// Failed connection attempts since the client was created, by reason
    /// (`MQTTConnectionFailure.reasonKey`: `refused`, `dns`, `timeout`, `unreachable`, `tls`,
    /// `not_authorized`, `connack_refused`, …). Every attempt counts, also those not reported again
    /// to `onConnectionFailure` because the reason stayed the same.
    public var connectionFailureCounts: [String: Int] { session.connectionFailureCounts }

    /// The URL of the node of the current connection (while disconnected: of the last one), from
    /// `configuration.url` and `failoverURLs`; nil before the first connection.
    public var connectedURL: String? { session.connectedURL }

    /// Whether the current connection (while disconnected: the last attempt) speaks MQTT 5: false
    /// when configured `.v311`, or on a node that fell back (`MQTTConfiguration.fallsBackToV311`).
    public var speaksV5: Bool { session.speaksV5 }

    /// Connections made on another node than the connection before them (`failoverURLs`).
    public var failovers: Int { session.failovers }

    /// Takeovers of this client's session by another client with the same id, counted from the
    /// first `.duplicateClientID` event on (the takeovers that led to it included); 0 while none.
    public var duplicateClientIDTakeovers: Int { session.takeovers }

    /// Messages dropped because `messages` was not read fast enough.
    public var droppedMessageCount: Int { session.droppedMessageCount }

    /// Messages dropped because their payload exceeded `MQTTConfiguration.maximumIncomingPayload`.
    public var oversizedMessageCount: Int { session.oversizedMessageCount }

    /// Starts connecting in the background and keeps the connection up for good; returns at once and
    /// never fails because the broker is down — follow `events` instead. No-op when already started.
    /// - Throws: `not_connected` after `disconnect()`.
    public func start() throws(MQTTClientError) {
        try session.start()
    }

    /// Connects and returns once the broker accepted (CONNACK) and remembered subscriptions are
    /// restored; from then on the client reconnects by itself like after `start()`.
    ///
    /// On a client that is not running, the first failure is thrown and the client stays stopped
    /// (call `connect()` again, or `start()`): `broker_unreachable`, `auth_failed`,
    /// `connection_refused`, `tls_error`, … On a client already started, it waits for the next
    /// successful connection instead.
    public func connect() async throws {
        try await session.connect()
    }

    /// Publishes a message (wraps `mosquitto_publish_v5`).
    ///
    /// QoS 0 returns once libmosquitto queued it for the socket, and throws `not_connected` while
    /// disconnected. QoS 1/2 returns when the broker acknowledged it (see the type's notes on
    /// publishing while disconnected) and throws `publish_refused` when a v5 broker answers a reason
    /// code ≥ 0x80 (e.g. 0x87 denied by ACL; 0x10 "no matching subscribers" is a success).
    /// - Parameters:
    ///   - properties: MQTT v5 properties; must be empty on MQTT 3.1.1 (`not_supported`).
    /// - Throws: `invalid_topic`, `payload_too_large`, `not_supported`, `not_connected`,
    ///   `publish_refused`, or `CancellationError` when the waiting task is cancelled.
    public func publish(to topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                        properties: MQTTPublishProperties = MQTTPublishProperties()) async throws {
        try await session.publish(to: topic, payload: payload, qos: qos, retain: retain, properties: properties)
    }

    /// Publishes UTF-8 text; same rules as `publish(to:payload:qos:retain:properties:)`.
    public func publish(to topic: String, text: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                        properties: MQTTPublishProperties = MQTTPublishProperties()) async throws {
        try await publish(to: topic, payload: Array(text.utf8), qos: qos, retain: retain, properties: properties)
    }

    /// Subscribes to a topic filter (wraps `mosquitto_subscribe_v5`) and remembers it: it is sent again
    /// after every reconnect. Connected, it returns when the broker acknowledged it (SUBACK); not
    /// connected, it returns at once and the subscription is sent with the next CONNACK. Cancelling
    /// the task ends the wait for the SUBACK (`CancellationError`); the subscription stays remembered.
    /// - Throws: `invalid_topic`, `subscription_refused` (SUBACK ≥ 0x80, e.g. ACL), `CancellationError`.
    public func subscribe(to filter: String, qos: MQTTQoS = .atLeastOnce,
                          options: MQTTSubscriptionOptions = MQTTSubscriptionOptions()) async throws {
        try await session.subscribe(to: filter, qos: qos, options: options)
    }

    /// Forgets a subscription and, when connected, unsubscribes (wraps `mosquitto_unsubscribe_v5`,
    /// waits for UNSUBACK).
    public func unsubscribe(from filter: String) async throws {
        try await session.unsubscribe(from: filter)
    }

    /// Drops the current connection at once, without DISCONNECT (so the broker publishes the will),
    /// and lets the reconnect loop connect again: for a broker that stopped answering while TCP stays
    /// up. QoS ≥ 1 publishes not yet acknowledged keep waiting and are sent again after the next
    /// CONNACK. No-op when no connection is up, also while a reconnect waits for its CONNACK (cutting
    /// it would look like a broker that refuses MQTT 5).
    public func dropConnection() {
        session.dropConnection()
    }

    /// Sends DISCONNECT (the broker then discards the will), stops the network thread and finishes
    /// `messages` and `events`. Pending QoS ≥ 1 publishes fail with `not_connected`. Final: the client
    /// cannot be started again. Safe to call more than once.
    ///
    /// `publishingWill`: end the connection so that the broker publishes the will instead: MQTT 5
    /// sends DISCONNECT with reason code 0x04 "Disconnect with Will Message" (MQTT 5.0 §3.14.2.1);
    /// MQTT 3.1.1 has no such DISCONNECT, so the socket is closed without one (§3.1.2.5: the will is
    /// published when the connection ends without DISCONNECT).
    public func disconnect(publishingWill: Bool = false) async {
        await session.close(publishingWill: publishingWill)
    }

    /// Creates a client, connects (`connect()`), runs `body`, then disconnects — also when `body` or
    /// the connect throws — and releases the client (which destroys the libmosquitto handle).
    public static func withConnection<T>(
        _ configuration: MQTTConfiguration, isolation: isolated (any Actor)? = #isolation,
        _ body: (MQTTClient) async throws -> T
    ) async throws -> T {
        let client = try MQTTClient(configuration: configuration)
        do {
            try await client.connect()
            let result = try await body(client)
            await client.disconnect()
            return result
        } catch {
            await client.disconnect()
            throw error
        }
    }
}
