import FoundationEssentials
import Glibc
import Synchronization

/// Where every outgoing message passes. Nobody who hands it a message waits for the broker:
///
/// - **Events** get their envelope (`event_id`, `seq`, `ts`, `reader`, `type`, `buffered`) and are
///   appended to the durable ``EventSpool`` (write + fsync) before anything else happens to them;
///   ``emit(_:_:at:)`` returns once they are on disk.
/// - **Retained state** (``publishState(_:_:retain:)``) is kept per topic, latest value only.
/// - **Other messages** (command responses, ``send(_:)``) wait in a short in-memory queue.
///
/// One sender task (``start()``) publishes all of it, one message at a time and in order, and
/// removes an event from the spool only after its PUBACK. A message the broker has not acknowledged
/// is never sent a second time by the agent: the sender keeps waiting for it, across reconnects
/// (the MQTT library sends it again itself). A publish that waits longer than
/// ``acknowledgementDeadline`` marks the broker as stalled (logged, in `health`); after
/// ``recycleDeadline`` the connection is dropped and made again.
///
/// An event is sent with `buffered: false` when it goes out within a second of happening on the
/// connection that was up then; otherwise (broker away, stalled, reconnected since, a failed
/// attempt, or left by an earlier run) with `buffered: true`. Events are sent in spool order;
/// after a (re)connect, the retained state goes out before the backlog (``connectionUp()``,
/// ``drain()``).
public final class EventPipeline: Sendable {
    /// Counters for `health`.
    public struct Counters: Sendable, Equatable {
        /// Events published with `buffered: false`.
        public var publishedLive = 0
        /// Events appended to the spool (every event goes there first).
        public var appended = 0
        /// Events that had to wait in the spool: emitted while the broker was not connected, or
        /// whose first publish failed.
        public var spooled = 0
        /// Events published with `buffered: true`.
        public var replayed = 0
        /// Events lost: dropped by the spool's bounds (oldest first, or expired), or not writable.
        public var dropped = 0
        /// `event/error` notices saying that events were dropped (counted in ``appended`` too).
        public var dropNotices = 0
        /// Retained state updates replaced by a newer value before they went out.
        public var coalesced = 0
    }

    /// How the broker answers, as the sender sees it (for `health`).
    public struct BrokerStatus: Sendable, Equatable {
        /// How long the publish under way has waited for its acknowledgement (ms), nil when none waits.
        public var unacknowledgedMilliseconds: Int64?
        /// True while that wait is beyond ``EventPipeline/acknowledgementDeadline``.
        public var stalled = false
        /// Times the broker was found not acknowledging.
        public var stalls = 0
        /// Connections dropped because the broker did not acknowledge.
        public var recycles = 0
    }

    /// How long a publish may wait for its acknowledgement before the broker counts as stalled.
    public let acknowledgementDeadline: Duration
    /// How long a publish may wait before the connection is dropped and made again.
    public let recycleDeadline: Duration

    private let topics: TopicMap
    private let publisher: any MessagePublisher
    private let spool: EventSpool
    private let sequence: SequenceStore
    private let clock: any AgentClock
    private let logger: AgentLogger
    private let makeEventID: @Sendable (Date) -> String
    private let counters = Watched(Counters())
    private let state = Mutex(State())
    /// Bumped whenever there may be something new to send.
    private let wake = Watched(0)
    /// True while the sender has nothing it can send.
    private let idle = Watched(true)
    private let sender = Mutex<Task<Void, Never>?>(nil)
    /// The highest `seq` the broker acknowledged (this run).
    private let acknowledgedSeq = Watched<Int64>(0)

    /// An event of this run, not yet acknowledged: what decides its `buffered` flag and its place.
    private struct Pending {
        var ticket: Int
        var emittedAt: Int64
        var generation: Int
        var offline: Bool
        var failed = false
    }

    private struct State {
        var ticket = 0
        var states: [String: (ticket: Int, message: OutboundMessage)] = [:]
        var transient: [(ticket: Int, message: OutboundMessage)] = []
        var events: [String: Pending] = [:]
        /// Connections seen go down (an event emitted on an earlier one is buffered).
        var generation = 0
        /// Events emitted before this ticket wait for ``drain()`` after a connect.
        var barrier = 0
        var holdBacklog = false
        /// The ticket the backlog is sent at once released.
        var backlogTicket = -1
        var inFlightSince: Int64?
        var inFlightTopic = ""
        var lastRecycle: Int64?
        var broker = BrokerStatus()
        var failures = 0
        /// When a failed event may be tried again (real time: the agent's clock may be a test's).
        var retryAt: ContinuousClock.Instant?
        var unreportedDrop = EventSpool.Drop()
        var dropNotice: (pending: Bool, id: String?, seq: Int64?) = (false, nil, nil)
    }

