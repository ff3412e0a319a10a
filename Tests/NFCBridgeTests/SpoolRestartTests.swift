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

    /// The rewrite at start (a torn tail forces it) writes the lines afresh, shorter: the head of
    /// the delivered events counts the lines as written, not as they were read.
    @Test func aRewriteAtStartCountsTheLinesItWrote() throws {
        let dir = try Self.directory(["spool.jsonl": Self.paddedLog() + Array(#"{"topic":"nfc/a/ev"#.utf8)])
        do {
            let spool = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
            #expect(spool.hadTornTail)
            #expect(spool.messages.map(\.seq) == Array(1...30))
            for _ in 1...3 { spool.removeFirst() }
            spool.waitUntilWritten()
            let size = try #require(try FileManager.default.attributesOfItem(atPath: spool.logPath)[.size] as? Int)
            #expect(size == Self.lines(1...30, pad: 400).count)
            #expect(try Self.headOffset(in: dir) == Self.lines(1...3, pad: 400).count, "where seq 4 starts")
        }
        let reopened = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
        #expect(reopened.messages.map(\.seq) == Array(4...30))
    }

    /// The writer's rewrite after a failed write does the same for lines read at start and kept
    /// as they were (nothing forced a rewrite then).
    @Test func theWritersRewriteCountsTheLinesItWrote() async throws {
        let dir = try Self.directory(["spool.jsonl": Self.paddedLog()])
        let reports = WriteReports()
        do {
            let spool = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
            reports.attach(to: spool)
            let log = BrokenLog(path: spool.logPath)
            try log.breakIt()
            spool.append(.scanned(31, pad: 400))
            spool.waitUntilWritten()  // returns once the writer found it cannot write
            try log.mend()
            _ = await reports.reports.wait { $0.count == 2 }  // failed, then rewrote the log
            for _ in 1...3 { spool.removeFirst() }
            spool.waitUntilWritten()
            #expect(try Self.headOffset(in: dir) == Self.lines(1...3, pad: 400).count, "where seq 4 starts")
        }
        let reopened = try EventSpool(directory: dir.path, maxEvents: 100, maxBytes: 1 << 20)
        #expect(reopened.messages.map(\.seq) == Array(4...31))
    }
}
