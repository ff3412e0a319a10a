import FoundationEssentials
import POSIXThreads
import Synchronization

/// The write-ahead spool: every event enters it before anything else happens to it, and leaves
/// only once the broker acknowledged it. libmosquitto only queues in memory (lost on exit), so
/// this file is what makes "never lose an event" true across broker outages, stalled brokers
/// *and* restarts.
///
/// Nobody who hands it a message waits for the disk: ``append(_:)`` puts the message in the
/// spool's memory and returns; the spool's own writer thread (``SpoolWriter``) appends what
/// arrived meanwhile in one write and one fsync (group commit) and persists the head. A write
/// that fails (a full or read-only disk) keeps every message in memory, is reported once per
/// outage through ``observeWrites(_:)`` and retried; once the disk is back the log is rewritten
/// with exactly the waiting messages (so a fragment of a cut write is never appended to).
///
/// Layout in the state directory (``SpoolFiles``): `spool.jsonl`, one JSON ``SpooledMessage`` per
/// line; `spool.head`, `<offset> <seq>`; `spool.live`, the events sent live (``LiveSends``). A
/// crash can at worst leave a torn last line (dropped on load and counted), lose what had not
/// reached the disk yet, or re-send events delivered just before it (same `event_id`; after a
/// kill also the same `buffered` flag): the head is never written beyond what the log holds, and a
/// head that is not where a line starts is taken as 0 and rewritten before anything is appended.
/// Unreadable lines are skipped and counted. The spool is bounded by count, bytes and age; beyond
/// them the OLDEST messages are dropped and counted, also those of a log that holds more at start.
package final class EventSpool: Sendable {
    /// Path of the append-only log.
    package let logPath: String
    /// Path of the head offset.
    package let headPath: String
    let files: SpoolFiles
    private let maxEvents: Int
    private let maxBytes: Int
    private let maxAgeMilliseconds: Int64?
    let state: Mutex<State>
    let writer = SpoolWriter()
    let observer = CallbackSlot<StorageError?>()
    let durableObserver = CallbackSlot<Int64>()

    /// Messages dropped by the bounds, oldest first: how many and their `seq` range.
    package struct Drop: Sendable, Equatable {
        /// How many.
        package var count = 0
        /// The lowest and highest `seq` dropped (nil when none was).
        package var firstSeq: Int64?
        package var lastSeq: Int64?
        /// Why: `full` (count or bytes) or `expired` (`spool.max_age_s`).
        package var reason = "full"

        mutating func merge(_ other: Drop) {
            count += other.count
            if let first = other.firstSeq { firstSeq = min(firstSeq ?? first, first) }
            if let last = other.lastSeq { lastSeq = max(lastSeq ?? last, last) }
            if count == other.count { reason = other.reason }
        }

        mutating func add(_ message: SpooledMessage) {
            count += 1
            firstSeq = min(firstSeq ?? message.seq, message.seq)
            lastSeq = max(lastSeq ?? message.seq, message.seq)
        }
    }

    /// What loading an earlier run's spool found wrong (logged by the agent, shown in `health`).
    package let corruptLineCount: Int
    /// True when the log ended in a torn line (a crash during an append).
    package let hadTornTail: Bool
    /// Which of the waiting events an earlier run sent live (`spool.live`), and the record of this
    /// run's.
    let liveSends: LiveSends

    /// Opens the spool in `directory`, loading what an earlier run left. `maxAgeSeconds` (nil: no
    /// limit) drops messages queued longer ago. Refuses a directory the spool cannot be written in
    /// or whose filesystem is (nearly) full, with the reason.
    package init(directory: String, maxEvents: Int, maxBytes: Int, maxAgeSeconds: Int? = nil) throws(StorageError) {
        files = SpoolFiles(logPath: AtomicFile.path(directory, "spool.jsonl"), headPath: AtomicFile.path(directory, "spool.head"))
        (logPath, headPath) = (files.logPath, files.headPath)
        self.maxEvents = max(1, maxEvents)
        self.maxBytes = max(1024, maxBytes)
        self.maxAgeMilliseconds = maxAgeSeconds.map { Int64(max(1, min($0, Int(Int32.max)))) * 1000 }
        try files.checkUsable()
        // Within the bounds, in their memory: a log holding more (the bounds were lowered while a
        // backlog waited) loses its oldest lines, counted and reported as any full spool's drop.
        let loaded = try files.load(maxEvents: self.maxEvents, maxBytes: self.maxBytes)
        var s = State()
        s.dropped = loaded.dropped.count
        s.droppedAtStart = loaded.dropped
        s.holdsUnreportedDrop = loaded.dropped.count > 0
        for (message, length) in loaded.messages {
            s.entries.append(Entry(message: message, length: length, line: nil))
            s.pendingBytes += length
        }
        s.written = s.entries.count
        s.fileEnd = s.pendingBytes
        s.highestSeq = loaded.highestSeq
        s.highestSeqOnDisk = loaded.highestSeq
        // Rewritten without the delivered prefix, dropped and unreadable lines and any torn tail,
        // with a head of 0, by the writer's first pass: before it appends anything, so no appended
        // line can fall behind a stale head, and on its thread, not the caller's.
        s.needsRewrite = loaded.needsRewrite
        state = Mutex(s)
        (corruptLineCount, hadTornTail) = (loaded.corrupt, loaded.torn)
        liveSends = LiveSends(directory: directory, spooled: Set(loaded.messages.map(\.message.seq)))
        guard writer.start(for: self) else {
            throw StorageError(code: .spoolWriteFailed, "cannot start the spool's writer thread (the system refused a thread)")
        }
        if loaded.needsRewrite { writer.kick() }
    }

    deinit {
        // Best effort: what the writer has not written yet goes now. Whoever needs it on disk
        // (the agent at its stop, a test before it reopens) calls ``persist()`` / ``waitUntilWritten()``:
        // the last reference may be the writer's own, and then this runs on its thread, later.
        for _ in 0..<3 where state.withLock({ !$0.isSettled && $0.failure == nil }) { _ = writePass() }
        writer.stop()
    }

    /// Messages waiting.
    package var depth: Int { state.withLock { $0.entries.count - $0.first } }

    /// Bytes of the waiting messages (as spool lines).
    package var byteCount: Int { state.withLock { $0.pendingBytes } }

    /// Messages dropped because the spool was full or they expired (since this process started;
    /// with those of an earlier run that opening the spool dropped).
    package var droppedCount: Int { state.withLock { $0.dropped } }

    /// The messages of an earlier run that opening the spool dropped, oldest first (its log held
    /// more than the bounds), for the caller to report; once: later calls return none. The log keeps
    /// them, and nothing is written, until the caller says the drop is reported
    /// (``dropsAtStartReported()``): its notice then goes to disk in the same rewrite that removes them.
    package func takeDropsAtStart() -> Drop {
        state.withLock { s in
            defer { s.droppedAtStart = Drop() }
            return s.droppedAtStart
        }
    }

    /// The drop ``takeDropsAtStart()`` returned is reported (its notice recorded): the writer may
    /// write again.
    package func dropsAtStartReported() {
        let held = state.withLock { s in
            defer { s.holdsUnreportedDrop = false }
            return s.holdsUnreportedDrop
        }
        if held { writer.kick() }
    }

    /// The highest `seq` the spool ever held (waiting, delivered or dropped; 0 if none).
    package var highestSeq: Int64 { state.withLock { $0.highestSeq } }

    /// When the oldest waiting message was queued (milliseconds since 1970).
    package var oldestQueuedAt: Int64? { state.withLock { $0.pending.first?.message.queuedAt } }

    /// True when nothing waits.
    package var isEmpty: Bool { depth == 0 }

    /// The oldest waiting message.
    package func peek() -> SpooledMessage? { state.withLock { $0.pending.first?.message } }

    /// Every waiting message, oldest first.
    package var messages: [SpooledMessage] { state.withLock { $0.pending.map(\.message) } }

    /// Whether `message` (an event of this run) has reached the disk. False during an outage for
    /// what arrived since it began.
    package func isDurable(_ message: SpooledMessage) -> Bool {
        state.withLock { s in
            guard let index = s.pending.firstIndex(where: { $0.message == message }) else { return true }
            return index < s.written
        }
    }

    /// The current write failure (nil while the disk takes the spool's writes).
    package var writeFailure: StorageError? { state.withLock { $0.failure } }

    /// Tells `handler` when writes start failing (the error, once per outage) and when they work
    /// again (nil). Called on the writer thread; a failure of a pass made before this call (the
    /// rewrite at start) is told at once, on the caller's.
    package func observeWrites(_ handler: @escaping @Sendable (StorageError?) -> Void) {
        // Set under the state's lock: the writer decides under it whether it tells a failure, so
        // exactly one of the two does.
        let missed = state.withLock { s -> StorageError? in
            observer.set(handler)
            s.isObserved = true
            guard let failure = s.failure, !s.isFailureReported else { return nil }
            s.isFailureReported = true
            return failure
        }
        if let missed { handler(missed) }
    }

    /// Tells `handler` the highest `seq` of each batch the writer made durable (on its thread).
    package func observeDurability(_ handler: @escaping @Sendable (Int64) -> Void) {
        durableObserver.set(handler)
    }

    /// Appends `message`; the writer thread makes it durable. Returns at once. When the count or
    /// byte bounds are exceeded the oldest messages are dropped; returns how many.
    @discardableResult
    package func append(_ message: SpooledMessage) -> Int {
        appendReportingDrops(message).count
    }

    /// ``append(_:)``, telling which messages the bounds dropped.
    package func appendReportingDrops(_ message: SpooledMessage) -> Drop {
        let line = Self.line(message)
        let drop = state.withLock { s -> Drop in
            s.entries.append(Entry(message: message, length: line.count, line: line))
            s.pendingBytes += line.count
            s.highestSeq = max(s.highestSeq, message.seq)
            var drop = Drop()
            while Self.exceedsBounds(count: s.entries.count - s.first, bytes: s.pendingBytes, maxEvents: maxEvents, maxBytes: maxBytes) {
                drop.add(s.entries[s.first].message)
                s.deliver()
            }
            s.dropped += drop.count
            return drop
        }
        writer.kick()
        return drop
    }

    /// Drops the waiting messages queued before `now - spool.max_age_s` (milliseconds since
    /// 1970); returns which.
    package func expire(now: Int64) -> Drop {
        guard let maxAge = maxAgeMilliseconds else { return Drop() }
        let drop = state.withLock { s -> Drop in
            var drop = Drop(reason: "expired")
            while s.first < s.entries.count, now - s.entries[s.first].message.queuedAt > maxAge {
                drop.add(s.entries[s.first].message)
                s.deliver()
            }
            s.dropped += drop.count
            return drop
        }
        if drop.count > 0 { writer.kick() }
        return drop
    }

    /// Forgets the oldest message (it was delivered); the writer persists the new head.
    package func removeFirst() {
        state.withLock { s in
            if s.first < s.entries.count { s.deliver() }
        }
        writer.kick()
    }

    /// Forgets `message` if it is still the oldest waiting one (it was delivered; the bounds may
    /// have dropped it meanwhile, and then nothing else is removed).
    package func remove(_ message: SpooledMessage) {
        let removed = state.withLock { s -> Bool in
            guard s.first < s.entries.count, s.entries[s.first].message == message else { return false }
            s.deliver()
            return true
        }
        if removed { writer.kick() }
    }

    /// Blocks until everything appended and removed so far is on disk, or writes are failing; while
    /// a drop at start is unreported (``takeDropsAtStart()``) it returns at once, having written
    /// nothing. For tests and the end of a run (``persist()``); never call it on the reader's path.
    package func waitUntilWritten() {
        writer.waitUntil { [self] in state.withLock { $0.isSettled || $0.failure != nil || $0.holdsUnreportedDrop } }
    }

    /// ``waitUntilWritten()`` on a thread of its own, so the awaiting task does not block.
    package func persist() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let started = startThread(name: "spool-persist") { [self] in
                waitUntilWritten()
                continuation.resume()
            }
            if !started { continuation.resume() }
        }
    }

    /// Whether `count` waiting events of `bytes` break the bounds: too many, or too many bytes while
    /// more than one waits (the newest is always kept). The one rule of appends and of loading.
    static func exceedsBounds(count: Int, bytes: Int, maxEvents: Int, maxBytes: Int) -> Bool {
        count > maxEvents || (bytes > maxBytes && count > 1)
    }

    static func line(_ message: SpooledMessage) -> [UInt8] {
        message.spoolLine
    }
}
