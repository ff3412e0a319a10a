import FoundationEssentials
import Glibc

/// The time as the agent sees it: a monotonic clock for presence timings and command deadlines, a
/// wall clock for event timestamps, and sleeping until a monotonic deadline (`wait_for_tag_s`,
/// `ttl_s`). One clock drives the whole agent; injected so tests move time by hand and never sleep
/// (``ManualClock``).
package protocol AgentClock: Sendable {
    /// Milliseconds on a monotonic clock (only differences matter).
    var monotonicMilliseconds: Int64 { get }
    /// The wall-clock time, for `ts` and `since` fields.
    var now: Date { get }
    /// Returns once the monotonic clock reached `deadline` (milliseconds); throws
    /// `CancellationError` when the task is cancelled first.
    func sleep(untilMonotonic deadline: Int64) async throws
    /// Whether the wall clock is synchronized (nil: unknown), for `health.clock.synchronized`.
    var isSynchronized: Bool? { get }
}

extension AgentClock {
    /// Unknown unless the clock says.
    package var isSynchronized: Bool? { nil }
}

/// The real clocks.
package struct SystemClock: AgentClock {
    /// Creates the system clock.
    package init() {}

    package var monotonicMilliseconds: Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    package var now: Date { Date() }

    package var isSynchronized: Bool? { ClockSynchronization.isSynchronized }

    package func sleep(untilMonotonic deadline: Int64) async throws {
        // Re-check after waking: Task.sleep may return a little early or late, the deadline is what counts.
        while true {
            let left = deadline - monotonicMilliseconds
            if left <= 0 { return }
            try await Task.sleep(for: .milliseconds(left))
        }
    }
}
