import FoundationEssentials
import Glibc
import Synchronization

/// The durable write-ahead spool: every event is appended here (write + fsync) before anything
/// else happens to it, and leaves only once the broker acknowledged it. libmosquitto only queues
/// in memory (lost on exit), so this file is what makes "never lose an event" true across broker
/// outages, stalled brokers *and* restarts.
///
/// Layout in the state directory:
/// - `spool.jsonl`: append-only, one JSON ``SpooledMessage`` per line, fsync'd after every append
///   (appends that arrive while another is being written share its fsync);
/// - `spool.head`: `<offset> <seq>`: the byte offset of the first message not yet delivered, and
///   the highest `seq` the spool ever held (so a lost `sequence` file can be recovered even when
///   everything was delivered).
///
/// A crash can at worst leave a torn last line (dropped on load and counted: it was never
/// acknowledged to anyone). Unreadable lines are skipped and counted (``corruptLineCount``). The
/// head is written after every delivery, so a restart re-sends nothing that was acknowledged.
/// The spool is bounded by count, bytes and age; beyond them the OLDEST messages are dropped and
/// counted.
public final class EventSpool: Sendable {
    /// Path of the append-only log.
    public let logPath: String
    /// Path of the head offset.
    public let headPath: String
    private let maxEvents: Int
    private let maxBytes: Int
    private let maxAgeMilliseconds: Int64?
    private let state: Mutex<State>
    /// Appends waiting for the writer (group commit): a ticket and the line.
    private let queue = Mutex(Queue())

    /// Messages dropped by the bounds, oldest first: how many and their `seq` range.
    public struct Drop: Sendable, Equatable {
        /// How many.
        public var count = 0
        /// The lowest and highest `seq` dropped (nil when the payloads carried none).
        public var firstSeq: Int64?
        public var lastSeq: Int64?
        /// Why: `full` (count or bytes) or `expired` (`spool.max_age_s`).
        public var reason = "full"

        mutating func add(_ message: SpooledMessage) {
            count += 1
            if let seq = message.seq {
                firstSeq = min(firstSeq ?? seq, seq)
                lastSeq = max(lastSeq ?? seq, seq)
            }
        }
    }

    private struct Entry {
        var message: SpooledMessage
        var length: Int
    }

    private struct Queue {
        var nextTicket = 1
        var lines: [(ticket: Int, message: SpooledMessage, line: [UInt8])] = []
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
        var highestSeq: Int64 = 0
        /// The last ticket written (group commit) and what its batch dropped.
        var committed = 0
        var pending: ArraySlice<Entry> { entries[first...] }
    }

    /// What loading an earlier run's spool found wrong (logged by the agent, shown in `health`).
    public let corruptLineCount: Int
    /// True when the log ended in a torn line (a crash during an append).
    public let hadTornTail: Bool

    /// Opens the spool in `directory`, loading what an earlier run left. `maxAgeSeconds` (nil: no
    /// limit) drops messages queued longer ago.
    public init(directory: String, maxEvents: Int, maxBytes: Int, maxAgeSeconds: Int? = nil) throws(StorageError) {
        logPath = AtomicFile.path(directory, "spool.jsonl")
        headPath = AtomicFile.path(directory, "spool.head")
        self.maxEvents = max(1, maxEvents)
        self.maxBytes = max(1024, maxBytes)
        self.maxAgeMilliseconds = maxAgeSeconds.map { Int64(max(1, $0)) * 1000 }
        let loaded = try Self.load(logPath: logPath, headPath: headPath)
        state = Mutex(loaded.state)
        (corruptLineCount, hadTornTail) = (loaded.corrupt, loaded.torn)
    }

    /// Messages waiting.
    public var depth: Int { state.withLock { $0.entries.count - $0.first } }

    /// Bytes of the waiting messages.
    public var byteCount: Int { state.withLock { $0.end - $0.head } }

    /// Messages dropped because the spool was full or they expired (since this process started).
    public var droppedCount: Int { state.withLock { $0.dropped } }

    /// The highest `seq` the spool ever held (waiting, delivered or dropped; 0 if none).
    public var highestSeq: Int64 { state.withLock { $0.highestSeq } }

    /// When the oldest waiting message was queued (milliseconds since 1970).
    public var oldestQueuedAt: Int64? { state.withLock { $0.pending.first?.message.queuedAt } }