    private enum Item {
        case event(SpooledMessage)
        case state(String, OutboundMessage)
        case transient(OutboundMessage)
    }

    /// Creates the pipeline. `eventIDs` makes the `event_id` of an event created at a date
    /// (default: a fresh ULID; tests pin it).
    public init(
        topics: TopicMap, publisher: any MessagePublisher, spool: EventSpool, sequence: SequenceStore,
        clock: any AgentClock, logger: AgentLogger, eventIDs: (@Sendable (Date) -> String)? = nil,
        acknowledgementDeadline: Duration = .seconds(10), recycleDeadline: Duration = .seconds(60)
    ) {
        self.makeEventID = eventIDs ?? { EventID.make(at: $0) }
        self.topics = topics
        self.publisher = publisher
        self.spool = spool
        self.sequence = sequence
        self.clock = clock
        self.logger = logger
        self.acknowledgementDeadline = acknowledgementDeadline
        self.recycleDeadline = recycleDeadline
    }

    /// The counters so far.
    public var statistics: Counters { counters.value }

    /// How the broker answers now.
    public var brokerStatus: BrokerStatus {
        let now = clock.monotonicMilliseconds
        return state.withLock { s in
            var status = s.broker
            status.unacknowledgedMilliseconds = s.inFlightSince.map { max(0, now - $0) }
            return status
        }
    }

    /// Returns once the counters satisfy `predicate` (e.g. "two events spooled").
    public func waitUntil(_ predicate: @escaping @Sendable (Counters) -> Bool) async {
        await counters.wait(until: predicate)
    }

    private func count(_ change: (inout Counters) -> Void) {
        counters.update(change)
    }

    private func poke() {
        idle.update { $0 = false }
        wake.update { $0 &+= 1 }
    }

    // MARK: - Submitting (never waits for the broker)

    /// Wraps `body` in the envelope of an event of `kind` and appends it to the spool (durably);
    /// the sender publishes it. `date` is the event's `ts` (default: now) — pass the time the
    /// retained state that goes with it carries, so `tag.since` and the `scanned` event's `ts`
    /// agree. Returns the payload as built (with `buffered: false`).
    @discardableResult
    public func emit(_ kind: EventKind, _ body: some Encodable & Sendable, at date: Date? = nil) async -> JSONValue {
        await emit(kind, body, at: date, isDropNotice: false)
    }

    @discardableResult
    private func emit(_ kind: EventKind, _ body: some Encodable & Sendable, at date: Date?, isDropNotice: Bool) async -> JSONValue {
        let date = date ?? clock.now
        let seq = sequence.next { error in
            // Counting goes on in memory: a full disk must not stop events.
            logger.error("cannot persist the event sequence: \(error.message)")
        }
        var envelope = EventEnvelope(
            body: body, eventID: makeEventID(date), seq: seq, date: date, reader: topics.id, type: kind, buffered: false)
        let encoder = JSONValueEncoder()
        let live: JSONValue
        let buffered: JSONValue
        do {
            live = try encoder.encode(envelope)
            envelope.buffered = true
            buffered = try encoder.encode(envelope)
        } catch {
            // The payload models encode strings, numbers and JSON values only: not expected.
            logger.error("event \(kind.rawValue) could not be encoded: \(error)")
            return .null
        }
        let id = envelope.eventID
        let offline = !publisher.isConnected
        let now = clock.monotonicMilliseconds
        state.withLock { s in
            s.ticket += 1
            s.events[id] = Pending(ticket: s.ticket, emittedAt: now, generation: s.generation, offline: offline)
            if isDropNotice { s.dropNotice = (true, id, seq) }
        }
        let message = SpooledMessage(topic: topics.topic(kind), payload: buffered, queuedAt: Timestamp.milliseconds(date))
        do {
            let drop = try spool.appendReportingDrops(message)
            count {
                $0.appended += 1
                if offline { $0.spooled += 1 }
                if isDropNotice { $0.dropNotices += 1 }
            }
            poke()
            if offline { logger.debug("event \(kind.rawValue) seq \(seq) spooled: the broker is away") }
            if drop.count > 0 { await report(drop) }
        } catch {
            state.withLock { _ = $0.events.removeValue(forKey: id) }
            count { $0.dropped += 1 }
            logger.error("event \(kind.rawValue) seq \(seq) lost: \(error.message)")
        }
        return live
    }

