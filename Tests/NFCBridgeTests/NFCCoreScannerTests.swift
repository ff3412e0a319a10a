import Foundation
import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// ``NFCCoreScanner`` around which a test can see when the reader loop asks for the dump: whether
/// `event/scanned` was already published then, and what the tag had been sent until that moment.
private final class DumpWatchingScanner: TagScanning {
    struct DumpStart: Sendable {
        var scannedPublished: Bool
        var commandsBefore: [[UInt8]]
        /// From the end of the tag's scan to the start of its dump (nil: no scan ended before).
        var sinceScan: Duration?
    }

    let base = NFCCoreScanner()
    /// The agent's publisher and its `event/scanned` topic, set once the harness exists.
    private let watched = Mutex<(publisher: InMemoryPublisher, topic: String)?>(nil)
    private let starts = Mutex<[DumpStart]>([])
    /// When the last scan ended.
    private let scanEnded = Mutex<ContinuousClock.Instant?>(nil)

    func watch(_ publisher: InMemoryPublisher, scannedTopic: String) {
        watched.withLock { $0 = (publisher, scannedTopic) }
    }

    var dumpStarts: [DumpStart] { starts.withLock { $0 } }

    func scan(_ transport: any TagTransport) async throws -> TagScan {
        defer { scanEnded.withLock { $0 = .now } }
        return try await base.scan(transport)
    }

    func dump(_ transport: any TagTransport, scan: TagScan) async throws -> TagDump {
        let published = watched.withLock { $0.map { !$0.publisher.published(to: $0.topic).isEmpty } } ?? false
        let start = DumpStart(
            scannedPublished: published,
            commandsBefore: (transport as? VirtualTagTransport)?.sentCommands ?? [],
            sinceScan: scanEnded.withLock { $0.map { $0.duration(to: .now) } })
        starts.withLock { $0.append(start) }
        return try await base.dump(transport, scan: scan)
    }
}

