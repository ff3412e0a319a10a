import Synchronization

/// The ordered outbox and its one sender: retained state (latest value per topic), command
/// responses (a bounded queue) and the journal's events go out one message at a time, in the order
/// they were handed over. After a (re)connect the backlog (events from before it) waits for
/// ``drain()``, so the retained state queued meanwhile goes out first. A failed event is tried
/// again with a growing pause; an event leaves the journal only after its acknowledgement.
final class Outbox: Sendable {
    private enum Item {
        case event(SpooledMessage)
        case state(String, OutboundMessage)
        case response(OutboundMessage)
    }

    private struct State {
        var states: [String: (ticket: Int, message: OutboundMessage)] = [:]
        /// Per retained topic, the newest snapshot queued so far (``queueState(_:snapshot:)``).
        var snapshots: [String: Int] = [:]
        var responses: [(ticket: Int, message: OutboundMessage)] = []
        /// Events recorded before this ticket wait for ``drain()`` after a connect.
        var barrier = 0
        var holdBacklog = false
        /// The agent has seen the current connection come up (``connectionUp()``). The publisher
        /// says connected a moment before: until then no event goes, so the retained state of the
        /// connection is queued first.
        var linkUp = false
        /// The ticket the backlog is sent at once released.
        var backlogTicket = -1
        var failures = 0
        /// When a failed event may be tried again (real time: the agent's clock may be a test's).
        var retryAt: ContinuousClock.Instant?
        /// Per retained topic, the value last queued once the broker acknowledged it.
        var acknowledged: [String: [UInt8]] = [:]
    }

    /// At most this many command responses wait for the broker; beyond, a new one is dropped
    /// (counted in ``EventPipeline/Counters/responsesDropped`` and logged).
    static let responseLimit = 1000
    /// From this many waiting responses on, new requests are refused with `busy` (their refusals
    /// still fit below ``responseLimit``), so an answer is never dropped to make room.
    static let requestLimit = 900

    private let journal: EventJournal
    private let health: BrokerHealth
    private let publisher: any MessagePublisher
    private let logger: AgentLogger
    private let tickets: Tickets
    private let doorbell: Doorbell
    private let counters: Watched<EventPipeline.Counters>
    private let state = Mutex(State())

    init(
        journal: EventJournal, health: BrokerHealth, publisher: any MessagePublisher, logger: AgentLogger,
        tickets: Tickets, doorbell: Doorbell, counters: Watched<EventPipeline.Counters>
    ) {
        self.journal = journal
        self.health = health
        self.publisher = publisher
        self.logger = logger
        self.tickets = tickets
        self.doorbell = doorbell
        self.counters = counters
    }

    // MARK: - Queueing

    /// Queues retained state for `message.topic`, replacing a value not yet sent.
    ///
    /// `snapshot`: where the value was read in the order of reads of its source (larger: read
    /// later). Two tasks may read the same state and queue it in the opposite order (the connect
    /// publishing everything while the reader loop publishes what just changed): a value older
    /// than one already queued for the topic is dropped, so it can neither replace the newer one
    /// before it goes out nor be retained after it. Nil: no order (always queued).
    func queueState(_ message: OutboundMessage, snapshot: Int? = nil) {
        let queued = state.withLock { s -> (superseded: Bool, stale: Bool) in
            if let snapshot {
                if let newest = s.snapshots[message.topic], snapshot < newest { return (false, true) }
                s.snapshots[message.topic] = snapshot
            }
            s.acknowledged[message.topic] = nil
            return (s.states.updateValue((tickets.next(), message), forKey: message.topic) != nil, false)
        }
        if queued.superseded || queued.stale { counters.update { $0.coalesced += 1 } }
        if !queued.stale { doorbell.ring() }
    }

    /// Queues a command response; one beyond ``responseLimit`` is dropped, counted and logged
    /// (the first, then every hundredth).
    func queueResponse(_ message: OutboundMessage) {
        let dropped = state.withLock { s -> Int? in
            guard s.responses.count < Self.responseLimit else { return s.responses.count }
            s.responses.append((tickets.next(), message))
            return nil
        }
        if let waiting = dropped {
            let first = counters.update { c -> Bool in
                defer { c.responsesDropped += 1 }
                return c.responsesDropped % 100 == 0  // the first of a burst, then every hundredth
            }
            if first {
                logger.warning("response on \(message.topic) dropped: \(waiting) responses already wait for the broker (health: responses_dropped)")
            }
            return
        }
        doorbell.ring()
    }

    /// The retained value last queued for `topic`, once the broker acknowledged it (nil before).
    func acknowledgedState(of topic: String) -> [UInt8]? { state.withLock { $0.acknowledged[topic] } }

