/// `spool.jsonl` read at start, a chunk at a time: split into lines, the waiting ones (from the head
/// on) kept within the spool's bounds, the oldest beyond them dropped as
/// ``EventSpool/appendReportingDrops(_:)`` drops them; the highest `seq`, unreadable lines and a
/// torn tail noted. Memory stays within the bounds plus one line and one chunk, whatever the size
/// of the log (a backlog left when `spool.max_bytes` was lowered, a log from another machine).
struct SpoolLogScan {
    /// The offset of the first waiting line.
    let head: Int
    let maxEvents: Int
    let maxBytes: Int
    /// A longer line is counted as unreadable and skipped without being held, so that one giant
    /// line cannot take the memory the bounds protect (`maxBytes` plus 1 MiB).
    let lineLimit: Int

    /// The waiting messages and their lines' lengths, oldest first, from `keptStart` on (the ones
    /// before it were dropped and are let go once they weigh as much as those kept).
    private var kept: [(message: SpooledMessage, length: Int)] = []
    private var keptStart = 0
    private var keptBytes = 0
    private var releasedBytes = 0
    /// The waiting messages the bounds dropped, oldest first.
    private(set) var dropped = EventSpool.Drop()
    /// The highest `seq` of any line (delivered, waiting, dropped or unusable).
    private(set) var highestSeq: Int64 = 0
    /// Waiting lines that are not a message.
    private(set) var corrupt = 0
    /// Bytes read so far.
    private(set) var size = 0
    /// True when `head` is 0 or a line ends just before it.
    private(set) var headIsLineStart: Bool
    /// The line being read: where it starts, its bytes (none once it is longer than `lineLimit`).
    private var lineStart = 0
    private var line: [UInt8] = []
    private var lineIsTooLong = false

    init(head: Int, maxEvents: Int, maxBytes: Int) {
        (self.head, self.maxEvents, self.maxBytes) = (head, maxEvents, maxBytes)
        lineLimit = maxBytes.addingReportingOverflow(1 << 20).overflow ? maxBytes : maxBytes + (1 << 20)
        headIsLineStart = head == 0
    }

    /// The waiting messages kept, oldest first, with their lines' lengths.
    var messages: [(message: SpooledMessage, length: Int)] { Array(kept[keptStart...]) }

    /// The log ends in a line without its newline (a crash during an append).
    var isTorn: Bool { size > lineStart }

    /// Takes the next `chunk` of the log.
    mutating func read(_ chunk: ArraySlice<UInt8>) {
        var start = chunk.startIndex
        while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
            take(chunk[start..<newline])
            endLine(next: size + (newline + 1 - chunk.startIndex))
            start = newline + 1
        }
        take(chunk[start...])
        size += chunk.count
    }

    private mutating func take(_ bytes: ArraySlice<UInt8>) {
        guard !lineIsTooLong else { return }
        if bytes.count > lineLimit - line.count {
            lineIsTooLong = true
            line = []
        } else {
            line += bytes
        }
    }

    /// The line read ends; the next one starts at `next`.
    private mutating func endLine(next: Int) {
        defer {
            line.removeAll(keepingCapacity: true)
            lineIsTooLong = false
            lineStart = next
        }
        if next == head { headIsLineStart = true }
        let (message, seq) = lineIsTooLong ? (nil, nil) : SpooledMessage.read(line: line[...])
        if let seq { highestSeq = max(highestSeq, seq) }
        guard lineStart >= head else { return }
        guard let message else {
            corrupt += 1
            return
        }
        keep(message, length: next - lineStart)
    }

    private mutating func keep(_ message: SpooledMessage, length: Int) {
        kept.append((message, length))
        keptBytes += length
        while EventSpool.exceedsBounds(count: kept.count - keptStart, bytes: keptBytes, maxEvents: maxEvents, maxBytes: maxBytes) {
            dropped.add(kept[keptStart].message)
            keptBytes -= kept[keptStart].length
            releasedBytes += kept[keptStart].length
            keptStart += 1
        }
        if keptStart > 0 && releasedBytes >= keptBytes {
            kept.removeFirst(keptStart)
            (keptStart, releasedBytes) = (0, 0)
        }
    }
}
