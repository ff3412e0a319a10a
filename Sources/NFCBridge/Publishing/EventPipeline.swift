import FoundationEssentials
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
/// ``recycleDeadline`` (counted from the connection's start, too) the connection is dropped and
/// made again.
///
/// An event is sent with `buffered: false` when it goes out within a second of happening on the
/// connection that was up then; otherwise (broker away, stalled, reconnected since, a failed
/// attempt, or left by an earlier run) with `buffered: true` — except an event of an earlier run
/// that went out live before a kill: it goes again as its first copy did (``LiveSends``). Events are sent in spool order;
/// after a (re)connect, the retained state goes out before the backlog (``connectionUp()``,
/// ``drain()``).
package final class EventPipeline: Sendable {
    /// Counters for `health`.
    package struct Counters: Sendable, Equatable {
        /// Events published with `buffered: false`.
        package var publishedLive = 0
        /// Events appended to the spool (every event goes there first).
        package var appended = 0
        /// Events that had to wait in the spool: emitted while the broker was not connected, or
        /// whose first publish failed.
        package var spooled = 0
        /// Events published with `buffered: true`.
        package var replayed = 0
        /// Events lost: dropped by the spool's bounds (oldest first, or expired), or not writable.
        package var dropped = 0
        /// `event/error` notices saying that events were dropped (counted in ``appended`` too).
        package var dropNotices = 0
        /// Retained state updates replaced by a newer value before they went out, or dropped
        /// because a newer value was queued first.
        package var coalesced = 0
        /// Outages of the state directory (the first failed spool write of each; see
        /// ``EventSpool/writeFailure`` for the current one).
        package var spoolWriteFailures = 0
        /// Command responses that never reached the broker: the connection went down under them,
        /// or the response queue was full (requests are refused with `busy` well before).
        package var responsesDropped = 0
        /// Events the broker refused for their size, each replaced by an `event/error`
        /// `payload_too_large`.
        package var refusedForSize = 0
    }

    /// How long a publish may wait for its acknowledgement before the broker counts as stalled.
    package var acknowledgementDeadline: Duration { health.acknowledgementDeadline }
    /// How long a publish may wait before the connection is dropped and made again.
    package var recycleDeadline: Duration { health.recycleDeadline }

    private let publisher: any MessagePublisher
    private let logger: AgentLogger
    private let counters = Watched(Counters())
    private let doorbell = Doorbell()
    private let journal: EventJournal
    private let health: BrokerHealth
    private let outbox: Outbox
    private let sender = Mutex<Task<Void, Never>?>(nil)

    /// Creates the pipeline. `eventIDs` makes the `event_id` of an event created at a date
    /// (default: a fresh ULID; tests pin it).
    package init(
        topics: TopicMap, publisher: any MessagePublisher, spool: EventSpool, sequence: SequenceStore,
        clock: any AgentClock, logger: AgentLogger, eventIDs: (@Sendable (Date) -> String)? = nil,
        acknowledgementDeadline: Duration = .seconds(10), recycleDeadline: Duration = .seconds(60),
        liveWindow: Duration = .seconds(2)
    ) {
        self.publisher = publisher
        self.logger = logger
        let tickets = Tickets()
        journal = EventJournal(
            topics: topics, spool: spool, sequence: sequence, clock: clock, logger: logger,
            eventIDs: eventIDs ?? { EventID.make(at: $0) }, isConnected: { publisher.isConnected },
            tickets: tickets, doorbell: doorbell, counters: counters, liveWindow: liveWindow)
        health = BrokerHealth(
            publisher: publisher, clock: clock, logger: logger, acknowledgementDeadline: acknowledgementDeadline,
            recycleDeadline: recycleDeadline, backlog: { spool.depth })
        outbox = Outbox(
            journal: journal, health: health, publisher: publisher, logger: logger, tickets: tickets,
            doorbell: doorbell, counters: counters)
        journal.watchSpoolWrites()
    }

    /// The counters so far.
    package var statistics: Counters { counters.value }

    /// How the broker answers now.
    package var brokerStatus: BrokerStatus { health.status }

    /// Returns once the counters satisfy `predicate` (e.g. "two events spooled").
    package func waitUntil(_ predicate: @escaping @Sendable (Counters) -> Bool) async {
        await counters.wait(until: predicate)
    }

    // MARK: - Submitting (never waits for the broker)

    /// Wraps `body` in the envelope of an event of `kind` and appends it to the spool (durably);
    /// the sender publishes it. `date` is the event's `ts` (default: now) — pass the time the
    /// retained state that goes with it carries, so `tag.since` and the `scanned` event's `ts`
    /// agree. Returns the event's `seq` and `event_id`, nil when it could not be written (logged
    /// and counted in ``Counters/dropped``).
    @discardableResult
    package func emit(_ kind: EventKind, _ body: some Encodable & Sendable, at date: Date? = nil) async -> EventReceipt? {
        await journal.record(kind, body, at: date)
    }

    /// Queues a retained state message (QoS 1); only the latest value per topic goes out. Skipped
    /// while disconnected — state is re-published on every connect.
    ///
    /// `snapshot`: the payload's place in the order its source was read (larger: read later); a
    /// payload read before one already queued for the topic is dropped — it is out of date (see
    /// ``Outbox/queueState(_:snapshot:)``). Nil: always queued.
    package func publishState(_ topic: String, _ payload: [UInt8], retain: Bool = true, snapshot: Int? = nil) async {
        guard publisher.isConnected else { return }
        outbox.queueState(OutboundMessage(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain), snapshot: snapshot)
    }

    /// True once the broker acknowledged `payload` as the value last queued for the retained `topic`.
    package func isAcknowledged(state topic: String, _ payload: [UInt8]) -> Bool {
        outbox.acknowledgedState(of: topic) == payload
    }

    /// Queues a retained JSON state message (a payload model).
    package func publishState(_ topic: String, json payload: some Encodable & Sendable, snapshot: Int? = nil) async {
        do {
            await publishState(topic, try JSONWire.bytes(payload), snapshot: snapshot)
        } catch {
            logger.error("state \(topic) could not be encoded: \(error)")
        }
    }

    /// Queues a message that is neither an event nor retained state (a command response): sent in
    /// order, not spooled. Throws ``PublisherError/notConnected`` while disconnected.
    package func send(_ message: OutboundMessage) throws(PublisherError) {
        guard publisher.isConnected else { throw .notConnected }
        outbox.queueResponse(message)
    }

    /// False while the response queue is nearly full: the command layer refuses a new request
    /// with `busy` rather than let an answer be dropped.
    package var acceptsRequests: Bool { outbox.acceptsRequests }

    /// Waits until the broker acknowledged the event `receipt` names, but never longer than
    /// `limit`, and not at all while the broker is away or already stalled (a publish waiting
    /// longer than `limit`): so a scan shows before its slow dump, without the reader ever
    /// waiting for a broker that does not answer.
    package func awaitAcknowledgement(of receipt: EventReceipt?, upTo limit: Duration) async {
        guard let seq = receipt?.seq, publisher.isConnected else { return }
        guard !health.isWaiting(atLeast: limit), !journal.isAcknowledged(seq) else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [journal] in await journal.waitForAcknowledgement(of: seq) }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// The connection came up: the backlog (events from before it) waits for ``drain()``, so the
    /// retained state queued meanwhile goes out first.
    package func connectionUp() {
        health.connectionUp()
        outbox.connectionUp()
    }

    /// The connection went down: events emitted so far go out as `buffered: true`.
    package func connectionDown() {
        journal.connectionDown()
        health.connectionDown()
        outbox.connectionDown()
        doorbell.ring()
    }

    /// Releases the backlog after everything queued so far. Call after (re)connecting and queueing
    /// the retained state.
    package func drain() async { outbox.drain() }

    /// Waits until the sender has nothing left it can send now (everything queued is out, or
    /// waits for a connection).
    package func flush() async {
        await doorbell.waitUntilIdle()
    }

    /// ``flush()``, giving up after `limit` (a stalled broker at shutdown).
    package func flush(upTo limit: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in await flush() }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    // MARK: - The sender

    /// Starts the sender and the broker-health watcher (idempotent), first reporting what opening
    /// the spool dropped.
    package func start() {
        sender.withLock { task in
            guard task == nil else { return }
            task = Task { [outbox, health, journal] in
                await journal.reportDropsAtStart()
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await outbox.run() }
                    group.addTask { await health.watch() }
                    await group.waitForAll()
                }
            }
        }
    }

    /// Stops the sender; what is still in the spool is written to disk for the next run, and the
    /// sequence file gets the last number handed out.
    package func stop() async {
        let task = sender.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        await journal.persist()
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