    /// Queues a retained state message (QoS 1); only the latest value per topic goes out. Skipped
    /// while disconnected — state is re-published on every connect.
    public func publishState(_ topic: String, _ payload: [UInt8], retain: Bool = true) async {
        guard publisher.isConnected else { return }
        let superseded = state.withLock { s -> Bool in
            s.ticket += 1
            let message = OutboundMessage(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain)
            return s.states.updateValue((s.ticket, message), forKey: topic) != nil
        }
        if superseded { count { $0.coalesced += 1 } }
        poke()
    }

    /// Queues a retained JSON state message (a payload model).
    public func publishState(_ topic: String, json payload: some Encodable & Sendable) async {
        do {
            await publishState(topic, try JSONValueEncoder().encode(payload).jsonBytes)
        } catch {
            logger.error("state \(topic) could not be encoded: \(error)")
        }
    }

    /// Queues a message that is neither an event nor retained state (a command response): sent in
    /// order, not spooled. Throws ``PublisherError/notConnected`` while disconnected.
    public func send(_ message: OutboundMessage) throws(PublisherError) {
        guard publisher.isConnected else { throw .notConnected }
        state.withLock { s in
            s.ticket += 1
            s.transient.append((s.ticket, message))
            if s.transient.count > Self.transientLimit { s.transient.removeFirst() }
        }
        poke()
    }

    /// At most this many command responses wait for the broker (the oldest is dropped beyond).
    static let transientLimit = 1000

    /// Waits until the broker acknowledged the event `payload` (as ``emit(_:_:at:)`` returned it),
    /// but never longer than `limit`, and not at all while the broker is away or already stalled
    /// (a publish waiting longer than `limit`): so a scan shows before its slow dump, without the
    /// reader ever waiting for a broker that does not answer.
    public func awaitAcknowledgement(of payload: JSONValue, upTo limit: Duration) async {
        guard let seq = payload["seq"]?.intValue, publisher.isConnected else { return }
        let now = clock.monotonicMilliseconds
        let stalled = state.withLock { s in s.inFlightSince.map { now - $0 >= Self.milliseconds(limit) } ?? false }
        guard !stalled, acknowledgedSeq.value < seq else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [acknowledgedSeq] in _ = await acknowledgedSeq.wait { $0 >= seq } }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// The connection came up: the backlog (events from before it) waits for ``drain()``, so the
    /// retained state queued meanwhile goes out first.
    public func connectionUp() {
        state.withLock { s in
            s.holdBacklog = true
            s.barrier = s.ticket + 1
            s.failures = 0
            s.retryAt = nil
        }
        poke()
    }

    /// The connection went down: events emitted so far go out as `buffered: true`.
    public func connectionDown() {
        state.withLock { $0.generation += 1 }
        poke()
    }

    /// Releases the backlog after everything queued so far. Call after (re)connecting and queueing
    /// the retained state.
    public func drain() async {
        state.withLock { s in
            if s.holdBacklog {
                s.holdBacklog = false
                s.ticket += 1
                s.backlogTicket = s.ticket
            }
            s.retryAt = nil
        }
        poke()
    }

    /// Waits until the sender has nothing left it can send now (everything queued is out, or
    /// waits for a connection).
    public func flush() async {
        await idle.wait { $0 }
    }

    /// ``flush()``, giving up after `limit` (a stalled broker at shutdown).
    public func flush(upTo limit: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in await flush() }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    // MARK: - The sender

