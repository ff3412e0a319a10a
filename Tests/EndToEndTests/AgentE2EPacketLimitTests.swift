import Foundation
import MQTTClient
import Testing
import TestSupport

/// An event larger than the broker takes (issue 20, "one oversized event blocks the spool for
/// good"): against a real mosquitto with `max_packet_size 4096`, an NTAG215 scanned with
/// `dump.on_scan` makes an `event/dump` too large for it. The dump is replaced by an `event/error`
/// `payload_too_large` naming it, the connection stays up and the next event goes out. Under MQTT 5
/// the broker says its limit in CONNACK; under 3.1.1 it cannot (it disconnects a client that sends
/// more, for ever with the event retried), so `mqtt.max_packet_size` says it.
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentE2EPacketLimitTests {
    static let scenario = """
        tags:
          - {id: sticker, type: ntag215, uid: 04A1B2C3D4E5F6, ndef: [{text: packet limit}]}
        timeline: [{at: 0, place: sticker}]
        """
    static let broker = MosquittoBroker.Options(extraConfiguration: "max_packet_size 4096")

    func expectTheDumpRefusedAndTheStreamGoesOn(_ h: CommandAgentHarness) async throws {
        let scanned = await h.next { $0.topic == "nfc/e2e/event/scanned" }
        let seq = try #require(scanned.object?["seq"] as? Int, "\(scanned.payloadString ?? "")")
        let error = await h.next { $0.topic == "nfc/e2e/event/error" && $0.errorCode == "payload_too_large" }
        #expect(error.object?["refused_type"] as? String == "dump", "\(error.payloadString ?? "")")
        #expect(error.object?["refused_seq"] as? Int == seq + 1, "\(error.payloadString ?? "")")
        #expect((error.object?["size"] as? Int ?? 0) > 4096, "\(error.payloadString ?? "")")
        try h.control(["cmd": "remove", "id": "sticker"])
        let removed = await h.next { $0.topic == "nfc/e2e/event/removed" }
        #expect(removed.object?["seq"] as? Int == seq + 3, "scanned, dump (refused), its error, removed")
        #expect(h.all(on: "nfc/e2e/event/dump").isEmpty)
        let online = h.all(on: "nfc/e2e/status").filter { $0.payloadString == "online" }
        #expect(online.count == 1, "the agent never lost its connection: \(online.count) times online")
    }

    @Test func mqtt311WithMaxPacketSizeRefusesTheOversizedDumpAndGoesOn() async throws {
        try await withCommandAgent(
            scenario: Self.scenario, agentProtocol: "3.1.1", mqtt: ["max_packet_size: 4096"],
            extraConfiguration: "dump: {on_scan: true}", brokerOptions: Self.broker
        ) { h in try await expectTheDumpRefusedAndTheStreamGoesOn(h) }
    }

    @Test func mqtt5TakesTheBrokersLimitFromConnack() async throws {
        try await withCommandAgent(
            scenario: Self.scenario, extraConfiguration: "dump: {on_scan: true}", brokerOptions: Self.broker
        ) { h in try await expectTheDumpRefusedAndTheStreamGoesOn(h) }
    }
}
