import FoundationEssentials
import Glibc
import MQTTClient
import Synchronization

/// The ``MessagePublisher`` over a real broker: adapts `MQTTClient` (libmosquitto, its own
/// reconnect loop) to the agent.
///
/// - `publish` fails at once with ``PublisherError/notConnected`` while disconnected, so the event
///   goes to the agent's durable spool instead of libmosquitto's in-memory queue; it stops waiting
///   for the PUBACK when the connection drops (``PublisherError/notConnected``: the agent's reader
///   loop waits for its events to be published or spooled, so it must not wait for a broker that is
///   gone), and gives up after ``acknowledgementTimeout`` (a connection that is up but silent). In
///   both cases the event is spooled and may arrive twice: libmosquitto still sends its copy after
///   the reconnect (at least once, de-duplicated by `event_id`).
/// - JSON payloads carry the MQTT 5 content type `application/json` and the UTF-8 indicator.
/// - `events()` merges the client's connection events and messages.
package final class MQTTClientPublisher: MessagePublisher {
    /// The largest request the agent takes from the broker, in bytes (1 MiB: a whole FeliCa or
    /// ISO 15693 image as hex fits). Sent as MQTT 5 Maximum Packet Size; under 3.1.1 larger
    /// payloads are dropped unread.
    package static let maximumIncomingPacket = 1 << 20

    /// The client.
    package let client: MQTTClient
    /// How long a QoS ≥ 1 publish waits for the broker's acknowledgement.
    package let acknowledgementTimeout: Duration
    private let isV5: Bool
    private let forwarders = Mutex<[Task<Void, Never>]>([])
    /// Connection losses so far: a drop wakes the publishes waiting for an acknowledgement
    /// (libmosquitto keeps their messages for the next connection, however long that takes).
    private let linkLoss = Watched(0)
    /// ``disconnect()`` lets the broker publish the will (``leaveWillOnDisconnect()``).
    private let leavesWill = Mutex(false)

    /// Wraps `client` (not started yet; call ``start()``).
    package init(client: MQTTClient, acknowledgementTimeout: Duration = .seconds(10)) {
        self.client = client
        self.acknowledgementTimeout = acknowledgementTimeout
        self.isV5 = client.configuration.protocolVersion.isV5
    }

    /// Starts connecting in the background (the client retries forever; follow ``events()``).
    package func start() throws {
        try client.start()
    }

    /// Sends DISCONNECT (no will: the agent published `offline` itself) and stops the client; after
    /// ``leaveWillOnDisconnect()`` it ends the connection so that the broker publishes the will.
    package func disconnect() async {
        await client.disconnect(publishingWill: leavesWill.withLock { $0 })
        for task in forwarders.withLock({ $0 }) { task.cancel() }
    }

    package var isConnected: Bool { client.isConnected }

    /// ``deliver(_:)`` bounded: it fails after ``acknowledgementTimeout`` or when the link drops.
    package func publish(_ message: OutboundMessage) async throws {
        // Taken before the connection check: a drop from here on ends the wait below.
        let link = linkLoss.value
        guard client.isConnected else { throw PublisherError.notConnected }
        let timeout = acknowledgementTimeout
        let linkLoss = self.linkLoss
        enum Outcome { case acknowledged, timedOut, linkLost }
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                try await self.deliver(message)
                return .acknowledged
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return .timedOut
            }
            group.addTask {
                _ = await linkLoss.wait { $0 != link }
                return .linkLost
            }
            defer { group.cancelAll() }
            switch try await group.next() {
            case .acknowledged: return
            case .linkLost: throw PublisherError.notConnected
            case .timedOut, nil:
                throw PublisherError.timedOut(timeout)
            }
        }
    }

    /// Publishes and waits for the acknowledgement across reconnects (libmosquitto keeps the
    /// message and sends it again after the next CONNACK): no timeout, no second copy. Cancelling
    /// the task stops the wait (libmosquitto may still send it).
    package func deliver(_ message: OutboundMessage) async throws {
        guard client.isConnected else { throw PublisherError.notConnected }
        do {
            try await client.publish(
                to: message.topic, payload: message.payload, qos: MQTTQoS(rawValue: message.qos.rawValue) ?? .atLeastOnce,
                retain: message.retain, properties: properties(for: message))
        } catch let error as MQTTClientError {
            if case .notConnected = error { throw PublisherError.notConnected }
            throw PublisherError.refused(error)
        }
    }

    /// Drops the TCP connection without DISCONNECT (the broker publishes the will); the client
    /// reconnects on its own and sends again what was not acknowledged.
    package func recycleConnection() {
        client.dropConnection()
    }

    package func leaveWillOnDisconnect() {
        leavesWill.withLock { $0 = true }
    }

    /// JSON content type and UTF-8 indicator, and the Correlation Data of a response (MQTT 5 only).
    private func properties(for message: OutboundMessage) -> MQTTPublishProperties {
        var properties = MQTTPublishProperties()
        guard isV5 else { return properties }
        if message.payload.first == UInt8(ascii: "{") {
            properties.contentType = "application/json"
            properties.payloadIsUTF8 = true
        }
        if let correlationData = message.correlationData { properties.correlationData = correlationData }
        return properties
    }

    /// Subscribes with Retain As Published (MQTT 5): a message published retained keeps its retain
    /// flag also when it reaches the agent live, so a retained request is recognised and ignored
    /// (docs/mqtt.md, "Retained requests"). MQTT 3.1.1 has no such option.
    package func subscribe(to filter: String, qos: MessageQoS) async throws {
        try await client.subscribe(
            to: filter, qos: MQTTQoS(rawValue: qos.rawValue) ?? .atLeastOnce,
            options: MQTTSubscriptionOptions(retainAsPublished: true))
    }

    package func events() -> AsyncStream<PublisherEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PublisherEvent.self)
        let client = self.client
        let linkLoss = self.linkLoss
        let connection = Task {
            for await event in client.events {
                switch event {
                case .connected: continuation.yield(.connected)
                case .disconnected:
                    linkLoss.update { $0 &+= 1 }
                    continuation.yield(.disconnected)
                case let .duplicateClientID(takeovers, retryIn):
                    continuation.yield(.duplicateClientID(takeovers: takeovers, retryIn: retryIn))
                case let .fellBackToV311(broker): continuation.yield(.fellBackToV311(broker: broker))
                case .connectionFailed, .reconnecting: break
                }
            }
            continuation.finish()
        }
        let messages = Task {
            for await message in client.messages {
                continuation.yield(
                    .message(
                        InboundMessage(
                            topic: message.topic, payload: message.payload, retained: message.retain,
                            responseTopic: message.properties.responseTopic,
                            correlationData: message.properties.correlationData)))
            }
        }
        forwarders.withLock { $0 += [connection, messages] }
        return stream
    }
}

