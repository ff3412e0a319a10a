import Synchronization

extension EventPipeline {
    /// How the broker answers, as the sender sees it (for `health`).
    package struct BrokerStatus: Sendable, Equatable {
        /// How long the publish under way has waited for its acknowledgement (ms), nil when none waits.
        package var unacknowledgedMilliseconds: Int64?
        /// True while that wait is beyond ``EventPipeline/acknowledgementDeadline``.
        package var stalled = false
        /// Times the broker was found not acknowledging.
        package var stalls = 0
        /// Connections dropped because the broker did not acknowledge.
        package var recycles = 0
    }
}

/// The broker-health watcher: every publish goes through ``deliver(_:)``, which notes how long it
/// waits for its acknowledgement. ``check()`` (every second, from ``watch()``) finds a publish
/// overdue: past ``acknowledgementDeadline`` the broker counts as stalled (logged once per stall,
/// in `health`); past ``recycleDeadline`` the connection is dropped and made again, and again
/// every ``recycleDeadline`` while the stall lasts — only a connection that is up, and never sooner
/// than ``recycleDeadline`` after it came up (``connectionUp()``): a reconnect still waiting for its
/// CONNACK is left alone (cutting it would look like a broker refusing MQTT 5).
final class BrokerHealth: Sendable {
    /// What one ``check()`` found.
    enum Finding: Equatable {
        /// Nothing overdue (or already reported).
        case none
        /// The publish to `topic` has waited `waited` ms: the broker just became stalled.
        case stalled(topic: String, waited: Int64)
        /// The stall lasted `waited` ms: time to drop the connection.
        case recycle(waited: Int64)
    }

    /// How long a publish may wait for its acknowledgement before the broker counts as stalled.
    let acknowledgementDeadline: Duration
    /// How long a publish may wait before the connection is dropped and made again.
    let recycleDeadline: Duration

    private struct State {
        var inFlightSince: Int64?
        var inFlightTopic = ""
        var lastRecycle: Int64?
        /// When the current connection came up; nil while there is none.
        var connectedSince: Int64?
        var status = EventPipeline.BrokerStatus()
    }

    private let publisher: any MessagePublisher
    private let clock: any AgentClock
    private let logger: AgentLogger
    /// Events waiting in the spool (for the stall's log line).
    private let backlog: @Sendable () -> Int
    private let state = Mutex(State())

    init(
        publisher: any MessagePublisher, clock: any AgentClock, logger: AgentLogger,
        acknowledgementDeadline: Duration, recycleDeadline: Duration, backlog: @escaping @Sendable () -> Int
    ) {
        self.publisher = publisher
        self.clock = clock
        self.logger = logger
        self.acknowledgementDeadline = acknowledgementDeadline
        self.recycleDeadline = recycleDeadline
        self.backlog = backlog
    }

    /// How the broker answers now.
    var status: EventPipeline.BrokerStatus {
        let now = clock.monotonicMilliseconds
        return state.withLock { s in
            var status = s.status
            status.unacknowledgedMilliseconds = s.inFlightSince.map { max(0, now - $0) }
            return status
        }
    }

    /// True while a publish has waited `limit` or longer for its acknowledgement.
    func isWaiting(atLeast limit: Duration) -> Bool {
        let now = clock.monotonicMilliseconds
        return state.withLock { s in s.inFlightSince.map { now - $0 >= limit.wholeMilliseconds } ?? false }
    }

    /// Publishes through the publisher, noting how long it waits for its acknowledgement.
    func deliver(_ message: OutboundMessage) async throws {
        let started = clock.monotonicMilliseconds
        state.withLock { s in
            s.inFlightSince = started
            s.inFlightTopic = message.topic
        }
        do {
            try await publisher.deliver(message)
        } catch {
            finish(started: started, acknowledged: false)
            throw error
        }
        finish(started: started, acknowledged: true)
    }

    /// The publish started at `started` ended; a stall it was in is over, and logged as over only
    /// when the broker `acknowledged` it (not when it failed or was cancelled).
    private func finish(started: Int64, acknowledged: Bool) {
        let recovered = state.withLock { s -> Int64? in
            s.inFlightSince = nil
            s.lastRecycle = nil
            defer { s.status.stalled = false }
            return s.status.stalled ? clock.monotonicMilliseconds - started : nil
        }
        if acknowledged, let recovered { logger.notice("the broker acknowledged again after \(recovered / 1000) s") }
    }

    /// A connection came up (the agent saw it connected): a recycle waits ``recycleDeadline`` from now.
    func connectionUp() {
        let now = clock.monotonicMilliseconds
        state.withLock { $0.connectedSince = now }
    }

    /// The connection went down: nothing to recycle until the next ``connectionUp()``.
    func connectionDown() {
        state.withLock { $0.connectedSince = nil }
    }

    /// Is the publish under way overdue? Counts a stall (once per stall) or a recycle.
    func check() -> Finding {
        let now = clock.monotonicMilliseconds
        let deadline = acknowledgementDeadline.wholeMilliseconds
        let recycle = recycleDeadline.wholeMilliseconds
        return state.withLock { s -> Finding in
            guard let since = s.inFlightSince else { return .none }
            let waited = now - since
            if !s.status.stalled, waited >= deadline {
                s.status.stalled = true
                s.status.stalls += 1
                return .stalled(topic: s.inFlightTopic, waited: waited)
            }
            // Timed from the latest of the publish, the last recycle and the connection's start.
            if s.status.stalled, let up = s.connectedSince, now - max(since, up, s.lastRecycle ?? since) >= recycle {
                s.lastRecycle = now
                s.status.recycles += 1
                return .recycle(waited: waited)
            }
            return .none
        }
    }

    /// Every second: ``check()``, logging a stall and recycling the connection as it finds.
    func watch() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            switch check() {
            case .none: break
            case let .stalled(topic, waited):
                logger.warning(
                    "the broker has not acknowledged \(topic) for \(waited / 1000) s: it may have stopped answering; "
                        + "events wait in the spool (\(backlog())), the reader goes on")
            case let .recycle(waited):
                logger.warning("no acknowledgement from the broker for \(waited / 1000) s: dropping the connection to make it again")
                publisher.recycleConnection()
            }
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds (rounded down).
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
