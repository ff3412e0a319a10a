import Synchronization

/// A value that tasks can wait on: the one waiter/signal helper of the agent. ``update(_:)``
/// changes the value and wakes every waiter whose condition now holds; ``wait(until:)`` returns
/// the first value that satisfies its condition (at once when the current one does).
///
/// ```swift
/// let stop = Watched(false)
/// Task { await stop.wait { $0 } ; … }   // one-shot signal
/// stop.update { $0 = true }
/// ```
///
/// A waiting task that is cancelled is woken with the value as it is; callers that care check
/// `Task.isCancelled` (or the condition) after ``wait(until:)`` returns.
package final class Watched<Value: Sendable>: Sendable {
    private struct Waiter {
        var id: UInt64
        var condition: @Sendable (Value) -> Bool
        var continuation: CheckedContinuation<Value, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Starts with `value`.
    package init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    /// The value now.
    package var value: Value { state.withLock { $0.value } }

    /// Changes the value, then wakes the waiters whose condition holds. Returns what `change` returns.
    @discardableResult
    package func update<Result>(_ change: (inout Value) -> Result) -> Result {
        let (result, ready, value) = state.withLock { s -> (Result, [CheckedContinuation<Value, Never>], Value) in
            let result = change(&s.value)
            var ready: [CheckedContinuation<Value, Never>] = []
            let value = s.value
            s.waiters.removeAll { waiter in
                guard waiter.condition(value) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return (result, ready, value)
        }
        for continuation in ready { continuation.resume(returning: value) }
        return result
    }

    /// Returns the first value (the current one included) for which `condition` holds, or the
    /// current value when the task is cancelled.
    @discardableResult
    package func wait(until condition: @escaping @Sendable (Value) -> Bool) async -> Value {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                let now: Value? = state.withLock { s in
                    if condition(s.value) || Task.isCancelled { return s.value }
                    s.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let woken = state.withLock { s -> (CheckedContinuation<Value, Never>, Value)? in
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return (s.waiters.remove(at: index).continuation, s.value)
            }
            if let (continuation, value) = woken { continuation.resume(returning: value) }
        }
    }
}
