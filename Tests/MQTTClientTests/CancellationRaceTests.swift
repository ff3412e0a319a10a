import MQTTClient
import Testing
import TestSupport

extension BrokerTests {
    /// Cancelling a request at the moment its acknowledgement arrives. The network thread answers
    /// the request while the task's cancellation handler runs: the Swift runtime holds the task's
    /// status lock while that handler waits for the session's lock, so a network thread that resumed
    /// the continuation with the session's lock held waited for the status lock in turn, and both
    /// waited for ever (the agent hung on a SIGTERM right after it connected). Thousands of requests
    /// each cancelled at a different point make that moment come up; every one must end.
    @Suite(.timeLimit(.minutes(2))) struct CancellationRaceTests {
        @Test func requestsCancelledAsTheirAcknowledgementsArriveAllEnd() async throws {
            let broker = try MosquittoBroker()
            let client = try MQTTClient(configuration: configuration(for: broker))
            try await client.connect()
            var cancelled = 0
            let rounds = 20_000
            for round in 0..<rounds {
                let request = Task {
                    if round.isMultiple(of: 2) {
                        try await client.publish(to: "race/\(round % 7)", text: "x", qos: .atLeastOnce)
                    } else {
                        try await client.subscribe(to: "race/\(round % 7)", qos: .atLeastOnce)
                    }
                }
                // A different delay before the cancel each round (0…399 µs, around a local round
                // trip): before, at and after the acknowledgement.
                let until = ContinuousClock.now + .microseconds(round % 400)
                while ContinuousClock.now < until {}
                request.cancel()
                if case .failure(let error) = await request.result {
                    #expect(error is CancellationError, "round \(round): \(error)")
                    cancelled += 1
                }
            }
            // Both outcomes came up, so cancels did land on both sides of the acknowledgements.
            #expect(cancelled > 0 && cancelled < rounds)
            await client.disconnect()
        }
    }
}
