import Foundation
import MQTTClient
import NFCCore
import PN532Sim
import TestSupport
import Testing

@testable import NFCBridge

/// The agent on a real broker cluster (issue 24): RabbitMQ 3.10's MQTT plugin, two nodes on
/// loopback (``RabbitMQCluster``). The agent is left at MQTT 5 and falls back to 3.1.1 on each node
/// (RabbitMQ 3.10 drops an MQTT 5 CONNECT) and lists both nodes in `mqtt.url`; it starts on node A, a back end listens on node B.
/// Node A is killed in the middle of 40 taps: every tap reaches the back end through node B, in
/// order; requests the back end sends on node B are answered before and after; node B holds the
/// agent's retained state (RabbitMQ keeps retained messages per node).
///
/// Slow (a RabbitMQ node boots in 10–80 s on a loaded 2-core machine, each `rabbitmqctl` call takes
/// seconds): one test, a generous time limit.
@Suite(.serialized, .timeLimit(.minutes(15))) struct RabbitMQClusterTests {
    /// Builds the cluster on a thread of its own: starting it blocks for a minute or more.
    static func startCluster() async throws -> RabbitMQCluster {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try RabbitMQCluster() }) }.start()
        }
    }

    /// A 3.1.1 client on `url` (RabbitMQ 3.10 speaks no MQTT 5).
    static func client(_ url: String, id: String) throws -> MQTTClient {
        try MQTTClient(configuration: MQTTConfiguration(url: url, protocolVersion: .v311, clientID: id))
    }

    @Test func aKilledNodeIsReplacedByTheOtherDuringFortyTaps() async throws {
        let cluster = try await Self.startCluster()
        defer { cluster.stop() }
        let (nodeA, nodeB) = (cluster.nodes[0], cluster.nodes[1])

        // An MQTT 5 CONNECT is dropped without a CONNACK; without the fallback the error says what to set.
        var fiveOnly = MQTTConfiguration(url: nodeB.url, clientID: "speaks-five")
        fiveOnly.fallsBackToV311 = false
        let refusal = await #expect(throws: MQTTClientError.self) { try await MQTTClient(configuration: fiveOnly).connect() }
        #expect(refusal?.message.contains("set the protocol to 3.1.1") == true, "\(String(describing: refusal))")
        // With it (the default), a second dropped MQTT 5 CONNECT brings a 3.1.1 try of the node at once.
        let fiveClient = try MQTTClient(configuration: MQTTConfiguration(url: nodeB.url, clientID: "speaks-five"))
        try await fiveClient.connect()
        #expect(!fiveClient.speaksV5)
        await fiveClient.disconnect()

        let backend = try Self.client(nodeB.url, id: "backend")
        let seen = RecordingStream(backend.messages)
        try await backend.connect()
        try await backend.subscribe(to: "nfc/test/event/#", qos: .atLeastOnce)
        try await backend.subscribe(to: "nfc/test/response/#", qos: .atLeastOnce)
        try await backend.subscribe(to: "nfc/test/status", qos: .atLeastOnce)

        var brokers = AgentConfiguration.BrokerURLs(nodeA.url)
        brokers.others = [nodeB.url]
        var config = AgentConfiguration(id: "test")
        config.mqtt.brokers = brokers
        var settings = config.mqttClientConfiguration
        settings.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1))
        settings.keepAlive = .seconds(10)
        let publisher = MQTTClientPublisher(client: try MQTTClient(configuration: settings), acknowledgementTimeout: .seconds(10))
        let h = try AgentHarness(publisher: publisher) {
            $0.mqtt.brokers = brokers
        }
        try publisher.start()
        // `online` comes after the agent subscribed to its requests.
        try await seen.next { $0.topic == "nfc/test/status" && $0.payloadString == "online" }

        /// A request sent on node B, answered through the cluster.
        func cancelAnswered(_ id: String) async throws {
            try await backend.publish(to: "nfc/test/request/cancel", text: #"{"id":"\#(id)"}"#, qos: .atLeastOnce)
            let (_, response) = try await seen.next {
                $0.topic == "nfc/test/response/cancel" && $0.payloadString?.contains(#""id":"\#(id)""#) == true
            }
            #expect(response.payloadString?.contains("invalid_request") == true, "\(response.payloadString ?? "")")
        }
        try await cancelAnswered("before-the-kill")
        #expect(publisher.client.connectedURL == nodeA.url && !publisher.client.speaksV5)

        for number in 0..<40 {
            if number == 20 { cluster.kill(nodeA) }
            await h.tap(number)
        }
        try await seen.next { $0.topic == "nfc/test/event/removed" && $0.payloadString?.contains(#""seq":80"#) == true }
        #expect(publisher.client.connectedURL == nodeB.url && !publisher.client.speaksV5)

        // Every tap once and in order: the events' first arrivals are seq 1…80 in order. QoS 1 may
        // deliver the one event in flight when node A died twice (its PUBACK died with the node).
        var firstSeen: [Int] = []
        var ids: Set<String> = []
        var repeats = 0
        for message in seen.received where message.topic.hasPrefix("nfc/test/event/") {
            let json = try JSONValue(parsing: Data(message.payload))
            guard let id = json["event_id"]?.stringValue, let seq = json["seq"]?.intValue else { continue }
            if ids.insert(id).inserted { firstSeen.append(Int(seq)) } else { repeats += 1 }
        }
        #expect(firstSeen == Array(1...80))
        #expect(repeats <= 1)
        let scanned = seen.received.filter { $0.topic == "nfc/test/event/scanned" }.compactMap { message in
            (try? JSONValue(parsing: Data(message.payload)))?["uid"]?.stringValue
        }
        #expect(Set(scanned).count == 40)

        try await cancelAnswered("after-the-kill")
        let health = h.agent.health
        #expect(health.mqttNode == nodeB.url)
        #expect(health.mqttFailovers == 1)

        // Node B holds the agent's retained state, published there after the failover. (RabbitMQ 3.10
        // delivers a retained message only to a subscription to its exact topic.)
        let late = try Self.client(nodeB.url, id: "late")
        let retained = RecordingStream(late.messages)
        try await late.connect()
        for topic in ["nfc/test/status", "nfc/test/info", "nfc/test/reader", "nfc/test/tag"] {
            try await late.subscribe(to: topic, qos: .atLeastOnce)
            try await retained.next { $0.topic == topic && $0.retain }
        }
        #expect(retained.received.first { $0.topic == "nfc/test/status" }?.payloadString == "online")

        await h.stop()
        await publisher.disconnect()
        await late.disconnect()
        await backend.disconnect()
    }
}
