@testable import MQTTClient
import Testing

@Suite struct BackoffTests {
    let backoff = Backoff(policy: MQTTReconnectPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(30),
                                                      jitter: 0.2))

    @Test func doublesFromTheInitialDelayUpToTheMaximum() {
        // unitRandom 0.5 = no jitter.
        let delays = (1...9).map { backoff.delay(attempt: $0, unitRandom: 0.5) }
        #expect(delays == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
                           .seconds(30), .seconds(30), .seconds(30)])
        // A very long outage does not overflow.
        #expect(backoff.delay(attempt: 10_000, unitRandom: 0.5) == .seconds(30))
    }

    @Test func jitterSpreadsByTheConfiguredFraction() {
        #expect(backoff.delay(attempt: 3, unitRandom: 0) == .milliseconds(1600))
        #expect(backoff.delay(attempt: 3, unitRandom: 1) == .milliseconds(2400))
        for _ in 0..<100 {
            let delay = backoff.delay(attempt: 3)
            #expect(delay >= .milliseconds(1600) && delay <= .milliseconds(2400))
        }
    }

    @Test func outOfRangeSettingsAreClamped() {
        let odd = Backoff(policy: MQTTReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1),
                                                      jitter: 7))
        #expect(odd.delay(attempt: 1, unitRandom: 0) == .zero)
        #expect(odd.delay(attempt: 1, unitRandom: 1) == .milliseconds(200))
        #expect(odd.delay(attempt: 0, unitRandom: 0.5) == .milliseconds(100))
    }
}
