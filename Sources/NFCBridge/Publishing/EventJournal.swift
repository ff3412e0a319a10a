import FoundationEssentials
import POSIXThreads
import Synchronization

/// The journal: gives each event its envelope (`event_id`, `seq`, `ts`, `reader`, `type`) and
/// appends it to the durable ``EventSpool`` before anything else happens to it; keeps, for each
/// event of this run not yet acknowledged, what decides its `buffered` flag; removes an event from
/// the spool once the broker acknowledged it; and reports events the spool's bounds dropped with
/// an `event/error` (``DropNotices``: one at a time, further drops go into the next notice).
final class EventJournal: Sendable {
    /// An event of this run, not yet acknowledged.
    private struct Pending {
        var ticket: Int
        var emittedAt: Int64
        var generation: Int
        var offline: Bool
        var failed = false
        /// Its last copy went live: ``LiveSends`` has it.
        var recordedLive = false
    }

    private struct State {
        var events: [String: Pending] = [:]
        /// Connections seen go down (an event emitted on an earlier one is buffered).
        var generation = 0
    }

    /// An event older than this when it goes out is marked `buffered` (`mqtt.live_window_s`).
    let liveWindowMilliseconds: Int64
    /// Writes that fail again within this long of working belong to the outage before.
    static let outageQuietMilliseconds: Int64 = 60_000

    private let topics: TopicMap
    private let spool: EventSpool
    private let sequence: SequenceStore
    private let clock: any AgentClock
    private let logger: AgentLogger
    private let makeEventID: @Sendable (Date) -> String
    private let isConnected: @Sendable () -> Bool
    private let tickets: Tickets
    private let doorbell: Doorbell
    private let counters: Watched<EventPipeline.Counters>
    private let state = Mutex(State())
    private let dropNotices = DropNotices()
    /// The highest `seq` the broker acknowledged (this run).
    private let acknowledgedSeq = Watched<Int64>(0)

    init(
        topics: TopicMap, spool: EventSpool, sequence: SequenceStore, clock: any AgentClock, logger: AgentLogger,
        eventIDs: @escaping @Sendable (Date) -> String, isConnected: @escaping @Sendable () -> Bool,
        tickets: Tickets, doorbell: Doorbell, counters: Watched<EventPipeline.Counters>, liveWindow: Duration
    ) {
        liveWindowMilliseconds = liveWindow.wholeMilliseconds
        self.topics = topics
        self.spool = spool
        self.sequence = sequence
        self.clock = clock
        self.logger = logger
        self.makeEventID = eventIDs
        self.isConnected = isConnected
        self.tickets = tickets
        self.doorbell = doorbell
        self.counters = counters
        // An event held back for its seq (``head()``) goes once the reservation is written.
        sequence.observeReservations { [doorbell] in doorbell.ring() }
    }

    // MARK: - Recording

    /// Wraps `body` in the envelope of an event of `kind` dated `date` (default: now) and appends
    /// it to the spool. Nil when it could not be encoded or written (logged and counted as dropped).
    func record(_ kind: EventKind, _ body: some Encodable & Sendable, at date: Date?) async -> EventReceipt? {
        await record(kind, body, at: date, isDropNotice: false)
    }

    private func record(_ kind: EventKind, _ body: some Encodable & Sendable, at date: Date?, isDropNotice: Bool) async
        -> EventReceipt?
    {
        let date = date ?? clock.now
        // Never waits for the disk: the sequence is reserved ahead, the spool's writer thread
        // makes the event durable (group commit).
        let seq = sequence.next()
        // Spooled as the copy a replay sends; the sender marks it live when it goes out in time.
        let envelope = EventEnvelope(
            body: body, eventID: makeEventID(date), seq: seq, date: date, reader: topics.id, type: kind, buffered: true)
        let message: SpooledMessage
        do {
            message = try envelope.spooled(topic: topics.topic(kind), queuedAt: Timestamp.milliseconds(date))
        } catch {
            // The payload models encode strings, numbers and JSON values only: not expected.
            logger.error("event \(kind.rawValue) could not be encoded: \(error)")
            return nil
        }
        let receipt = EventReceipt(seq: seq, eventID: envelope.eventID)
        let offline = !isConnected()
        let now = clock.monotonicMilliseconds
        state.withLock { s in
            s.events[receipt.eventID] = Pending(
                ticket: tickets.next(), emittedAt: now, generation: s.generation, offline: offline)
        }
        if isDropNotice { dropNotices.recorded(id: receipt.eventID, seq: seq) }
        let drop = spool.appendReportingDrops(message)
        counters.update {
            $0.appended += 1
            if offline { $0.spooled += 1 }
            if isDropNotice { $0.dropNotices += 1 }
        }
        doorbell.ring()
        logger.debug("event \(kind.rawValue) seq \(seq) \(offline ? "spooled: the broker is away" : "recorded")")
        if drop.count > 0 { await report(drop) }
        return receipt
    }

