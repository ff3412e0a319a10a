import FoundationEssentials
import Glibc
import Synchronization

/// The durable store-and-forward spool: events produced while the broker is unreachable wait
/// here, in order, until they are delivered. libmosquitto only queues in memory (lost on exit), so
/// this file is what makes "never lose an event" true across broker outages *and* restarts.
///
/// Layout in the state directory:
/// - `spool.jsonl`: append-only, one JSON ``SpooledMessage`` per line, fsync'd after every append;
/// - `spool.head`: the byte offset of the first message not yet delivered.
///
/// A crash can at worst leave a torn last line (dropped on load: it was never acknowledged to
/// anyone) or a stale head (a few messages are sent twice — consumers de-duplicate by `event_id`).
/// The spool is bounded by count and bytes; beyond them the OLDEST messages are dropped and counted.
public final class EventSpool: Sendable {
    /// Path of the append-only log.
    public let logPath: String
    /// Path of the head offset.
    public let headPath: String
    private let maxEvents: Int
    private let maxBytes: Int
    private let state: Mutex<State>

    private struct Entry {
        var message: SpooledMessage
        var length: Int
    }

    private struct State {
        var entries: [Entry] = []
        /// Index of the first undelivered entry in `entries`.
        var first = 0
        /// Byte offset of `entries[first]` in the log.
        var head = 0
        /// Log size.
        var end = 0
        var dropped = 0
        var removalsSinceHeadWrite = 0
        var pending: ArraySlice<Entry> { entries[first...] }
    }

    /// Opens the spool in `directory`, loading what an earlier run left.
    public init(directory: String, maxEvents: Int, maxBytes: Int) throws(StorageError) {
        logPath = AtomicFile.path(directory, "spool.jsonl")
        headPath = AtomicFile.path(directory, "spool.head")
        self.maxEvents = max(1, maxEvents)
        self.maxBytes = max(1024, maxBytes)
        state = Mutex(State())
        try load()
    }

    /// Messages waiting.
    public var depth: Int { state.withLock { $0.entries.count - $0.first } }

    /// Bytes of the waiting messages.
    public var byteCount: Int { state.withLock { $0.end - $0.head } }

    /// Messages dropped because the spool was full (since this process started).
    public var droppedCount: Int { state.withLock { $0.dropped } }

    /// When the oldest waiting message was queued (milliseconds since 1970).
    public var oldestQueuedAt: Int64? { state.withLock { $0.pending.first?.message.queuedAt } }

    /// True when nothing waits.
    public var isEmpty: Bool { depth == 0 }

    /// The oldest waiting message.
    public func peek() -> SpooledMessage? { state.withLock { $0.pending.first?.message } }

    /// Every waiting message, oldest first.
    public var messages: [SpooledMessage] { state.withLock { $0.pending.map(\.message) } }

