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

    /// Two tags in the field: a request naming one acts on that one, also when it came last; one that
    /// names none is refused (`several_tags`) rather than acting on a tag its sender may not mean.
    @Test(.timeLimit(.minutes(1))) func withTwoTagsACommandActsOnTheTagItNamesAndRefusesToGuess() async throws {
        // Both on the reader before its first poll, which finds them together (a tag that comes
        // while another stays is seen only once that one leaves).
        let device = VirtualReaderDevice()
        let first = makeTag(uid: [0x04, 0xA1, 0xA1, 0xA1, 0xA1, 0xA1, 0xA1])
        let second = makeTag(uid: [0x04, 0xB2, 0xB2, 0xB2, 0xB2, 0xB2, 0xB2])
        device.place(first)
        device.place(second)
        let h = try AgentHarness(device: device) { $0.dump.onScan = true }
        // The later arrival is the one the `tag` state shows; its dump comes after the loop handed
        // it to the commands.
        await h.waitFor(.dump, where: { $0["uid"] == "04B2B2B2B2B2B2" })
        await h.waitFor(.tag, where: { $0["uid"] == "04B2B2B2B2B2B2" && $0["count"] == 2 })
        let blank = Array(first.memory[16..<64])

        request(h, "write", #"{"id":"named","uid":"04B2B2B2B2B2B2","records":[{"uri":"https://b.example"}],"wait_for_tag_s":0}"#)
        let (namedAt, named) = await h.publisher.waitForJSON(on: "nfc/test/response/write")
        #expect(named["status"] == "ok", "\(named)")
        #expect(named["data"]?["uid"] == "04B2B2B2B2B2B2", "\(named)")
        let message = try NDEFMessage(records: NDEFJSON.decodeRecords(Data(#"{"uri":"https://b.example"}"#.utf8))).bytes
        #expect(Array(second.memory[16..<(18 + message.count)]) == [0x03, UInt8(message.count)] + message)
        #expect(Array(first.memory[16..<64]) == blank)

        let written = Array(second.memory[16..<64])
        request(h, "write", #"{"id":"unnamed","records":[{"uri":"https://guess.example"}],"wait_for_tag_s":0}"#)
        let (_, unnamed) = await h.publisher.waitForJSON(on: "nfc/test/response/write", after: namedAt)
        #expect(unnamed["status"] == "error", "\(unnamed)")
        #expect(unnamed["error"]?["code"] == "several_tags", "\(unnamed)")
        #expect(unnamed["error"]?["message"]?.stringValue?.contains("04A1A1A1A1A1A1, 04B2B2B2B2B2B2") == true, "\(unnamed)")
        #expect(Array(first.memory[16..<64]) == blank)
        #expect(Array(second.memory[16..<64]) == written)
        await h.stop()
    }
}
