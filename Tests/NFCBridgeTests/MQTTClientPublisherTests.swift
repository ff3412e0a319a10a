import Foundation
import MQTTClient
import TestSupport
import Testing

@testable import NFCBridge

/// The MQTTClient adapter: a publish waiting for its acknowledgement ends when the connection drops
/// (the agent's reader loop waits for it), not only after the acknowledgement timeout.
@Suite(.serialized, .timeLimit(.minutes(1))) struct MQTTClientPublisherTests {
    @Test func aPublishWaitingForItsAcknowledgementEndsWhenTheConnectionDrops() async throws {
        let broker = try MosquittoBroker()
        defer { broker.stop() }
        let proxy = try TCPProxy(targetPort: broker.port)
        defer { proxy.close() }
        var config = AgentConfiguration(id: "test")
        config.mqtt.url = "mqtt://127.0.0.1:\(proxy.port)"
        // Far beyond the suite's time limit: only the connection loss can end the wait.
        let publisher = MQTTClientPublisher(
            client: try MQTTClient(configuration: config.mqttClientConfiguration), acknowledgementTimeout: .seconds(3600))
        let events = RecordingStream(publisher.events())
        try publisher.start()
        try await events.next { $0 == .connected }

        broker.pause()
        let sent = proxy.bytesToTarget
        let publishing = Task { () -> PublisherError? in
            do {
                try await publisher.publish(OutboundMessage(topic: "nfc/test/event/scanned", payload: Array(#"{"seq":1}"#.utf8)))
                return nil
            } catch {
                return error as? PublisherError
            }
        }
        // The PUBLISH is out; the frozen broker will not acknowledge it.
        #expect(await proxy.bytesToTarget(moreThan: sent))
        proxy.cutConnections()
        #expect(await publishing.value == .notConnected)
        try await events.next { $0 == .disconnected }
        broker.resume()
        await publisher.disconnect()
    }
}