    /// Appends `message` durably (write + fsync). When the bounds are exceeded the oldest messages
    /// are dropped; returns how many.
    @discardableResult
    public func append(_ message: SpooledMessage) throws(StorageError) -> Int {
        let line = Array(JSONValue.spoolLine(message).utf8) + [UInt8(ascii: "\n")]
        return try state.withLock { (s: inout State) throws(StorageError) -> Int in
            let fd = open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw StorageError(code: .spoolWriteFailed, "cannot open \(logPath)", errno: errno) }
            defer { close(fd) }
            if s.end == 0 { AtomicFile.syncDirectory(of: logPath) }
            do throws(StorageError) {
                try AtomicFile.writeAll(fd, line, path: logPath)
            } catch {
                throw StorageError(code: .spoolWriteFailed, error.message)
            }
            guard fsync(fd) == 0 else { throw StorageError(code: .spoolWriteFailed, "fsync \(logPath)", errno: errno) }
            s.entries.append(Entry(message: message, length: line.count))
            s.end += line.count
            var dropped = 0
            while s.entries.count - s.first > maxEvents || (s.end - s.head > maxBytes && s.entries.count - s.first > 1) {
                s.head += s.entries[s.first].length
                s.first += 1
                dropped += 1
            }
            if dropped > 0 {
                s.dropped += dropped
                try writeHead(&s)
            }
            try compactIfWorthIt(&s)
            return dropped
        }
    }

    /// Forgets the oldest message (it was delivered). The head offset is persisted in batches: a
    /// crash re-sends at most a few delivered messages.
    public func removeFirst() throws(StorageError) {
        try state.withLock { (s: inout State) throws(StorageError) in
            guard s.first < s.entries.count else { return }
            s.head += s.entries[s.first].length
            s.first += 1
            s.removalsSinceHeadWrite += 1
            if s.first == s.entries.count {
                try truncate(&s)
            } else if s.removalsSinceHeadWrite >= 32 {
                try writeHead(&s)
            }
        }
    }

    private func load() throws(StorageError) {
        guard let bytes = try AtomicFile.read(logPath) else { return }
        var head = 0
        if let headBytes = try AtomicFile.read(headPath),
            let value = Int(String(decoding: headBytes, as: UTF8.self).trimmingWhitespaceAndNewlines()),
            value >= 0, value <= bytes.count
        {
            head = value
        }
        var entries: [Entry] = []
        var offset = head
        var validEnd = head
        while offset < bytes.count {
            guard let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else { break }  // torn tail
            let line = Data(bytes[offset..<newline])
            if let message = try? JSONDecoder().decode(SpooledMessage.self, from: line) {
                entries.append(Entry(message: message, length: newline + 1 - offset))
            }
            offset = newline + 1
            validEnd = offset
        }
        state.withLock { s in
            s.entries = entries
            s.first = 0
            s.head = head
            s.end = validEnd
        }
        // Rewrite without the delivered prefix, unreadable lines and any torn tail.
        try state.withLock { (s: inout State) throws(StorageError) in
            if s.pending.isEmpty { try truncate(&s) } else { try rewrite(&s) }
        }
    }

    private func writeHead(_ s: inout State) throws(StorageError) {
        try AtomicFile.write(Array("\(s.head)\n".utf8), to: headPath)
        s.removalsSinceHeadWrite = 0
    }

    /// Everything delivered: start both files afresh.
    private func truncate(_ s: inout State) throws(StorageError) {
        // Log first: a crash in between leaves a head beyond the (empty) log, which load ignores.
        let fd = open(logPath, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError(code: .spoolWriteFailed, "cannot truncate \(logPath)", errno: errno) }
        fsync(fd)
        close(fd)
        unlink(headPath)
        s.entries.removeAll()
        s.first = 0
        s.head = 0
        s.end = 0
        s.removalsSinceHeadWrite = 0
    }

    /// When most of the log is delivered prefix, rewrite it with only the waiting messages.
    private func compactIfWorthIt(_ s: inout State) throws(StorageError) {
        guard s.head > 4096, s.head > (s.end - s.head) else { return }
        try rewrite(&s)
    }

    private func rewrite(_ s: inout State) throws(StorageError) {
        let pending = Array(s.pending)
        var bytes: [UInt8] = []
        var entries: [Entry] = []
        for entry in pending {
            let line = Array(JSONValue.spoolLine(entry.message).utf8) + [UInt8(ascii: "\n")]
            bytes += line
            entries.append(Entry(message: entry.message, length: line.count))
        }
        // Order matters for crash safety: the new log (offset 0) lands before the head resets.
        unlink(headPath)
        try AtomicFile.write(bytes, to: logPath)
        s.entries = entries
        s.first = 0
        s.head = 0
        s.end = bytes.count
        s.removalsSinceHeadWrite = 0
    }
}

extension JSONValue {
    /// One spool line: the message as compact JSON (JSON text never holds a raw newline).
    static func spoolLine(_ message: SpooledMessage) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
