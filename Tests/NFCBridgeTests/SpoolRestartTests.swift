import Foundation
import Testing

@testable import NFCBridge

/// What a restart finds in the state directory and must not lose: a head left beyond the end of
/// the log, lines that re-encode shorter than they were written, a log larger than the spool's
/// bounds. Every event is either replayed or dropped oldest first, counted and reported.
@Suite(.timeLimit(.minutes(1))) struct SpoolRestartTests {
    /// A state directory holding `files` (name → content) as an earlier run or a crash left them.
    static func directory(_ files: [String: [UInt8]]) throws -> StateDirectory {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        for (name, bytes) in files {
            try Data(bytes).write(to: URL(fileURLWithPath: AtomicFile.path(dir.path, name)))
        }
        return dir
    }

    /// The spool lines of `seqs` as this version writes them, each padded to about `pad` bytes.
    static func lines(_ seqs: ClosedRange<Int>, pad: Int = 0) -> [UInt8] {
        seqs.flatMap { SpooledMessage.scanned($0, pad: pad).spoolLine }
    }

    /// The offset `spool.head` in `dir` holds.
    static func headOffset(in dir: StateDirectory) throws -> Int? {
        let bytes = try #require(try AtomicFile.read(dir.path + "/spool.head", limit: 64))
        return String(decoding: bytes, as: UTF8.self).split(separator: " ").first.flatMap { Int($0) }
    }

    /// `spool.head` says 3000 while the log is missing, empty or shorter: what a crash between
    /// cutting the log and writing the head left. The head is rewritten before anything is
    /// appended, so the events of the next run are all there after the one after it.
    @Test(arguments: [nil, 0, 2])
    func aHeadBeyondTheEndOfTheLogIsRewrittenBeforeAnythingIsAppended(waiting: Int?) throws {
        var files = ["spool.head": Array("3000 0\n".utf8)]
        if let waiting { files["spool.jsonl"] = waiting == 0 ? [] : Self.lines(1...waiting, pad: 100) }
        let dir = try Self.directory(files)
        let first = (waiting ?? 0) + 1
        do {
            let spool = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
            #expect(spool.messages.map(\.seq) == Array(1..<Int64(first)))
            for n in first...29 { spool.append(.scanned(n, pad: 100)) }
            spool.waitUntilWritten()
        }
        let reopened = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
        #expect(reopened.messages.map(\.seq) == Array(1...29))
    }

    /// The lines of seq 1…30 (about 500 bytes each) as another writer left them: the first with
    /// 3000 spaces more than this version writes.
    static func paddedLog() -> [UInt8] {
        var log = lines(1...30, pad: 400)
        log.insert(contentsOf: [UInt8](repeating: UInt8(ascii: " "), count: 3000), at: 1)
        return log
    }

    /// Delivers the first three events of `spool` (read from ``paddedLog()``), checks that the
    /// head points where the fourth starts in the log as written, and returns the `seq`s the next
    /// start finds.
    static func deliverTheFirstThree(of spool: EventSpool, in dir: StateDirectory) throws -> [Int64] {
        for _ in 1...3 { spool.removeFirst() }
        spool.waitUntilWritten()
        #expect(try headOffset(in: dir) == lines(1...3, pad: 400).count, "where seq 4 starts")
        return try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20).messages.map(\.seq)
    }

    /// The rewrite at start (a torn tail forces it) writes the lines afresh, shorter: the head of
    /// the delivered events counts the lines as written, not as they were read.
    @Test func aRewriteAtStartCountsTheLinesItWrote() throws {
        let dir = try Self.directory(["spool.jsonl": Self.paddedLog() + Array(#"{"topic":"nfc/a/ev"#.utf8)])
        let spool = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
        #expect(spool.hadTornTail)
        #expect(spool.messages.map(\.seq) == Array(1...30))
        spool.waitUntilWritten()  // the writer's first pass rewrites the log
        let size = try #require(try FileManager.default.attributesOfItem(atPath: spool.logPath)[.size] as? Int)
        #expect(size == Self.lines(1...30, pad: 400).count)
        #expect(try Self.deliverTheFirstThree(of: spool, in: dir) == Array(4...30))
    }

    /// The writer's rewrite after a failed write does the same for lines read at start and kept
    /// as they were (nothing forced a rewrite then).
    @Test func theWritersRewriteCountsTheLinesItWrote() async throws {
        let dir = try Self.directory(["spool.jsonl": Self.paddedLog()])
        let spool = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
        let reports = WriteReports()
        reports.attach(to: spool)
        let log = BrokenLog(path: spool.logPath)
        try log.breakIt()
        spool.append(.scanned(31, pad: 400))
        spool.waitUntilWritten()  // returns once the writer found it cannot write
        try log.mend()
        _ = await reports.reports.wait { $0.count == 2 }  // failed, then rewrote the log
        #expect(try Self.deliverTheFirstThree(of: spool, in: dir) == Array(4...31))
    }

    /// The rewrite at start runs on the writer thread and may fail before anyone listens (the
    /// journal attaches after the spool is open): the failure is told to the first listener, once,
    /// and so is the recovery.
    @Test func aRewriteAtStartThatFailsIsReportedToTheListenerAttachedAfterIt() async throws {
        let dir = try Self.directory(["spool.jsonl": Self.lines(1...3) + Array(#"{"topic":"nfc/a/ev"#.utf8)])
        let blocked = BrokenLog(path: dir.path + "/spool.jsonl.tmp")  // the rewrite's temporary file
        try blocked.breakIt()
        let spool = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
        spool.waitUntilWritten()  // returns once the writer found it cannot write
        #expect(spool.writeFailure?.code == .spoolWriteFailed)
        let reports = WriteReports()
        reports.attach(to: spool)
        let told = reports.reports.value
        #expect(told.count == 1 && told.first??.contains("spool.jsonl.tmp") == true, "\(told)")
        try blocked.mend()
        _ = await reports.reports.wait { $0.count == 2 }
        #expect(reports.reports.value.last == .some(nil), "one failure, one recovery: \(reports.reports.value)")
        spool.waitUntilWritten()
        #expect(try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20).hadTornTail == false)
    }

    /// A backlog of 2000 events (1.6 MB) waits when `spool.max_bytes` is lowered to 100 000: more
    /// than the spool ever reads into memory. The oldest are dropped and counted, the newest kept
    /// and written back; nothing is taken for a torn line.
    @Test func aLogBeyondTheBoundsKeepsTheNewestAndDropsTheOldest() throws {
        let dir = try Self.directory(["spool.jsonl": Self.lines(1...2000, pad: 700)])
        let spool = try EventSpool(directory: dir.path, maxEvents: 10_000, maxBytes: 100_000)
        #expect(!spool.hadTornTail)
        #expect(spool.corruptLineCount == 0)
        let kept = spool.messages.map(\.seq)
        #expect(kept.last == 2000)
        #expect(kept == Array((2001 - Int64(kept.count))...2000))
        #expect(spool.byteCount <= 100_000 && spool.byteCount > 99_000, "\(spool.byteCount)")
        #expect(spool.droppedCount == 2000 - kept.count)
        // Until the drop is reported, the log stays as it is: a start that fails (or a crash) before
        // the report leaves the next start to drop and report the same lines.
        spool.waitUntilWritten()
        let unreported = try EventSpool(directory: dir.path, maxEvents: 10_000, maxBytes: 100_000)
        #expect(unreported.droppedCount == spool.droppedCount)
        #expect(unreported.takeDropsAtStart().count == spool.droppedCount)
        #expect(spool.takeDropsAtStart().count == spool.droppedCount)
        spool.dropsAtStartReported()
        spool.waitUntilWritten()
        let reopened = try EventSpool(directory: dir.path, maxEvents: 10_000, maxBytes: 100_000)
        #expect(reopened.messages.map(\.seq) == kept)
        #expect(reopened.droppedCount == 0, "the log was written back without them")
    }

    /// `spool.max_events` lowered: the same, by count.
    @Test func aLogOfMoreEventsThanTheBoundKeepsTheNewest() throws {
        let dir = try Self.directory(["spool.jsonl": Self.lines(1...30)])
        let spool = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        #expect(spool.messages.map(\.seq) == Array(21...30))
        #expect(spool.droppedCount == 20)
    }

    /// The agent reports what start-up dropped as any full spool's drop: an `event/error`
    /// `spool_full` with the `seq` range, the count in `health.spool.dropped`, a warning; then it
    /// replays the newest.
    @Test func theAgentReportsTheEventsDroppedAtStart() async throws {
        let queuedAt = Int64(ManualClock().now.timeIntervalSince1970 * 1000)
        let log = (1...2000).flatMap { SpooledMessage.scanned($0, pad: 700, queuedAt: queuedAt).spoolLine }
        let h = try AgentHarness(directory: try Self.directory(["spool.jsonl": log])) { $0.spool.maxBytes = 100_000 }
        let (_, notice) = await h.waitFor(.error) { $0["error"]?["code"] == "spool_full" }
        #expect(notice["first_seq"] == 1)
        let last = try #require(notice["last_seq"]?.intValue)
        #expect(last > 1800 && last < 2000, "\(last)")
        #expect(notice["dropped"]?.intValue == last)
        await h.publisher.waitForJSON(on: "nfc/a/event/scanned") { $0["seq"] == 2000 }
        #expect(h.agent.health.spoolDropped >= last)
        let warning = "spool full: dropped the \(last) oldest buffered event(s) (seq 1…\(last))"
        #expect(h.logs.recorded.contains { $0.contains(warning) })
        #expect(!h.logs.recorded.contains { $0.contains("torn") }, "\(h.logs.recorded)")
        await h.stop()
    }
}

/// The start-up drop's notice against the other drops' notices (EventJournal.reportDropsAtStart).
@Suite(.timeLimit(.minutes(1))) struct SpoolStartDropNoticeTests {
    /// An event recorded before the pipeline reports the start-up drop (a scan, a torn job tag) drops
    /// one more line from the full spool and claims the one notice the running drops share. The
    /// start-up drop still gets a notice of its own, in the spool with the rewrite that removes its
    /// lines: a pipeline stopped without ever starting leaves both on disk.
    @Test func theStartUpDropHasItsOwnNoticeEvenWhenAnotherClaimedTheNotice() async throws {
        let dir = try SpoolRestartTests.directory(["spool.jsonl": SpoolRestartTests.lines(1...30)])
        let spool = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        #expect(spool.messages.map(\.seq) == Array(21...30))
        let clock = ManualClock()
        let pipeline = EventPipeline(
            topics: TopicMap(base: "nfc", id: "a"), publisher: InMemoryPublisher(connected: false), spool: spool,
            sequence: try SequenceStore(directory: dir.path, floor: 30), clock: clock,
            logger: AgentLogger(level: .error, journald: false, clock: clock, sink: { _ in }))
        _ = await pipeline.emit(.removed, ["uid": "04A1B2C3D4E5F6"])
        await pipeline.stop()
        let reopened = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        let notices = reopened.messages.compactMap { message -> JSONValue? in
            guard message.kind == .error, let json = try? JSONValue(parsing: Data(message.payload)) else { return nil }
            return json["error"]?["code"] == "spool_full" ? json : nil
        }
        #expect(notices.contains { $0["first_seq"] == 1 && $0["last_seq"] == 20 }, "\(notices)")
        #expect(reopened.droppedCount == 0)
        #expect(pipeline.statistics.dropped >= 21)
    }
}
