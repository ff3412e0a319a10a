import Foundation
import NFCCore
import PN532Sim
import Testing

@testable import NFCBridge

/// Commands through the whole agent: the MQTT message stream, the reader loop lending the reader,
/// NFCCore's operations on a virtual NTAG215, and the lock audit event.
@Suite struct AgentCommandTests {
    func request(_ h: AgentHarness, _ command: String, _ json: String, responseTopic: String? = nil, correlation: [UInt8]? = nil) {
        h.publisher.deliver(
            InboundMessage(
                topic: "\(h.topics.root)/request/\(command)", payload: Array(json.utf8), responseTopic: responseTopic,
                correlationData: correlation))
    }

    @Test func writeWaitsForTheNextTagAfterItsScan() async throws {
        let h = try AgentHarness()
        await h.waitFor(.reader, where: { $0["state"] == "ok" })
        // `health` closes what the connect publishes, after its subscriptions (`reader` ok comes
        // from the reader loop, and may come before them).
        await h.waitFor(.health)
        #expect(h.publisher.subscriptions.contains("nfc/test/request/+"))
        request(h, "write", #"{"id":"w","records":[{"uri":"https://example.com/agent"}]}"#)
        let (waitingIndex, waiting) = await h.publisher.waitForJSON(on: "nfc/test/response/write")
        #expect(waiting["status"] == "waiting")
        let tag = makeTag()
        h.device.place(tag)
        let (scannedIndex, _) = await h.waitFor(.scanned)
        let (doneIndex, done) = await h.publisher.waitForJSON(on: "nfc/test/response/write", after: waitingIndex)
        #expect(done["status"] == "ok", "\(done)")
        #expect(scannedIndex < doneIndex)
        let message = try NDEFMessage(records: NDEFJSON.decodeRecords(Data(#"{"uri":"https://example.com/agent"}"#.utf8))).bytes
        #expect(Array(tag.memory[16..<(18 + message.count)]) == [0x03, UInt8(message.count)] + message)
        await h.stop()
    }

    @Test func lockIsAuditedAsAnEvent() async throws {
        let h = try AgentHarness { $0.commands.lockEnabled = true }
        await h.waitFor(.reader, where: { $0["state"] == "ok" })
        h.device.place(makeTag())
        await h.waitFor(.scanned)
        request(
            h, "lock", #"{"id":"L","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F6"}"#, responseTopic: "me/replies",
            correlation: [7])
        // The tag may still be between its scan and the loop's next turn: `waiting` can come first.
        let (_, response) = await h.publisher.waitForJSON(on: "me/replies", where: { $0["status"] != "waiting" })
        #expect(response["status"] == "ok", "\(response)")
        #expect(h.publisher.published(to: "me/replies").allSatisfy { $0.correlationData == [7] })
        let (_, event) = await h.waitFor(.lock)
        #expect(event["uid"] == "04A1B2C3D4E5F6")
        #expect(event["status"] == "ok")
        #expect(event["type"] == "lock")
        await h.stop()
    }
}