extension AgentConfiguration {
    /// The MQTT client configuration: URL, protocol, credentials, TLS files, and the will
    /// (`<base>/<id>/status` = `offline`, retained, QoS 1). The client id is `nfcbridge-<id>`.
    package var mqttClientConfiguration: MQTTConfiguration {
        let will = topics.will
        var tls = MQTTTLS.disabled
        if mqtt.caFile != nil || mqtt.certFile != nil || mqtt.keyFile != nil || mqtt.tlsInsecure {
            // mqtt.tls_insecure: neither the certificate chain nor the host name is checked.
            tls = .enabled(
                MQTTTLSConfiguration(
                    caFile: mqtt.caFile, certificateFile: mqtt.certFile, keyFile: mqtt.keyFile,
                    verifyHostname: !mqtt.tlsInsecure, verifyCertificate: !mqtt.tlsInsecure))
        }
        // Requests are bounded where they enter: MQTT 5 tells the broker the largest packet the agent
        // takes (it then never sends a larger one); under 3.1.1 a larger payload is dropped unread.
        // Outgoing, mqtt.max_packet_size: a larger event is refused here as payload_too_large.
        let limit = MQTTClientPublisher.maximumIncomingPacket
        return MQTTConfiguration(
            url: mqtt.brokers.first, failoverURLs: mqtt.brokers.others,
            protocolVersion: mqtt.protocolVersion == .v5 ? .v5(MQTTConnectProperties(maximumPacketSize: UInt32(limit))) : .v311,
            clientID: "nfcbridge-\(id)", username: mqtt.username, password: mqtt.password?.value, tls: tls,
            will: MQTTWill(topic: will.topic, payload: will.payload, qos: .atLeastOnce, retain: true),
            maximumIncomingPayload: limit, maximumOutgoingPacket: mqtt.maxPacketSize)
    }
}
