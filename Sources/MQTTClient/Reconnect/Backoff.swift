import FoundationEssentials

/// Exponential back-off with jitter: the pure arithmetic behind `MQTTReconnectPolicy`, kept apart
/// from the network loop so it can be tested with a pinned random source.
struct Backoff: Sendable {
    let policy: MQTTReconnectPolicy

    /// The delay before retry number `attempt` (1-based). `unitRandom` is a value in 0…1.
    func delay(attempt: Int, unitRandom: Double) -> Duration {
        let initial = Self.seconds(policy.initialDelay)
        let maximum = max(Self.seconds(policy.maximumDelay), 0)
        // 2^(attempt-1) as a Double built from its exponent (exact, no overflow in a long outage, and
        // no libm: `pow` brought 128 kB of libm's tables into the agent's RSS at the first reconnect).
        let power = Double(sign: .plus, exponent: min(max(attempt, 1) - 1, 64), significand: 1)
        let base = min(maximum, max(initial, 0) * power)
        let spread = min(max(policy.jitter, 0), 1)
        let factor = 1 + spread * (2 * min(max(unitRandom, 0), 1) - 1)
        return .milliseconds(Int64((base * factor * 1000).rounded()))
    }

    /// `base` spread by the policy's jitter (the waits after a session takeover,
    /// `TakeoverWatch.delay`, so two clients with one id do not come back in step).
    func jittered(_ base: Duration, unitRandom: Double = Double.random(in: 0...1)) -> Duration {
        let spread = min(max(policy.jitter, 0), 1)
        let factor = 1 + spread * (2 * min(max(unitRandom, 0), 1) - 1)
        return .milliseconds(Int64((Self.seconds(base) * factor * 1000).rounded()))
    }

    /// The delay before retry number `attempt`, using the system random generator.
    func delay(attempt: Int) -> Duration {
        delay(attempt: attempt, unitRandom: Double.random(in: 0...1))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