    /// Starts the sender task (idempotent).
    public func start() {
        sender.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { [self] in await runSender() }
                    group.addTask { [self] in await watchAcknowledgements() }
                    await group.waitForAll()
                }
            }
        }
    }

    /// Stops the sender (what is still in the spool stays there for the next run).
    public func stop() async {
        let task = sender.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
    }

    private func runSender() async {
        while !Task.isCancelled {
            let seen = wake.value
            if let item = nextItem() {
                await send(item)
                continue
            }
            idle.update { $0 = true }
            let retry = state.withLock { $0.retryAt }.map { at -> Int64 in
                max(1, Self.milliseconds(ContinuousClock.now.duration(to: at)))
            }
            await waitForWake(after: seen, orMilliseconds: retry)
        }
    }

    private func waitForWake(after seen: Int, orMilliseconds timeout: Int64?) async {
        guard let timeout else {
            _ = await wake.wait { $0 != seen }
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [wake] in _ = await wake.wait { $0 != seen } }
            group.addTask { try? await Task.sleep(for: .milliseconds(timeout)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// The next message to send: the oldest of the retained state / responses and the spool's
    /// first event (the backlog after a connect only once released). Nil when nothing can go now.
    private func nextItem() -> Item? {
        guard publisher.isConnected else {
            let dropped = state.withLock { s -> Int in
                s.states.removeAll()
                defer { s.transient.removeAll() }
                return s.transient.count
            }
            if dropped > 0 { logger.warning("\(dropped) response(s) not sent: the broker connection is down") }
            return nil
        }
        expireOldEvents()
        let head = spool.peek()
        let now = ContinuousClock.now
        return state.withLock { s -> Item? in
            var eventTicket: Int?
            if let head, s.retryAt.map({ now >= $0 }) ?? true {
                let pending = head.eventID.flatMap { s.events[$0] }
                let backlog = pending.map { $0.ticket < s.barrier } ?? true
                if !(backlog && s.holdBacklog) {
                    eventTicket = backlog ? s.backlogTicket : pending?.ticket
                }
            }
            let oldestState = s.states.min { $0.value.ticket < $1.value.ticket }
            let otherTicket = min(oldestState?.value.ticket ?? .max, s.transient.first?.ticket ?? .max)
            if let head, let eventTicket, eventTicket < otherTicket { return .event(head) }
            if let first = s.transient.first, first.ticket == otherTicket {
                s.transient.removeFirst()
                return .transient(first.message)
            }
            if let oldestState {
                s.states.removeValue(forKey: oldestState.key)
                return .state(oldestState.key, oldestState.value.message)
            }
            return nil
        }
    }

    private func expireOldEvents() {
        do {
            let drop = try spool.expire(now: Timestamp.milliseconds(clock.now))
            if drop.count > 0 { Task { [self] in await report(drop) } }
        } catch {
            logger.error("spool: \(error.message)")
        }
    }

    private func send(_ item: Item) async {
        switch item {
        case let .state(topic, message):
            do {
                try await deliver(message)
            } catch {
                if error as? PublisherError != .notConnected { logger.warning("publish to \(topic) failed: \(error)") }
            }
        case let .transient(message):
            do {
                try await deliver(message)
            } catch {
                logger.warning("cannot publish the response on \(message.topic): \(error)")
            }
        case let .event(message):
            await sendEvent(message)
        }
    }

    private func sendEvent(_ message: SpooledMessage) async {
        let id = message.eventID
        let now = clock.monotonicMilliseconds
        let buffered = state.withLock { s -> Bool in
            guard let id, let pending = s.events[id] else { return true }  // from an earlier run
            return pending.offline || pending.failed || pending.generation != s.generation
                || now - pending.emittedAt >= Self.liveWindowMilliseconds
        }
        var payload = message.payload
        if case var .object(members) = payload {
            members["buffered"] = .bool(buffered)
            payload = .object(members)
        }
        do {
            try await deliver(OutboundMessage(topic: message.topic, payload: payload.jsonBytes))
        } catch PublisherError.notConnected {
            markFailed(id)
            return  // the connection watcher wakes the sender when it is back
        } catch is CancellationError {
            return
        } catch {
            markFailed(id)
            let attempts = state.withLock { s -> Int in
                s.failures += 1
                s.retryAt = ContinuousClock.now + .milliseconds(min(30_000, 250 << min(s.failures - 1, 7)))
                return s.failures
            }
            logger.warning("publish of \(message.topic) seq \(message.seq ?? 0) failed (\(error)); attempt \(attempts), retrying")
            return
        }
        do {
            try spool.remove(message)
        } catch {
            logger.error("spool: \(error.message)")
        }
        let notice = state.withLock { s -> EventSpool.Drop? in
            s.failures = 0
            s.retryAt = nil
            if let id { s.events.removeValue(forKey: id) }
            guard let id, s.dropNotice.id == id else { return nil }
            s.dropNotice = (false, nil, nil)
            guard s.unreportedDrop.count > 0 else { return nil }
            return claimDropNotice(&s)
        }
        count { buffered ? ($0.replayed += 1) : ($0.publishedLive += 1) }
        if let seq = message.seq { acknowledgedSeq.update { $0 = max($0, seq) } }
        if let notice { await emitDropNotice(notice) }
    }

    /// The first failed attempt of an event of this run: it now waits in the spool (`buffered`).
    private func markFailed(_ id: String?) {
        let first = state.withLock { s -> Bool in
            guard let id, let pending = s.events[id], !pending.failed, !pending.offline else { return false }
            s.events[id]?.failed = true
            return true
        }
        if first { count { $0.spooled += 1 } }
    }

    /// An event older than this when it goes out is marked `buffered`.
    static let liveWindowMilliseconds: Int64 = 1000

    /// Publishes through the publisher, noting how long it waits for its acknowledgement.
    private func deliver(_ message: OutboundMessage) async throws {
        let started = clock.monotonicMilliseconds
        state.withLock { s in
            s.inFlightSince = started
            s.inFlightTopic = message.topic
        }
        defer {
            let recovered = state.withLock { s -> Int64? in
                s.inFlightSince = nil
                s.lastRecycle = nil
                defer { s.broker.stalled = false }
                return s.broker.stalled ? clock.monotonicMilliseconds - started : nil
            }
            if let recovered { logger.notice("the broker acknowledged again after \(recovered / 1000) s") }
        }
        try await publisher.deliver(message)
    }

    /// Every second: is the publish under way overdue? Logs it once per stall, and recycles the
    /// connection every ``recycleDeadline`` while it lasts.
    private func watchAcknowledgements() async {
        let deadline = Self.milliseconds(acknowledgementDeadline)
        let recycle = Self.milliseconds(recycleDeadline)
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let now = clock.monotonicMilliseconds
            enum Action { case none, stalled(String, Int64), recycle(Int64) }
            let action = state.withLock { s -> Action in
                guard let since = s.inFlightSince else { return .none }
                let waited = now - since
                if !s.broker.stalled, waited >= deadline {
                    s.broker.stalled = true
                    s.broker.stalls += 1
                    return .stalled(s.inFlightTopic, waited)
                }
                if s.broker.stalled, waited >= recycle, now - (s.lastRecycle ?? since) >= recycle {
                    s.lastRecycle = now
                    s.broker.recycles += 1
                    return .recycle(waited)
                }
                return .none
            }
            switch action {
            case .none: break
            case let .stalled(topic, waited):
                logger.warning(
                    "the broker has not acknowledged \(topic) for \(waited / 1000) s: it may have stopped answering; "
                        + "events wait in the spool (\(spool.depth)), the reader goes on")
            case let .recycle(waited):
                logger.warning("no acknowledgement from the broker for \(waited / 1000) s: dropping the connection to make it again")
                publisher.recycleConnection()
            }
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    // MARK: - Dropped events

    /// Counts and logs events the spool's bounds dropped, and says so in an `event/error` (one at a
    /// time: while one waits in the spool, further drops are added to the next).
    private func report(_ drop: EventSpool.Drop) async {
        count { $0.dropped += drop.count }
        let range = drop.firstSeq.map { first in " (seq \(first)…\(drop.lastSeq ?? first))" } ?? ""
        logger.warning(
            drop.reason == "expired"
                ? "spool: dropped \(drop.count) event(s) older than spool.max_age_s\(range)"
                : "spool full: dropped the \(drop.count) oldest buffered event(s)\(range)")
        let notice = state.withLock { s -> EventSpool.Drop? in
            s.unreportedDrop.merge(drop)
            // The notice waiting in the spool was dropped itself: another one is due.
            if let seq = s.dropNotice.seq, let first = drop.firstSeq, let last = drop.lastSeq, first <= seq, seq <= last {
                s.dropNotice = (false, nil, nil)
            }
            guard !s.dropNotice.pending else { return nil }
            return claimDropNotice(&s)
        }
        if let notice { await emitDropNotice(notice) }
    }

    private func claimDropNotice(_ s: inout State) -> EventSpool.Drop {
        s.dropNotice = (true, nil, nil)
        defer { s.unreportedDrop = EventSpool.Drop() }
        return s.unreportedDrop
    }

    private func emitDropNotice(_ drop: EventSpool.Drop) async {
        await emit(.error, SpoolDropEvent(drop: drop), at: nil, isDropNotice: true)
    }
}

extension EventSpool.Drop {
    mutating func merge(_ other: EventSpool.Drop) {
        count += other.count
        if let first = other.firstSeq { firstSeq = min(firstSeq ?? first, first) }
        if let last = other.lastSeq { lastSeq = max(lastSeq ?? last, last) }
        if count == other.count { reason = other.reason }
    }
}

/// What command responses are published through: queued on the ``EventPipeline`` (sent in order
/// by its sender), so the command layer never waits for the broker.
struct PipelinePublisher: MessagePublisher {
    let pipeline: EventPipeline
    let underlying: any MessagePublisher

    var isConnected: Bool { underlying.isConnected }

    func publish(_ message: OutboundMessage) async throws {
        try pipeline.send(message)
    }

    func subscribe(to filter: String, qos: MessageQoS) async throws {
        try await underlying.subscribe(to: filter, qos: qos)
    }

    func events() -> AsyncStream<PublisherEvent> { underlying.events() }
}
