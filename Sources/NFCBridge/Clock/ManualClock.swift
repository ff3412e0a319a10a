import FoundationEssentials
import Synchronization

/// A clock that only moves when told to (tests): ``advance(milliseconds:)`` moves the monotonic
/// and the wall clock together and wakes the sleepers whose deadline it passed (never wall-clock
/// time).
package final class ManualClock: AgentClock {
    private struct Sleeper {
        var deadline: Int64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var monotonic: Int64
        var date: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var nextSleeper: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Starts at `monotonic` milliseconds and wall-clock `date`.
    package init(monotonic: Int64 = 0, date: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Mutex(State(monotonic: monotonic, date: date))
    }

    package var monotonicMilliseconds: Int64 { state.withLock { $0.monotonic } }
    package var now: Date { state.withLock { $0.date } }

    package func sleep(untilMonotonic deadline: Int64) async throws {
        let id = state.withLock { s -> UInt64 in
            s.nextSleeper += 1
            return s.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume: Result<Void, any Error>? = state.withLock { s in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= s.monotonic { return .success(()) }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves both clocks forward and wakes the sleepers whose deadline passed.
    package func advance(milliseconds: Int64) {
        let due = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            s.monotonic += milliseconds
            s.date = s.date.addingTimeInterval(Double(milliseconds) / 1000)
            let ready = s.sleepers.filter { $0.value.deadline <= s.monotonic }
            for key in ready.keys { s.sleepers.removeValue(forKey: key) }
            return ready.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}
