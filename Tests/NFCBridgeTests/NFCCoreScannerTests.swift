import Foundation
import NFCCore
import PN532Sim
import Testing

@testable import NFCBridge

@Suite(.timeLimit(.minutes(1))) struct NFCCoreScannerTests {
    func homeAssistantTag() throws -> VirtualType2Tag {
        let tag = makeTag()
        let message = NDEFMessage(records: [NDEFRecord.uri("https://www.home-assistant.io/tag/5f0ba733-172f-430d-a7f8-e4ad940c88d7")])
        try tag.writeNDEF(message.bytes)
        return tag
    }

    @Test func scanIdentifiesAndReadsNDEFThenDumpReusesTheRead() async throws {
        let tag = try homeAssistantTag()
        let transport = VirtualTagTransport(tag: tag)
        let scanner = NFCCoreScanner()
        let scan = try await scanner.scan(transport)
        #expect(scan.cardType == "NTAG215")
        #expect(scan.report["cardFamily"] == "NTAG")
        #expect(scan.report["product"] != nil)
        #expect(scan.report["uid"] == "04A1B2C3D4E5F6")
        #expect(scan.homeAssistantTagID == "5f0ba733-172f-430d-a7f8-e4ad940c88d7")
        #expect(scan.problems.isEmpty)
        #expect(scan.tagDump != nil)

        let sent = transport.sentCommands.count
        let dump = try await scanner.dump(transport, scan: scan)
        #expect(dump["cardType"] == "NTAG215")
        #expect(dump["pages"]?.arrayValue?.count == 135)
        #expect(transport.sentCommands.count == sent)  // no second read of the tag
    }

    @Test func aTagThatLeavesMidReadIsAProblemNotALostTap() async throws {
        let tag = try homeAssistantTag()
        let transport = VirtualTagTransport(tag: tag)
        transport.remove(afterCommands: 3)
        let scanner = NFCCoreScanner()
        do {
            let scan = try await scanner.scan(transport)
            // Identified, but the read failed: the problem becomes an event/error.
            #expect(scan.problems.contains(.tagRemoved))
        } catch {
            // Gone during identification already: the reader loop falls back to anticollision data.
            #expect(error as? NFCError == .tagRemoved)
        }
    }

    @Test func theWholeAgentOnNFCCore() async throws {
        let h = try AgentHarness(scanner: NFCCoreScanner()) { $0.dump.onScan = true }
        h.device.place(try homeAssistantTag())
        let (scannedAt, scanned) = await h.waitFor(.scanned)
        #expect(scanned["cardType"] == "NTAG215")
        #expect(scanned["tag_id"] == "5f0ba733-172f-430d-a7f8-e4ad940c88d7")
        #expect(scanned["ndef"]?["records"]?.arrayValue?.first?["uri"] == "https://www.home-assistant.io/tag/5f0ba733-172f-430d-a7f8-e4ad940c88d7")
        let (dumpAt, dump) = await h.waitFor(.dump)
        #expect(scannedAt < dumpAt)
        #expect(dump["dump"]?["uid"] == "04A1B2C3D4E5F6")
        await h.stop()
    }
}
