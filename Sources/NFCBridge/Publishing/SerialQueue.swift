import Synchronization

/// Runs async operations one after another, in the order they were submitted. Publishing goes
/// through one of these so events leave in the order they happened even though callers run on
/// different tasks (an actor would interleave them at every `await`).
final class SerialQueue: Sendable {
    private let tail = Mutex<Task<Void, Never>?>(nil)

    /// Runs `operation` after everything submitted before it; returns its result. The operation
    /// runs to completion even if the caller is cancelled (a publish half done is worse).
    func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
        let task: Task<T, Never> = tail.withLock { tail in
            let previous = tail
            let task = Task<T, Never> {
                await previous?.value
                return await operation()
            }
            tail = Task { _ = await task.value }
            return task
        }
        return await task.value
    }
}
