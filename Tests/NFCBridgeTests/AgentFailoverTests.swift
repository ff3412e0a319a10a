import Foundation
import MQTTClient
import NFCCore
import PN532Sim
import TestSupport
import Testing

@testable import NFCBridge

/// The agent with `mqtt.url` listing two nodes: two mosquittos on random ports stand for a
/// cluster's nodes (a real RabbitMQ cluster: EndToEndTests' RabbitMQClusterTests). Node A is killed
/// in the middle of the taps; the agent goes on on node B, with the same spool, `seq` and event ids,
/// and publishes its retained state there again.
extension AgentHarness {
    /// Tap `number` (0, 1, …, the harness's only events): a tag of its own UID placed, then removed
    /// past the grace; returns once both events (`scanned`, `removed`) are in the journal.
    func tap(_ number: Int) async {
        let tag = makeTag(uid: [0x04, 0x24, 0x00, 0x00, UInt8(number >> 16 & 0xFF), UInt8(number >> 8 & 0xFF), UInt8(number & 0xFF)])
        device.place(tag)
        await agent.pipeline.waitUntil { $0.appended >= 2 * number + 1 }
        await removeAndPassGrace(tag)
        await agent.pipeline.waitUntil { $0.appended >= 2 * number + 2 }
    }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct AgentFailoverTests {
    /// A watcher on `broker`, subscribed to everything below `nfc/`.
    func watch(_ broker: MosquittoBroker) async throws -> (MQTTClient, RecordingStream<MQTTMessage>) {
        let client = try MQTTClient(configuration: MQTTConfiguration(url: broker.url))
        let messages = RecordingStream(client.messages)
        try await client.connect()
        try await client.subscribe(to: "nfc/#", qos: .atLeastOnce)
        return (client, messages)
    }

    @Test func aDeadNodeIsReplacedByTheNextAndTheStreamGoesOnInOrder() async throws {
        let nodeA = try MosquittoBroker()
        let nodeB = try MosquittoBroker()
        defer {
            nodeA.stop()
            nodeB.stop()
        }
        let (watcherB, seenB) = try await watch(nodeB)
        let (watcherA, seenA) = try await watch(nodeA)
        var brokers = AgentConfiguration.BrokerURLs(nodeA.url)
        brokers.others = [nodeB.url]
        var config = AgentConfiguration(id: "test")
        config.mqtt.brokers = brokers
        var client = config.mqttClientConfiguration
        #expect(client.url == nodeA.url && client.failoverURLs == [nodeB.url])
        client.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300))
        client.keepAlive = .seconds(10)
        let publisher = MQTTClientPublisher(client: try MQTTClient(configuration: client), acknowledgementTimeout: .seconds(5))
        let h = try AgentHarness(publisher: publisher) { $0.mqtt.brokers = brokers }
        try publisher.start()
        try await seenA.next { $0.topic == "nfc/test/status" && $0.payloadString == "online" }

        for number in 0..<3 { await h.tap(number) }
        try await seenA.next { $0.topic == "nfc/test/event/removed" && $0.payloadString?.contains("\"seq\":6") == true }
        nodeA.stop()
        for number in 3..<6 { await h.tap(number) }
        try await seenB.next { $0.topic == "nfc/test/event/removed" && $0.payloadString?.contains("\"seq\":12") == true }

        // One stream across the nodes: every event once (QoS 1 may repeat one: dropped by event_id),
        // seq 1…12 in order, node B's part in order.
        func events(_ seen: RecordingStream<MQTTMessage>) throws -> [(seq: Int, id: String)] {
            try seen.received.filter { $0.topic.hasPrefix("nfc/test/event/") }.map {
                let json = try JSONValue(parsing: Data($0.payload))
                return (Int(json["seq"]?.intValue ?? -1), json["event_id"]?.stringValue ?? "")
            }
        }
        let onA = try events(seenA)
        let onB = try events(seenB)
        #expect(onB.map(\.seq) == onB.map(\.seq).sorted())
        var byID: [String: Int] = [:]
        for event in onA + onB { byID[event.id] = event.seq }
        #expect(byID.values.sorted() == Array(1...12))
        #expect(onB.contains { $0.seq == 7 })

        // Node B has the retained state: status, reader, tag, info (with both nodes) and health
        // (naming node B and one failover).
        let late = try MQTTClient(configuration: MQTTConfiguration(url: nodeB.url))
        let retained = RecordingStream(late.messages)
        try await late.connect()
        try await late.subscribe(to: "nfc/test/+", qos: .atLeastOnce)
        try await retained.next { $0.topic == "nfc/test/status" && $0.payloadString == "online" && $0.retain }
        try await retained.next { $0.topic == "nfc/test/reader" && $0.retain }
        try await retained.next { $0.topic == "nfc/test/tag" && $0.retain }
        let (_, info) = try await retained.next { $0.topic == "nfc/test/info" && $0.retain }
        let urls = try JSONValue(parsing: Data(info.payload))["mqtt"]?["urls"]
        #expect(urls == .array([.string(nodeA.url), .string(nodeB.url)]))
        await h.agent.publishHealth()
        let (_, health) = try await seenB.next { $0.topic == "nfc/test/health" && $0.payloadString?.contains("\"failovers\":1") == true }
        let mqtt = try JSONValue(parsing: Data(health.payload))["mqtt"]
        #expect(mqtt?["node"] == .string(nodeB.url))
        #expect(mqtt?["failovers"] == 1)
        #expect(mqtt?["duplicate_client_id"] == 0)
        #expect(h.logs.recorded.contains { $0.contains("reconnected to the broker \(nodeB.url)") })

        await h.stop()
        await publisher.disconnect()
        await late.disconnect()
        await watcherA.disconnect()
        await watcherB.disconnect()
    }

    /// Two agents started with one id on one broker: each CONNECT takes the session from the
    /// other. The one that loses it three times in a row within seconds reports
    /// `duplicate_client_id` once (event/error, log, health) and backs off instead of fighting.
    @Test func twoAgentsWithOneIDReportItAndBackOff() async throws {
        let broker = try MosquittoBroker()
        defer { broker.stop() }
        let (watcher, seen) = try await watch(broker)
        var agents: [(MQTTClientPublisher, AgentHarness)] = []
        for _ in 0..<2 {
            var client = AgentConfiguration(id: "twin").mqttClientConfiguration
            client.url = broker.url
            client.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300))
            let publisher = MQTTClientPublisher(client: try MQTTClient(configuration: client), acknowledgementTimeout: .seconds(5))
            let h = try AgentHarness(publisher: publisher) { $0.id = "twin" }
            try publisher.start()
            agents.append((publisher, h))
        }
        let (_, error) = try await seen.next { $0.topic == "nfc/twin/event/error" && $0.payloadString?.contains("duplicate_client_id") == true }
        let json = try JSONValue(parsing: Data(error.payload))
        #expect(json["error"]?["code"] == "duplicate_client_id")
        #expect(json["op"] == "mqtt")
        #expect(json["takeovers"] == 3)
        #expect(json["client_id"] == "nfcbridge-twin")
        let reporters = agents.filter { $0.0.client.duplicateClientIDTakeovers >= 3 }
        #expect(!reporters.isEmpty)
        for (_, h) in reporters {
            #expect(h.agent.health.duplicateClientIDTakeovers >= 3)
            #expect(h.logs.recorded.contains { $0.contains("duplicate_client_id: another client connects as nfcbridge-twin") })
        }
        for (publisher, h) in agents {
            await h.stop()
            await publisher.disconnect()
        }
        await watcher.disconnect()
    }
}
