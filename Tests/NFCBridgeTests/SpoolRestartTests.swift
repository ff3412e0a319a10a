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
}