@Suite(.timeLimit(.minutes(1))) struct NFCCoreScannerTests {
    static let homeAssistantURI = "https://www.home-assistant.io/tag/5f0ba733-172f-430d-a7f8-e4ad940c88d7"

    func homeAssistantTag() throws -> VirtualType2Tag {
        let tag = makeTag()
        let message = NDEFMessage(records: [NDEFRecord.uri(Self.homeAssistantURI)])
        try tag.writeNDEF(message.bytes)
        return tag
    }

    /// What scanning the NTAG215 of ``homeAssistantTag()`` sends: GET_VERSION (identification), READ 3
    /// (CC), one FAST_READ of the rest of the NDEF TLV.
    static let scanTranscript = ["60", "3003", "3A0714"]

    @Test func scanIdentifiesAndReadsOnlyTheNDEFMessageThenDumpReadsTheTag() async throws {
        let tag = try homeAssistantTag()
        let transport = VirtualTagTransport(tag: tag)
        let scanner = NFCCoreScanner()
        let scan = try await scanner.scan(transport)
        #expect(scan.cardType == "NTAG215")
        #expect(scan.report.cardFamily == "NTAG")
        #expect(scan.report.product != nil)
        #expect(scan.report.uid == "04A1B2C3D4E5F6")
        #expect(scan.homeAssistantTagID == "5f0ba733-172f-430d-a7f8-e4ad940c88d7")
        #expect(scan.problems.isEmpty)
        #expect(scan.report.ndefStatus == nil)
        #expect(scan.tagDump == nil)
        #expect(transport.sentCommands.map(\.hexString) == Self.scanTranscript)

        let dump = try await scanner.dump(transport, scan: scan)
        #expect(dump.cardInfo.type.description == "NTAG215")
        #expect(dump.pages.count == 135)
        #expect(transport.sentCommands.count > Self.scanTranscript.count + 2)
    }

    @Test func aTagThatLeavesMidReadIsAProblemNotALostTap() async throws {
        let tag = try homeAssistantTag()
        let transport = VirtualTagTransport(tag: tag)
        // GET_VERSION and READ 3 are answered; the tag is gone for the FAST_READ.
        transport.remove(afterCommands: 2)
        let scan = try await NFCCoreScanner().scan(transport)
        #expect(scan.cardType == "NTAG215")
        #expect(scan.problems == [.tagRemoved])
        #expect(scan.report.ndef == nil)
        #expect(scan.report.ndefStatus == "unreadable")
        #expect(scan.report.ndefError?.code == "tag_removed")
    }

    @Test func aTagGoneDuringIdentificationThrows() async throws {
        let transport = VirtualTagTransport(tag: try homeAssistantTag())
        transport.remove()
        await #expect(throws: NFCError.tagRemoved) { try await NFCCoreScanner().scan(transport) }
    }

    @Test func aReadProtectedMessageIsReportedInTheScanNotAsAnError() async throws {
        let tag = try homeAssistantTag()
        tag.setAuth0(5)
        tag.setReadProtection(true)
        let scan = try await NFCCoreScanner().scan(VirtualTagTransport(tag: tag))
        #expect(scan.cardType == "NTAG215")
        #expect(scan.problems.isEmpty)
        #expect(scan.report.ndef == nil)
        #expect(scan.report.ndefStatus == "unreadable")
        #expect(scan.report.ndefError?.code == "auth_required")
        #expect(scan.homeAssistantTagID == "04A1B2C3D4E5F6")
    }

    @Test func theWholeAgentOnNFCCore() async throws {
        let h = try AgentHarness(scanner: NFCCoreScanner()) { $0.dump.onScan = true }
        h.device.place(try homeAssistantTag())
        let (scannedAt, scanned) = await h.waitFor(.scanned)
        #expect(scanned["cardType"] == "NTAG215")
        #expect(scanned["tag_id"] == "5f0ba733-172f-430d-a7f8-e4ad940c88d7")
        #expect(scanned["ndef"]?["records"]?.arrayValue?.first?["uri"] == .string(Self.homeAssistantURI))
        let (dumpAt, dump) = await h.waitFor(.dump)
        #expect(scannedAt < dumpAt)
        #expect(dump["dump"]?["uid"] == "04A1B2C3D4E5F6")
        await h.stop()
    }

    @Test func scannedIsPublishedBeforeTheDumpSendsItsFirstCommand() async throws {
        let scanner = DumpWatchingScanner()
        let h = try AgentHarness(scanner: scanner) { $0.dump.onScan = true }
        scanner.watch(h.publisher, scannedTopic: h.topics.topic(.scanned))
        h.device.place(try homeAssistantTag())
        let (scannedAt, _) = await h.waitFor(.scanned)
        let (dumpAt, dump) = await h.waitFor(.dump)
        #expect(scannedAt < dumpAt)
        #expect(dump["dump"]?["pages"]?.arrayValue?.count == 135)
        let start = try #require(scanner.dumpStarts.first)
        // When the dump began, `scanned` was out — or the agent had waited for it the whole
        // `scanBeforeDumpLimit` (a loaded machine may not get it out sooner: the reader never waits
        // longer); the wait began after the scan ended, so the time since then is at least as long.
        let sinceScan = try #require(start.sinceScan)
        #expect(start.scannedPublished || sinceScan >= Agent.scanBeforeDumpLimit, "dump began \(sinceScan) after the scan, scanned not out")
        // The tag had seen only the scan's three commands.
        #expect(start.commandsBefore.map(\.hexString) == Self.scanTranscript)
        await h.stop()
    }

    @Test func withoutDumpOnScanTheTagIsNeverDumped() async throws {
        let scanner = DumpWatchingScanner()
        let h = try AgentHarness(scanner: scanner)
        scanner.watch(h.publisher, scannedTopic: h.topics.topic(.scanned))
        let tag = try homeAssistantTag()
        h.device.place(tag)
        let (_, scanned) = await h.waitFor(.scanned)
        #expect(scanned["ndef"]?["records"]?.arrayValue?.first?["uri"] == .string(Self.homeAssistantURI))
        await h.removeAndPassGrace(tag)
        await h.waitFor(.removed)
        #expect(scanner.dumpStarts.isEmpty)
        #expect(h.publisher.published(to: h.topics.topic(.dump)).isEmpty)
        await h.stop()
    }
}
