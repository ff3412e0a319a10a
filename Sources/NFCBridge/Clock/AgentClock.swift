import FoundationEssentials
import Glibc
import Synchronization

/// The time as the agent sees it: a monotonic clock for presence timings and a wall clock for
/// event timestamps. Injected so tests drive time by hand.
package protocol AgentClock: Sendable {
    /// Milliseconds on a monotonic clock (only differences matter).
    var monotonicMilliseconds: Int64 { get }
    /// The wall-clock time, for `ts` and `since` fields.
    var now: Date { get }
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
}

/// A clock that only moves when told to (tests).
package final class ManualClock: AgentClock {
    private let state: Mutex<(monotonic: Int64, date: Date)>

    /// Starts at `monotonic` milliseconds and wall-clock `date`.
    package init(monotonic: Int64 = 0, date: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Mutex((monotonic, date))
    }

    package var monotonicMilliseconds: Int64 { state.withLock { $0.monotonic } }
    package var now: Date { state.withLock { $0.date } }

    /// Moves both clocks forward.
    package func advance(milliseconds: Int64) {
        state.withLock {
            $0.monotonic += milliseconds
            $0.date = $0.date.addingTimeInterval(Double(milliseconds) / 1000)
        }
    }
}
