import Foundation
import Testing

@testable import NFCBridge

/// The broker-health watcher on a clock that moves only when told (issue review2 A: a stall of
/// twice `recycle_after_s` cut reconnects still waiting for their CONNACK, and two of them made the
/// agent take an MQTT 5 broker for a 3.1.1 one).
@Suite(.timeLimit(.minutes(1))) struct BrokerHealthTests {
    /// Deliveries wait until ``release()`` (or until their task is cancelled).
    final class HeldPublisher: MessagePublisher {
        private let gate = Watched(false)
        var isConnected: Bool { true }
        func release() { gate.update { $0 = true } }
        func publish(_ message: OutboundMessage) async throws {
            await gate.wait { $0 }
            try Task.checkCancellation()
        }
        func subscribe(to filter: String, qos: MessageQoS) async throws {}
        func events() -> AsyncStream<PublisherEvent> { AsyncStream { $0.finish() } }
    }

    struct Setup {
        let clock = ManualClock()
        let publisher = HeldPublisher()
        let lines = Watched<[String]>([])
        let health: BrokerHealth

        init() {
            let lines = self.lines
            let logger = AgentLogger(level: .debug, journald: false, clock: clock, sink: { line in lines.update { $0.append(line) } })
            health = BrokerHealth(
                publisher: publisher, clock: clock, logger: logger, acknowledgementDeadline: .seconds(2),
                recycleDeadline: .seconds(4), backlog: { 0 })
        }

        /// Starts a delivery and returns once the watcher counts it in flight.
        func deliverInBackground() async -> Task<Void, any Error> {
            let task = Task { [health] in try await health.deliver(OutboundMessage(topic: "nfc/e2e/event/scanned", payload: [])) }
            while health.status.unacknowledgedMilliseconds == nil { await Task.yield() }
            return task
        }

        /// Moves the clock to `milliseconds` and checks.
        func check(at milliseconds: Int64) -> BrokerHealth.Finding {
            clock.advance(milliseconds: milliseconds - clock.monotonicMilliseconds)
            return health.check()
        }
    }

    @Test func aStalledPublishRecyclesOnlyAConnectionThatIsUpAndNotSoonerThanTheDeadlineAfterItCameUp() async throws {
        let setup = Setup()
        setup.health.connectionUp()
        let delivery = await setup.deliverInBackground()
        #expect(setup.check(at: 2000) == .stalled(topic: "nfc/e2e/event/scanned", waited: 2000))
        #expect(setup.check(at: 4000) == .recycle(waited: 4000))
        // The recycle dropped the connection; the reconnect waits for its CONNACK (the broker is
        // still frozen): nothing to cut, however long it takes.
        setup.health.connectionDown()
        #expect(setup.check(at: 8000) == .none)
        #expect(setup.check(at: 12000) == .none)
        // Connected again at 12 s: the next recycle comes 4 s later, not at once.
        setup.health.connectionUp()
        #expect(setup.check(at: 15999) == .none)
        #expect(setup.check(at: 16000) == .recycle(waited: 16000))
        #expect(setup.health.status.recycles == 2)
        delivery.cancel()
        _ = await delivery.result
    }

    @Test func theEndOfAStallIsLoggedOnlyWhenTheBrokerAcknowledged() async throws {
        let setup = Setup()
        setup.health.connectionUp()
        let cancelled = await setup.deliverInBackground()
        #expect(setup.check(at: 3000) == .stalled(topic: "nfc/e2e/event/scanned", waited: 3000))
        cancelled.cancel()
        _ = await cancelled.result
        #expect(!setup.lines.value.contains { $0.contains("acknowledged again") }, "a cancelled publish is no acknowledgement")

        let acknowledged = await setup.deliverInBackground()
        #expect(setup.check(at: 6000) == .stalled(topic: "nfc/e2e/event/scanned", waited: 3000))
        setup.publisher.release()
        try await acknowledged.value
        #expect(setup.lines.value.contains { $0.contains("the broker acknowledged again after 3 s") })
    }
}
