import FoundationEssentials
import POSIXThreads

extension EventSpool {
    /// One message, waiting or delivered but still in the log.
    struct Entry {
        var message: SpooledMessage
        /// Its spool line's length: as it is in the log (a line read at start keeps the length it
        /// was read with; a rewrite sets the length it wrote), or as it will be appended.
        var length: Int
        /// Its spool line, until the writer appended it.
        var line: [UInt8]?
    }

    /// The spool in memory. `entries[0..<written]` are in the log, starting at byte `fileBase`;
    /// `entries[0..<first]` are delivered (or dropped).
    struct State {
        var entries: [Entry] = []
        var first = 0
        var written = 0
        var fileBase = 0
        var fileEnd = 0
        /// Lengths of `entries[0..<first]` and of `entries[first...]`.
        var deliveredBytes = 0
        var pendingBytes = 0
        /// The head offset `spool.head` holds.
        var headOnDisk = 0
        var highestSeq: Int64 = 0
        /// The highest `seq` the head file holds.
        var highestSeqOnDisk: Int64 = 0
        /// The log must be replaced by the waiting lines (after a failed write, or to compact it).
        var needsRewrite = false
        var dropped = 0
        /// What opening the spool dropped, until it is reported (``EventSpool/takeDropsAtStart()``).
        var droppedAtStart = EventSpool.Drop()
        /// Opening the spool dropped lines whose drop is not reported yet: the writer leaves the files
        /// as they are (the dropped lines in the log) until ``EventSpool/dropsAtStartReported()``, so
        /// a stop or crash before the report loses nothing unreported.
        var holdsUnreportedDrop = false
        /// The write failure of the current outage.
        var failure: StorageError?
        /// ``EventSpool/observeWrites(_:)`` was called; `failure` was told to it.
        var isObserved = false
        var isFailureReported = false

        var pending: ArraySlice<Entry> { entries[first...] }

        /// The waiting messages' lines as a rewrite writes them, and each one's length: a line read
        /// at start is encoded afresh, and may differ from what was read (spaces, CRLF, another
        /// version's writer).
        var waitingLines: (bytes: [UInt8], lengths: [Int]) {
            var bytes: [UInt8] = []
            var lengths: [Int] = []
            for entry in pending {
                let line = entry.line ?? EventSpool.line(entry.message)
                bytes += line
                lengths.append(line.count)
            }
            return (bytes, lengths)
        }

        /// The log offset of the first waiting message once every entry is written.
        var head: Int { fileBase + deliveredBytes }

        /// Most of the log is delivered prefix: rewriting it with only the waiting lines pays.
        var compactionPays: Bool { head > 4096 && head > pendingBytes }

        /// Nothing left for the writer.
        var isSettled: Bool {
            !needsRewrite && written == entries.count && !compactionPays
                && (first < entries.count ? head == headOnDisk : fileEnd == 0 && highestSeqOnDisk >= highestSeq)
        }

        /// The oldest waiting message is delivered (or dropped).
        mutating func deliver() {
            deliveredBytes += entries[first].length
            pendingBytes -= entries[first].length
            first += 1
        }

        /// Forgets the entries that are both delivered and in the log (their bytes stay in the log
        /// before `fileBase`).
        mutating func forgetWrittenPrefix() {
            let count = min(first, written)
            guard count > 0 else { return }
            let bytes = entries[0..<count].reduce(0) { $0 + $1.length }
            entries.removeFirst(count)
            fileBase += bytes
            deliveredBytes -= bytes
            first -= count
            written -= count
        }
    }

    private enum Plan {
        case rewrite(bytes: [UInt8], lengths: [Int], from: Int, to: Int, highestSeq: Int64, lastSeq: Int64?)
        case truncate(count: Int, highestSeq: Int64)
        case append(bytes: [UInt8], to: Int, end: Int, head: Int?, highestSeq: Int64, lastSeq: Int64?)
        case nothing
    }

