import Foundation
import Testing

@testable import NFCBridge

/// A state filesystem that stops taking writes (issue 20: "a failed spool append loses the event
/// even while the broker is up"). The log is replaced by a non-empty directory, so every open,
/// write and rename of it fails as on a read-only or full disk, without root's immunity to
/// permissions.
struct BrokenLog {
    let path: String

    func breakIt() throws {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/blocker"))
    }

    func mend() throws {
        try FileManager.default.removeItem(atPath: path)
    }
}

/// What a spool's writer reported: failures (their messages) and recoveries (nil).
final class WriteReports: Sendable {
    let reports = Watched<[String?]>([])

    func attach(to spool: EventSpool) {
        spool.observeWrites { [reports] failure in reports.update { $0.append(failure?.message) } }
    }
}

@Suite(.timeLimit(.minutes(1))) struct SpoolOutageTests {
    func message(_ n: Int) -> SpooledMessage { .scanned(n) }

    @Test func aFailedWriteKeepsEveryMessageSaysSoOnceAndRewritesTheLogWhenTheDiskIsBack() async throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let spool = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
        let reports = WriteReports()
        reports.attach(to: spool)
        spool.append(message(1))
        spool.waitUntilWritten()
        let log = BrokenLog(path: spool.logPath)
        try log.breakIt()
        for n in 2...4 { spool.append(message(n)) }
        spool.waitUntilWritten()  // returns once the writer found it cannot write
        #expect(spool.writeFailure?.code == .spoolWriteFailed)
        #expect(spool.messages.map(\.seq) == [1, 2, 3, 4], "nothing lost while the disk refuses")
        #expect(!spool.isDurable(message(3)))
        spool.append(message(5))
        spool.removeFirst()
        try log.mend()
        _ = await reports.reports.wait { $0.count == 2 }
        #expect(reports.reports.value.first??.contains(spool.logPath) == true, "\(reports.reports.value)")
        #expect(reports.reports.value.last == .some(nil), "one failure, one recovery: \(reports.reports.value)")
        spool.waitUntilWritten()
        #expect(spool.writeFailure == nil)
        #expect(spool.isDurable(message(5)))
        let reopened = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
        #expect(reopened.messages.map(\.seq) == [2, 3, 4, 5], "the rewritten log holds exactly the waiting events")
    }

    @Test func aStateDirectoryThatCannotHoldTheSpoolIsRefusedAtStart() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        // The probe file's place is taken by a non-empty directory: nothing can be written there.
        try BrokenLog(path: dir.path + "/.spool-probe").breakIt()
        #expect {
            _ = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        } throws: { error in
            (error as? StorageError)?.code == .stateDirUnusable
                && (error as? StorageError)?.message.contains("choose a state_dir") == true
        }
        #expect(throws: StorageError.self) { try EventSpool(directory: "/proc/self", maxEvents: 10, maxBytes: 1 << 20) }
    }

    @Test func aFailedSpoolWriteWhileTheBrokerIsUpLosesNoTapAndSendsOneSpoolWriteFailed() async throws {
        let h = try AgentHarness()
        await h.waitFor(.reader) { $0["state"] == "ok" }
        await h.agent.pipeline.flush()
        let log = BrokenLog(path: h.agent.spool.logPath)
        try log.breakIt()
        for n in 1...3 {
            let tag = makeTag(uid: [0x04, 0, 0, 0, 0, 0, UInt8(n)])
            h.device.place(tag)
            await h.waitFor(.scanned) { $0["uid"]?.stringValue == "0400000000000\(n)" }
            await h.removeAndPassGrace(tag)
            await h.waitFor(.removed) { $0["uid"]?.stringValue == "0400000000000\(n)" }
        }
        let (_, failure) = await h.waitFor(.error) { $0["error"]?["code"] == "spool_write_failed" }
        #expect(failure["op"] == "spool")
        #expect(h.agent.pipeline.statistics.spoolWriteFailures == 1, "once per outage")
        let errors = h.publisher.published.filter { $0.topic == h.topics.topic(.error) }.compactMap(\.json)
        #expect(errors.filter { $0["error"]?["code"] == "spool_write_failed" }.count == 1)
        let taps = h.publisher.published.filter { $0.topic.hasSuffix("/event/scanned") || $0.topic.hasSuffix("/event/removed") }
            .compactMap(\.json)
        #expect(taps.count == 6, "every tap published while the disk refuses")
        #expect(taps.contains { $0["durable"] == false }, "events not on disk say so")
        try log.mend()
        await h.stop()
    }

    /// A full disk flaps: freeing the log's old blocks lets the rewrite through, the next event
    /// fails again (seen by scripts/chaos.py: 8 spool_write_failed in one outage). Within a minute
    /// of working it is the same outage; a minute later a new one.
    @Test func aDiskThatFailsAgainWithinAMinuteIsTheSameOutage() {
        var episodes = OutageEpisodes(quietMilliseconds: 60_000)
        #expect(episodes.failed(at: 1_000), "the first failure begins an outage")
        episodes.recovered(at: 2_000)
        #expect(!episodes.failed(at: 2_001), "failing again at once: the same outage")
        episodes.recovered(at: 3_000)
        #expect(!episodes.failed(at: 62_999), "59.999 s after working: the same outage")
        episodes.recovered(at: 63_000)
        #expect(episodes.failed(at: 123_000), "a minute after working: a new outage")
        #expect(EventJournal.outageQuietMilliseconds == 60_000)
    }
}