    /// True when nothing waits.
    public var isEmpty: Bool { depth == 0 }

    /// The oldest waiting message.
    public func peek() -> SpooledMessage? { state.withLock { $0.pending.first?.message } }

    /// Every waiting message, oldest first.
    public var messages: [SpooledMessage] { state.withLock { $0.pending.map(\.message) } }

    /// Appends `message` durably (write + fsync) and returns once it is on disk. Appends made by
    /// other tasks meanwhile go into the same write and fsync. When the count or byte bounds are
    /// exceeded the oldest messages are dropped; returns how many (and which) this append dropped.
    @discardableResult
    public func append(_ message: SpooledMessage) throws(StorageError) -> Int {
        try appendReportingDrops(message).count
    }

    /// ``append(_:)``, telling which messages the bounds dropped.
    public func appendReportingDrops(_ message: SpooledMessage) throws(StorageError) -> Drop {
        let line = Array(JSONValue.spoolLine(message).utf8) + [UInt8(ascii: "\n")]
        let ticket = queue.withLock { q in
            defer { q.nextTicket += 1 }
            q.lines.append((q.nextTicket, message, line))
            return q.nextTicket
        }
        return try state.withLock { (s: inout State) throws(StorageError) -> Drop in
            // Another append's write already carried this line (group commit).
            guard s.committed < ticket else { return Drop() }
            let batch = queue.withLock { q in
                defer { q.lines.removeAll() }
                return q.lines
            }
            let fd = open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                s.committed = batch.last?.ticket ?? ticket
                throw StorageError(code: .spoolWriteFailed, "cannot open \(logPath)", errno: errno)
            }
            defer { close(fd) }
            if s.end == 0 { AtomicFile.syncDirectory(of: logPath) }
            do throws(StorageError) {
                try AtomicFile.writeAll(fd, batch.flatMap(\.line), path: logPath)
            } catch {
                s.committed = batch.last?.ticket ?? ticket
                throw StorageError(code: .spoolWriteFailed, error.message)
            }
            s.committed = batch.last?.ticket ?? ticket
            guard fsync(fd) == 0 else { throw StorageError(code: .spoolWriteFailed, "fsync \(logPath)", errno: errno) }
            for item in batch {
                s.entries.append(Entry(message: item.message, length: item.line.count))
                s.end += item.line.count
                if let seq = item.message.seq { s.highestSeq = max(s.highestSeq, seq) }
            }
            var drop = Drop()
            while s.entries.count - s.first > maxEvents || (s.end - s.head > maxBytes && s.entries.count - s.first > 1) {
                drop.add(s.entries[s.first].message)
                s.head += s.entries[s.first].length
                s.first += 1
            }
            if drop.count > 0 {
                s.dropped += drop.count
                try writeHead(&s)
            }
            try compactIfWorthIt(&s)
            return drop
        }
    }

    /// Drops the waiting messages queued before `now - spool.max_age_s` (milliseconds since
    /// 1970); returns which.
    public func expire(now: Int64) throws(StorageError) -> Drop {
        guard let maxAge = maxAgeMilliseconds else { return Drop() }
        return try state.withLock { (s: inout State) throws(StorageError) -> Drop in
            var drop = Drop(reason: "expired")
            while s.first < s.entries.count, now - s.entries[s.first].message.queuedAt > maxAge {
                drop.add(s.entries[s.first].message)
                s.head += s.entries[s.first].length
                s.first += 1
            }
            guard drop.count > 0 else { return drop }
            s.dropped += drop.count
            if s.first == s.entries.count { try truncate(&s) } else { try writeHead(&s) }
            return drop
        }
    }

    /// Forgets the oldest message (it was delivered), and persists the new head at once: a
    /// restart sends nothing the broker acknowledged.
    public func removeFirst() throws(StorageError) {
        try state.withLock { (s: inout State) throws(StorageError) in
            guard s.first < s.entries.count else { return }
            s.head += s.entries[s.first].length
            s.first += 1
            if s.first == s.entries.count {
                try truncate(&s)
            } else {
                try writeHead(&s)
            }
        }
    }

    /// Forgets `message` if it is still the oldest waiting one (it was delivered; the bounds may
    /// have dropped it meanwhile, and then nothing else is removed).
    public func remove(_ message: SpooledMessage) throws(StorageError) {
        try state.withLock { (s: inout State) throws(StorageError) in
            guard s.first < s.entries.count, s.entries[s.first].message == message else { return }
            s.head += s.entries[s.first].length
            s.first += 1
            if s.first == s.entries.count {
                try truncate(&s)
            } else {
                try writeHead(&s)
            }
        }
    }

    /// Reads the log and head an earlier run left; returns the state, the unreadable lines and
    /// whether the last one was torn.
    private static func load(logPath: String, headPath: String) throws(StorageError)
        -> (state: State, corrupt: Int, torn: Bool)
    {
        var head = 0
        var highest: Int64 = 0
        if let headBytes = try AtomicFile.read(headPath) {
            let fields = String(decoding: headBytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            if let offset = fields.first.flatMap({ Int($0) }), offset >= 0 { head = offset }
            if fields.count > 1, let seq = Int64(fields[1]), seq >= 0 { highest = seq }
        }
        let bytes = try AtomicFile.read(logPath) ?? []
        if head > bytes.count { head = 0 }
        var entries: [Entry] = []
        var offset = 0
        var validEnd = 0
        var corrupt = 0
        var torn = false
        while offset < bytes.count {
            guard let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else {
                torn = true
                break
            }
            let line = Data(bytes[offset..<newline])
            let message = try? JSONDecoder().decode(SpooledMessage.self, from: line)
            if let seq = message?.seq { highest = max(highest, seq) }
            if offset >= head {
                if let message {
                    entries.append(Entry(message: message, length: newline + 1 - offset))
                } else {
                    corrupt += 1
                }
            }
            offset = newline + 1
            validEnd = offset
        }
        var s = State()
        s.entries = entries
        s.head = min(head, validEnd)
        s.end = validEnd
        s.highestSeq = highest
        // Rewrite without the delivered prefix, unreadable lines and any torn tail.
        if s.pending.isEmpty {
            if !bytes.isEmpty { try truncate(&s, logPath: logPath, headPath: headPath) }
        } else if corrupt > 0 || torn || s.head > 0 {
            try rewrite(&s, logPath: logPath, headPath: headPath)
        }
        return (s, corrupt, torn)
    }

    private func writeHead(_ s: inout State) throws(StorageError) {
        try Self.writeHead(&s, headPath: headPath)
    }

    private static func writeHead(_ s: inout State, headPath: String) throws(StorageError) {
        try AtomicFile.write(Array("\(s.head) \(s.highestSeq)\n".utf8), to: headPath)
    }

    private func truncate(_ s: inout State) throws(StorageError) {
        try Self.truncate(&s, logPath: logPath, headPath: headPath)
    }

    /// Everything delivered: the log starts afresh; the head keeps the highest `seq`.
    private static func truncate(_ s: inout State, logPath: String, headPath: String) throws(StorageError) {
        // Log first: a crash in between leaves a head beyond the (empty) log, which load ignores.
        let fd = open(logPath, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError(code: .spoolWriteFailed, "cannot truncate \(logPath)", errno: errno) }
        fsync(fd)
        close(fd)
        s.entries.removeAll()
        s.first = 0
        s.head = 0
        s.end = 0
        try writeHead(&s, headPath: headPath)
    }

    /// When most of the log is delivered prefix, rewrite it with only the waiting messages.
    private func compactIfWorthIt(_ s: inout State) throws(StorageError) {
        guard s.head > 4096, s.head > (s.end - s.head) else { return }
        try Self.rewrite(&s, logPath: logPath, headPath: headPath)
    }

    private static func rewrite(_ s: inout State, logPath: String, headPath: String) throws(StorageError) {
        let pending = Array(s.pending)
        var bytes: [UInt8] = []
        var entries: [Entry] = []
        for entry in pending {
            let line = Array(JSONValue.spoolLine(entry.message).utf8) + [UInt8(ascii: "\n")]
            bytes += line
            entries.append(Entry(message: entry.message, length: line.count))
        }
        // Order matters for crash safety: the old head goes before the new log (offset 0) lands,
        // so a crash in between never skips a waiting message (it may re-send delivered ones).
        unlink(headPath)
        try AtomicFile.write(bytes, to: logPath)
        s.entries = entries
        s.first = 0
        s.head = 0
        s.end = bytes.count
        try writeHead(&s, headPath: headPath)
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