    /// One round of the writer: appends what arrived (one write, one fsync), persists the head,
    /// truncates a fully delivered log, or rewrites it (compaction, or the first write after a
    /// failure). Blocks on the disk; runs on the writer thread only. Returns true while failing.
    func writePass() -> Bool {
        let plan = state.withLock { s -> Plan in
            if s.holdsUnreportedDrop { return .nothing }
            s.forgetWrittenPrefix()
            if s.needsRewrite || s.compactionPays {
                s.needsRewrite = true
                let (bytes, lengths) = s.waitingLines
                return .rewrite(
                    bytes: bytes, lengths: lengths, from: s.first, to: s.entries.count, highestSeq: s.highestSeq,
                    lastSeq: s.pending.map(\.message.seq).max())
            }
            if s.first == s.entries.count {
                if s.fileEnd > 0 || s.highestSeqOnDisk < s.highestSeq { return .truncate(count: s.entries.count, highestSeq: s.highestSeq) }
                // Delivered before they were written: nothing to write at all.
                s.truncated(count: s.entries.count)
                return .nothing
            }
            let bytes = s.entries[s.written...].flatMap { $0.line ?? [] }
            let head = s.head == s.headOnDisk ? nil : s.head
            if bytes.isEmpty && head == nil { return .nothing }
            return .append(
                bytes: bytes, to: s.entries.count, end: s.fileEnd, head: head, highestSeq: s.highestSeq,
                lastSeq: s.entries[s.written...].map(\.message.seq).max())
        }
        do throws(StorageError) {
            switch plan {
            case .nothing:
                return state.withLock { $0.failure != nil }
            case let .rewrite(bytes, lengths, from, to, highestSeq, lastSeq):
                try files.rewrite(bytes, highestSeq: highestSeq)
                state.withLock { s in
                    s.rewrote(from: from, to: to, lengths: lengths)
                    s.highestSeqOnDisk = highestSeq
                }
                if let lastSeq { durableObserver(lastSeq) }
            case let .truncate(count, highestSeq):
                try files.truncate(highestSeq: highestSeq)
                state.withLock { s in
                    s.truncated(count: count)
                    s.highestSeqOnDisk = highestSeq
                }
            case let .append(bytes, to, end, head, highestSeq, lastSeq):
                if !bytes.isEmpty { try files.append(bytes, end: end) }
                state.withLock { s in s.appended(to: to, bytes: bytes.count) }
                if let lastSeq, !bytes.isEmpty { durableObserver(lastSeq) }
                if let head {
                    try files.writeHead(offset: head, highestSeq: highestSeq)
                    state.withLock { s in (s.headOnDisk, s.highestSeqOnDisk) = (head, highestSeq) }
                }
            }
        } catch {
            let tell = state.withLock { s -> Bool in
                s.needsRewrite = true
                defer { s.failure = error }
                guard s.failure == nil else { return false }
                // Nobody listens yet: ``observeWrites(_:)`` tells it.
                s.isFailureReported = s.isObserved
                return s.isObserved
            }
            if tell { observer(error) }
            return true
        }
        let recovered = state.withLock { s -> Bool in
            defer { (s.failure, s.isFailureReported) = (nil, false) }
            return s.failure != nil && s.isFailureReported
        }
        if recovered { observer(nil) }
        if !state.withLock({ $0.isSettled }) { writer.kick() }
        return false
    }
}

extension EventSpool.State {
    /// The log now holds exactly `entries[from..<to]` (as they were when the pass began), in lines
    /// of `lengths`: each entry takes the length written, so that the head offsets after it count
    /// the log's bytes (a line read at start may have been longer or shorter).
    mutating func rewrote(from: Int, to: Int, lengths: [Int]) {
        let forgotten = entries[0..<from].reduce(0) { $0 + $1.length }
        entries.removeFirst(from)
        first -= from
        deliveredBytes -= forgotten
        written = to - from
        fileEnd = 0
        for (index, length) in lengths.enumerated() {
            // Delivered meanwhile (the lock was not held while writing) or still waiting.
            if index < first {
                deliveredBytes += length - entries[index].length
            } else {
                pendingBytes += length - entries[index].length
            }
            entries[index].length = length
            entries[index].line = nil
            fileEnd += length
        }
        fileBase = 0
        headOnDisk = 0
        needsRewrite = false
    }

    /// The log is empty; `entries[0..<count]` (all delivered) are forgotten.
    mutating func truncated(count: Int) {
        let forgotten = entries[0..<count].reduce(0) { $0 + $1.length }
        entries.removeFirst(count)
        first -= count
        deliveredBytes -= forgotten
        written = 0
        fileBase = 0
        fileEnd = 0
        headOnDisk = 0
    }

    /// `entries[written..<to]` were appended.
    mutating func appended(to: Int, bytes: Int) {
        for index in written..<to { entries[index].line = nil }
        written = to
        fileEnd += bytes
    }
}