    // MARK: - The disk

    /// Reports a failing state directory once per outage (``SpoolWriteWatch``).
    func watchSpoolWrites() {
        SpoolWriteWatch.start(
            spool: spool, quietMilliseconds: Self.outageQuietMilliseconds, clock: clock, logger: logger, counters: counters
        ) { [self] failure in
            _ = await record(.error, SpoolWriteFailedEvent(failure: failure), at: nil)
        }
    }

    /// Blocks of the end of a run, on a thread of their own: everything waiting goes to disk and
    /// the sequence file gets the exact last number (a clean restart leaves no gap in `seq`).
    func persist() async {
        await reportDropsAtStart()
        await spool.persist()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let started = startThread(name: "sequence-close") { [sequence, logger] in
                do throws(StorageError) {
                    try sequence.close()
                } catch {
                    logger.warning("cannot write the last event sequence number: \(error.message)")
                }
                continuation.resume()
            }
            if !started { continuation.resume() }
        }
    }

    // MARK: - What the sender asks

    /// The oldest event in the spool (after dropping those older than `spool.max_age_s`), unless
    /// its `seq` is beyond the sequence file's reservation: then nil until the reservation is
    /// written (a crash now could give that number again; the sender is rung when it is).
    func head() -> SpooledMessage? {
        let drop = spool.expire(now: Timestamp.milliseconds(clock.now))
        if drop.count > 0 { Task { [self] in await report(drop) } }
        guard let head = spool.peek() else { return nil }
        return sequence.mayPublish(head.seq) ? head : nil
    }

    /// The ticket `message` was recorded with; nil for an event left by an earlier run.
    func ticket(of message: SpooledMessage) -> Int? {
        state.withLock { $0.events[message.eventID]?.ticket }
    }

    /// The payload to publish `message` with now, and whether it is `buffered`: it is, unless it
    /// goes out within ``liveWindowMilliseconds`` of being recorded, on the connection that was up
    /// then, at its first attempt; an event of an earlier run goes as its first copy went (live
    /// when ``LiveSends`` recorded it so: a kill after the PUBACK, before the head was on disk).
    /// How it goes is recorded (``LiveSends``, no fsync) before it goes.
    func outgoing(_ message: SpooledMessage) async -> (payload: [UInt8], buffered: Bool) {
        let now = clock.monotonicMilliseconds
        let earlier = spool.liveSends.earlierLiveSend(of: message.seq)
        // During a disk outage an event not on disk says so: a restart now would lose it.
        let durable = spool.writeFailure == nil || spool.isDurable(message)
        let (mark, wasLive) = state.withLock { s -> (LiveSends.Mark?, Bool) in
            let id = message.eventID
            guard let pending = s.events[id] else { return (earlier, earlier != nil) }
            let buffered = pending.offline || pending.failed || pending.generation != s.generation
                || now - pending.emittedAt >= liveWindowMilliseconds
            s.events[id]?.recordedLive = !buffered
            return (buffered ? nil : LiveSends.Mark(notDurable: !durable), pending.recordedLive)
        }
        if mark != nil || wasLive, let failure = await spool.liveSends.record(message.seq, mark) {
            logger.warning("spool: \(failure.message): a kill now may send a live event again as buffered")
        }
        let notDurable = mark?.notDurable ?? !durable
        guard let payload = message.copy(buffered: mark == nil, durable: !notDurable) else {
            logger.error("event \(message.kind.rawValue) seq \(message.seq) could not be encoded again: sent as spooled")
            return (message.payload, true)
        }
        return (payload, mark == nil)
    }

    /// The connection went down: events recorded so far go out as `buffered: true`.
    func connectionDown() {
        state.withLock { $0.generation += 1 }
    }

    /// The first failed attempt of an event of this run: it now waits in the spool (`buffered`).
    func failed(_ message: SpooledMessage) {
        let first = state.withLock { s -> Bool in
            guard let pending = s.events[message.eventID], !pending.failed, !pending.offline else { return false }
            s.events[message.eventID]?.failed = true
            return true
        }
        if first { counters.update { $0.spooled += 1 } }
    }

    /// The broker acknowledged `message` (sent `buffered` or not): it leaves the spool.
    func delivered(_ message: SpooledMessage, buffered: Bool) async {
        spool.remove(message)
        state.withLock { _ = $0.events.removeValue(forKey: message.eventID) }
        let notice = dropNotices.delivered(message.eventID)
        counters.update { buffered ? ($0.replayed += 1) : ($0.publishedLive += 1) }
        acknowledgedSeq.update { $0 = max($0, message.seq) }
        if let notice { await emitDropNotice(notice) }
    }

    /// The broker refuses `message` for its size (`size` bytes): it leaves the spool, replaced by
    /// an `event/error` `payload_too_large` naming its kind, `seq`, `event_id` and size.
    func refusedForSize(_ message: SpooledMessage, size: Int) async {
        spool.remove(message)
        state.withLock { _ = $0.events.removeValue(forKey: message.eventID) }
        counters.update { $0.refusedForSize += 1 }
        logger.error("event \(message.kind.rawValue) seq \(message.seq) (\(size) bytes) refused by the broker for its size: replaced by an event/error payload_too_large")
        acknowledgedSeq.update { $0 = max($0, message.seq) }
        _ = await record(
            .error, PayloadTooLargeEvent(kind: message.kind, seq: message.seq, eventID: message.eventID, size: size), at: nil)
    }

    /// Returns once the broker acknowledged the event with `seq` (this run), or the task is cancelled.
    func waitForAcknowledgement(of seq: Int64) async {
        _ = await acknowledgedSeq.wait { $0 >= seq }
    }

    /// True once the broker acknowledged the event with `seq` (this run).
    func isAcknowledged(_ seq: Int64) -> Bool { acknowledgedSeq.value >= seq }

    // MARK: - Dropped events

    /// Reports the events of an earlier run that opening the spool dropped (its log held more than
    /// the bounds) as any full spool's drop: counted, logged and said in an `event/error`.
    /// The dropped lines stay in the log until the notice is recorded, so a stop or crash before it
    /// leaves them to be dropped and reported by the next start. Called at the pipeline's start, and
    /// at ``persist()`` in case the pipeline never started.
    func reportDropsAtStart() async {
        let drop = spool.takeDropsAtStart()
        if drop.count > 0 {
            // A notice of its own, even while another drop's notice is on its way (an event recorded
            // before this call may have dropped a line and claimed it): the dropped lines leave the
            // log only in the rewrite that carries this notice.
            countAndLog(drop)
            counters.update { $0.dropNotices += 1 }
            _ = await record(.error, SpoolDropEvent(drop: drop), at: nil)
        }
        spool.dropsAtStartReported()
    }

    /// Counts and logs events the spool's bounds dropped, and says so in an `event/error`.
    private func report(_ drop: EventSpool.Drop) async {
        countAndLog(drop)
        if let notice = dropNotices.add(drop) { await emitDropNotice(notice) }
    }

    private func countAndLog(_ drop: EventSpool.Drop) {
        counters.update { $0.dropped += drop.count }
        let range = drop.firstSeq.map { first in " (seq \(first)…\(drop.lastSeq ?? first))" } ?? ""
        logger.warning(
            drop.reason == "expired"
                ? "spool: dropped \(drop.count) event(s) older than spool.max_age_s\(range)"
                : "spool full: dropped the \(drop.count) oldest buffered event(s)\(range)")
    }

    private func emitDropNotice(_ drop: EventSpool.Drop) async {
        _ = await record(.error, SpoolDropEvent(drop: drop), at: nil, isDropNotice: true)
    }
}
