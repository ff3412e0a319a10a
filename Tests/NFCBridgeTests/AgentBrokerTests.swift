import Foundation
import MQTTClient
import NFCCore
import PN532Sim
import TestSupport
import Testing

@testable import NFCBridge

/// The agent against a real Mosquitto, with the sample ACL from deploy/mosquitto: the MQTTClient
/// adapter, the will, discovery permissions, and the spool across a real outage.
@Suite(.serialized, .timeLimit(.minutes(2))) struct AgentBrokerTests {
    static let agentPassword = "agent-pw"
    static let operatorPassword = "operator-pw"
    static let homeAssistantPassword = "ha-pw"

    func startBroker() throws -> MosquittoBroker {
        // The sample ACL plus the agent's own block, as deploy/mosquitto/add-reader.sh appends it.
        let acl = try String(
            contentsOf: Binaries.packageRoot.appendingPathComponent("deploy/mosquitto/nfcbridge.acl"), encoding: .utf8)
            + "\nuser test\ntopic read homeassistant/status\n"
        return try MosquittoBroker(
            MosquittoBroker.Options(
                users: ["test": Self.agentPassword, "operator": Self.operatorPassword, "homeassistant": Self.homeAssistantPassword],
                acl: acl))
    }

    /// An operator connected straight to the broker, subscribed to everything it may read.
    func connectOperator(_ broker: MosquittoBroker) async throws -> (MQTTClient, RecordingStream<MQTTMessage>) {
        let client = try MQTTClient(
            configuration: MQTTConfiguration(url: broker.url, clientID: "operator", username: "operator", password: Self.operatorPassword))
        let messages = RecordingStream(client.messages)
        try await client.connect()
        try await client.subscribe(to: "nfc/#", qos: .atLeastOnce)
        return (client, messages)
    }

    func agentPublisher(url: String) throws -> MQTTClientPublisher {
        var config = AgentConfiguration(id: "test")
        config.mqtt.url = url
        config.mqtt.username = "test"
        config.mqtt.password = Secret(Self.agentPassword)
        var client = config.mqttClientConfiguration
        client.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300))
        client.keepAlive = .seconds(10)
        return MQTTClientPublisher(client: try MQTTClient(configuration: client), acknowledgementTimeout: .seconds(5))
    }

    /// The agent publishing to `broker` through a proxy the test can cut, started. The caller closes
    /// the proxy.
    func startAgentBehindProxy(_ broker: MosquittoBroker) throws -> (
        TCPProxy, MQTTClientPublisher, ObservedPublisher, AgentHarness
    ) {
        let proxy = try TCPProxy(targetPort: broker.port)
        do {
            let publisher = try agentPublisher(url: "mqtt://127.0.0.1:\(proxy.port)")
            let observed = ObservedPublisher(publisher)
            let h = try AgentHarness(publisher: observed)
            try publisher.start()
            return (proxy, publisher, observed, h)
        } catch {
            proxy.close()
            throw error
        }
    }

    @Test func eventsStateAndWillThroughTheSampleACL() async throws {
        let broker = try startBroker()
        defer { broker.stop() }
        let (operatorClient, seen) = try await connectOperator(broker)
        let (proxy, publisher, _, h) = try startAgentBehindProxy(broker)
        defer { proxy.close() }

        try await seen.next { $0.topic == "nfc/test/status" && $0.payloadString == "online" }
        try await seen.next { $0.topic == "nfc/test/reader" && $0.payloadString?.contains("\"state\":\"ok\"") == true }
        h.device.place(makeTag())
        let (_, scanned) = try await seen.next { $0.topic == "nfc/test/event/scanned" }
        let json = try JSONValue(parsing: Data(scanned.payload))
        #expect(json["uid"] == "04A1B2C3D4E5F6")
        #expect(json["buffered"] == false)
        #expect(scanned.qos == .atLeastOnce)
        #expect(scanned.properties.contentType == "application/json")

        // The network dies under the agent: the broker publishes its will.
        let cutAt = seen.received.count - 1
        proxy.cutConnections()
        try await seen.next(after: cutAt) { $0.topic == "nfc/test/status" && $0.payloadString == "offline" }
        // It reconnects by itself and says online again.
        try await seen.next(after: cutAt) { $0.topic == "nfc/test/status" && $0.payloadString == "online" }

        // Home Assistant sees the discovery documents the ACL lets the agent publish, and gets them
        // again after its birth message.
        let homeAssistant = try MQTTClient(
            configuration: MQTTConfiguration(
                url: broker.url, clientID: "homeassistant", username: "homeassistant", password: Self.homeAssistantPassword))
        let discovered = RecordingStream(homeAssistant.messages)
        try await homeAssistant.connect()
        try await homeAssistant.subscribe(to: "homeassistant/+/+/config", qos: .atLeastOnce)
        // (Retained from an earlier connect, or live from the reconnect's re-publication.)
        for topic in HomeAssistantDiscovery(topics: h.topics, version: NFCBridgeAgent.version).messages.map(\.topic) {
            try await discovered.next { $0.topic == topic }
        }
        // Once the reconnect's re-publication is complete (health comes last), only the birth
        // message can bring the discovery documents again.
        try await seen.next(after: cutAt) { $0.topic == "nfc/test/health" }
        let retainedAt = discovered.received.count - 1
        try await homeAssistant.publish(to: "homeassistant/status", text: "online", qos: .atLeastOnce)
        let (_, again) = try await discovered.next(after: retainedAt) { $0.topic == "homeassistant/tag/test/config" }
        #expect(try JSONValue(parsing: Data(again.payload))["topic"] == "nfc/test/event/scanned")

        let stopAt = seen.received.count - 1
        await h.stop()
        // Offline on stop; the tag still on the reader stays present (no `off` before unavailable).
        let (offlineAt, _) = try await seen.next(after: stopAt) { $0.topic == "nfc/test/status" && $0.payloadString == "offline" }
        // (The birth's re-publication may still be on its way: it says present too.)
        #expect(!seen.received[(stopAt + 1)...offlineAt].contains {
            $0.topic == "nfc/test/tag" && $0.payloadString?.contains(#""present":false"#) == true
        })
        await publisher.disconnect()
        await homeAssistant.disconnect()
        await operatorClient.disconnect()
    }

    @Test func aBrokerOutageIsBridgedByTheSpool() async throws {
        let broker = try startBroker()
        defer { broker.stop() }
        let (operatorClient, seen) = try await connectOperator(broker)
        let (proxy, publisher, observed, h) = try startAgentBehindProxy(broker)
        defer { proxy.close() }
        try await seen.next { $0.topic == "nfc/test/status" && $0.payloadString == "online" }

        // Lock the agent out (its reconnects are refused), then cut it off.
        try broker.setPassword("changed", for: "test")
        try broker.reload()
        proxy.cutConnections()
        try await observed.seen.next { $0 == .disconnected }

        let tag = makeTag()
        h.device.place(tag)
        await h.agent.pipeline.waitUntil { $0.spooled >= 1 }
        await h.removeAndPassGrace(tag)
        await h.agent.pipeline.waitUntil { $0.spooled >= 2 }

        // Let it back in: the spool is replayed in order, flagged as buffered.
        try broker.setPassword(Self.agentPassword, for: "test")
        try broker.reload()
        let (scannedAt, scanned) = try await seen.next { $0.topic == "nfc/test/event/scanned" }
        let (removedAt, removed) = try await seen.next { $0.topic == "nfc/test/event/removed" }
        #expect(scannedAt < removedAt)
        let first = try JSONValue(parsing: Data(scanned.payload))
        let second = try JSONValue(parsing: Data(removed.payload))
        #expect(first["buffered"] == true)
        #expect(second["buffered"] == true)
        #expect(first["seq"] == 1)
        #expect(second["seq"] == 2)
        await h.agent.pipeline.waitUntil { $0.replayed == 2 }
        #expect(h.agent.spool.isEmpty)

        await h.stop()
        await publisher.disconnect()
        await operatorClient.disconnect()
    }
}