    /// True while fewer than ``requestLimit`` responses wait: a new request may be taken.
    var acceptsRequests: Bool { state.withLock { $0.responses.count < Self.requestLimit } }

    /// The connection came up: hold the backlog until ``drain()``.
    func connectionUp() {
        let barrier = tickets.current + 1
        state.withLock { s in
            s.linkUp = true
            s.holdBacklog = true
            s.barrier = barrier
            s.failures = 0
            s.retryAt = nil
        }
        doorbell.ring()
    }

    /// The connection went down: no event goes until the next ``connectionUp()``.
    func connectionDown() {
        state.withLock { $0.linkUp = false }
    }

    /// Releases the backlog after everything queued so far.
    func drain() {
        state.withLock { s in
            if s.holdBacklog {
                s.holdBacklog = false
                s.backlogTicket = tickets.next()
            }
            s.retryAt = nil
        }
        doorbell.ring()
    }

    // MARK: - Sending

    /// Sends until cancelled.
    func run() async {
        while !Task.isCancelled {
            let seen = doorbell.count
            if let item = nextItem() {
                await send(item)
                continue
            }
            doorbell.markIdle(after: seen)
            let retry = state.withLock { $0.retryAt }.map { at -> Int64 in
                max(1, ContinuousClock.now.duration(to: at).wholeMilliseconds)
            }
            await doorbell.wait(after: seen, orMilliseconds: retry)
        }
    }

    /// The next message to send: the oldest of the retained state / responses and the journal's
    /// first event (the backlog after a connect only once released). Nil when nothing can go now.
    private func nextItem() -> Item? {
        guard publisher.isConnected else {
            let dropped = state.withLock { s -> Int in
                s.states.removeAll()
                defer { s.responses.removeAll() }
                return s.responses.count
            }
            if dropped > 0 {
                counters.update { $0.responsesDropped += dropped }
                logger.warning("\(dropped) response(s) not sent: the broker connection is down")
            }
            return nil
        }
        let head = journal.head()
        let headTicket = head.map { journal.ticket(of: $0) }
        let now = ContinuousClock.now
        return state.withLock { s -> Item? in
            var eventTicket: Int?
            if let headTicket, s.linkUp, s.retryAt.map({ now >= $0 }) ?? true {
                let backlog = headTicket.map { $0 < s.barrier } ?? true
                if !(backlog && s.holdBacklog) {
                    eventTicket = backlog ? s.backlogTicket : headTicket
                }
            }
            let oldestState = s.states.min { $0.value.ticket < $1.value.ticket }
            let otherTicket = min(oldestState?.value.ticket ?? .max, s.responses.first?.ticket ?? .max)
            if let head, let eventTicket, eventTicket < otherTicket { return .event(head) }
            if let first = s.responses.first, first.ticket == otherTicket {
                s.responses.removeFirst()
                return .response(first.message)
            }
            if let oldestState {
                s.states.removeValue(forKey: oldestState.key)
                return .state(oldestState.key, oldestState.value.message)
            }
            return nil
        }
    }

    private func send(_ item: Item) async {
        switch item {
        case let .state(topic, message):
            do {
                try await health.deliver(message)
                state.withLock { $0.acknowledged[topic] = message.payload }
            } catch {
                if error as? PublisherError != .notConnected { logger.warning("publish to \(topic) failed: \(error)") }
            }
        case let .response(message):
            do {
                try await health.deliver(message)
            } catch {
                logger.warning("cannot publish the response on \(message.topic): \(error)")
            }
        case let .event(message):
            await sendEvent(message)
        }
    }

    private func sendEvent(_ message: SpooledMessage) async {
        let (payload, buffered) = await journal.outgoing(message)
        do {
            try await health.deliver(OutboundMessage(topic: message.topic, payload: payload))
        } catch PublisherError.notConnected {
            journal.failed(message)
            return  // the connection watcher wakes the sender when it is back
        } catch is CancellationError {
            return
        } catch let PublisherError.refused(error) where error.code == "payload_too_large" {
            // The broker will never take it: an error event says so, and the stream moves on.
            state.withLock { s in (s.failures, s.retryAt) = (0, nil) }
            await journal.refusedForSize(message, size: payload.count)
            return
        } catch {
            journal.failed(message)
            let attempts = state.withLock { s -> Int in
                s.failures += 1
                s.retryAt = ContinuousClock.now + .milliseconds(min(30_000, 250 << min(s.failures - 1, 7)))
                return s.failures
            }
            logger.warning("publish of \(message.topic) seq \(message.seq) failed (\(error)); attempt \(attempts), retrying")
            return
        }
        state.withLock { s in
            s.failures = 0
            s.retryAt = nil
        }
        await journal.delivered(message, buffered: buffered)
    }
}
