/// The agent's clock plus the one thing commands need beyond it: sleeping until a deadline
/// (`wait_for_tag_s`, `ttl_s`). Injected so tests move time by hand and never sleep.
package protocol CommandClock: AgentClock {
    /// Returns once the monotonic clock reached `deadline` (milliseconds); throws
    /// `CancellationError` when the task is cancelled first.
    func sleep(untilMonotonic deadline: Int64) async throws
}

extension SystemClock: CommandClock {
    package func sleep(untilMonotonic deadline: Int64) async throws {
        // Re-check after waking: Task.sleep may return a little early or late, the deadline is what counts.
        while true {
            let left = deadline - monotonicMilliseconds
            if left <= 0 { return }
            try await Task.sleep(for: .milliseconds(left))
        }
    }
}
