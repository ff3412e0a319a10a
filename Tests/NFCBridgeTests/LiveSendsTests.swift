import Foundation
import Testing

@testable import NFCBridge

/// Issue 20: "a kill -9 never yields two copies of one event_id with different `buffered`
/// flags". The spool's head moves after the PUBACK, on the writer's thread; a kill in between
/// leaves a live-sent event in the log, and the next run sends it again. `spool.live` says how
/// its first copy went.
@Suite(.timeLimit(.minutes(1))) struct LiveSendsTests {
    /// Published live, in the broker's hands, the spool's head not yet on disk, the process gone:
    /// the state directory is copied as the kill leaves it (the page cache included), and an agent
    /// started on the copy sends the event again with `buffered: false`, byte for byte its first copy.
    @Test func aKill9AfterALivePublishBeforeTheHeadIsOnDiskResendsTheSameLiveCopyNotABufferedOne() async throws {
        let holding = StallingPublisher()
        // Settled: the stall must hold the `scanned`, not a start-up message still on its way
        // (the sender sends one message at a time, so nothing behind a held one is handed over).
        let first = try await holding.settledAgent()
        holding.stall()
        first.device.place(makeTag())
        let sent = try #require(await holding.handed.wait { !$0.isEmpty }.first)
        let live = try #require(sent.json)
        #expect(live["buffered"] == false, "the first copy went out live: \(live)")
        // The event is on disk; its acknowledgement (and so the head's advance) has not come.
        first.agent.spool.waitUntilWritten()
        // The tap's presence record is saved on the store's thread (a temporary file renamed into
        // place) while this test goes on: copied in the middle, the temporary file listed could be
        // gone when its turn came (`copyItem` failed, "presence.json.tmp" not found). Copied once
        // it is on disk.
        await first.logs.waitForLine(containing: "presence: on disk with 1 tag(s)")
        let killed = StateDirectory()
        try FileManager.default.copyItem(atPath: first.directory.path, toPath: killed.path)
        holding.release()
        await first.stop()

        let second = try AgentHarness(directory: killed)
        let id = try #require(live["event_id"]?.stringValue)
        let (_, again) = await second.waitFor(.scanned) { $0["event_id"]?.stringValue == id }
        #expect(again["buffered"] == false, "\(again)")
        let copies = second.publisher.published.filter { $0.json?["event_id"]?.stringValue == id }
        #expect(copies.map(\.payload) == [sent.payload], "the same bytes as the first copy")
        #expect(second.agent.pipeline.statistics.replayed == 0)
        await second.stop()
    }

    /// What the record keeps: a live send (and whether it was durable), a buffered copy after a
    /// failed live attempt clears it, and a slot is reused `slots` events later (the bound).
    @Test func theRecordKeepsTheLastLiveSendOfEachSlotAndABufferedCopyClearsIt() async throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let slots = Int64(LiveSends.slots)
        do {
            let record = LiveSends(directory: dir.path, spooled: [])
            #expect(record.problem == nil)
            for (seq, mark) in [(5, LiveSends.Mark()), (6, LiveSends.Mark(notDurable: true)), (7, LiveSends.Mark()), (9, LiveSends.Mark())] {
                #expect(await record.record(Int64(seq), mark) == nil)
            }
            #expect(await record.record(7, nil) == nil)
            #expect(await record.record(9 + slots, LiveSends.Mark()) == nil)
        }
        let size = try FileManager.default.attributesOfItem(atPath: dir.path + "/spool.live")[.size] as? Int
        #expect(size == LiveSends.fileSize)
        let reloaded = LiveSends(directory: dir.path, spooled: [5, 6, 7, 8, 9, 9 + slots])
        #expect(reloaded.problem == nil)
        #expect(reloaded.earlierLiveSend(of: 5) == LiveSends.Mark())
        #expect(reloaded.earlierLiveSend(of: 6) == LiveSends.Mark(notDurable: true))
        #expect(reloaded.earlierLiveSend(of: 7) == nil, "went out buffered after its live attempt failed")
        #expect(reloaded.earlierLiveSend(of: 8) == nil, "never sent live")
        #expect(reloaded.earlierLiveSend(of: 9) == nil, "its slot was taken \(slots) events later")
        #expect(reloaded.earlierLiveSend(of: 9 + slots) == LiveSends.Mark())
        // Only what is still in the spool is kept.
        #expect(LiveSends(directory: dir.path, spooled: [6]).earlierLiveSend(of: 5) == nil)
        // A failing record says so once per streak.
        unlink(dir.path + "/spool.live")
        let failure = await reloaded.record(10, LiveSends.Mark())
        #expect(failure?.code == .stateWriteFailed && failure?.message.contains("spool.live") == true, "\(String(describing: failure))")
        #expect(await reloaded.record(11, LiveSends.Mark()) == nil, "the same streak")
    }

    /// A slot whose check word does not match (torn, zeroed, written by something else) is no record.
    @Test func aSlotThatDoesNotCheckIsSkipped() {
        var bytes = [UInt8](repeating: 0, count: LiveSends.fileSize)
        bytes.replaceSubrange(0..<8, with: LiveSends.magic)
        let good = LiveSends.slot(3, LiveSends.Mark()), bad = LiveSends.slot(4, LiveSends.Mark())
        bytes.replaceSubrange(LiveSends.offset(of: 3)..<LiveSends.offset(of: 3) + 16, with: good)
        bytes.replaceSubrange(LiveSends.offset(of: 4)..<LiveSends.offset(of: 4) + 16, with: bad.prefix(15) + [bad[15] ^ 0x80])
        // A valid slot in the wrong place (seq 3's slot copied to seq 5's).
        bytes.replaceSubrange(LiveSends.offset(of: 5)..<LiveSends.offset(of: 5) + 16, with: good)
        #expect(LiveSends.marks(in: bytes).map(\.0) == [3])
    }

    enum Damage: String, CaseIterable, Sendable {
        case short, foreign, oversized, directory
    }

    /// A `spool.live` that is short, foreign, too large or not a file is ignored with a log line
    /// and replaced; the agent runs and publishes.
    @Test(arguments: Damage.allCases)
    func aDamagedLiveRecordIsIgnoredWithALogLineAndNeverACrash(damage: Damage) async throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let path = dir.path + "/spool.live"
        switch damage {
        case .short: try Data("NFCBLIV1".utf8).write(to: URL(fileURLWithPath: path))
        case .foreign: try Data(repeating: 0x41, count: LiveSends.fileSize).write(to: URL(fileURLWithPath: path))
        case .oversized: try Data(repeating: 0, count: LiveSends.fileSize + 1).write(to: URL(fileURLWithPath: path))
        case .directory: try BrokenLog(path: path).breakIt()
        }
        let h = try AgentHarness(directory: dir)
        #expect(h.logs.recorded.contains { $0.contains("warning") && $0.contains("spool.live") }, "\(h.logs.recorded)")
        h.device.place(makeTag())
        let (_, scanned) = await h.waitFor(.scanned)
        #expect(scanned["buffered"] == false)
        await h.stop()
        if damage != .directory {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(size == LiveSends.fileSize, "replaced by a good record")
        }
    }
}
