/// One dedicated thread that runs queued jobs one after another, for C libraries whose calls block
/// (pcsc-lite's `SCardGetStatusChange` and `SCardTransmit`). Async callers await the result through
/// a continuation, so the blocking call never occupies Swift's cooperative pool. The thread lives
/// until ``stop()`` and an empty queue.
public final class JobThread: @unchecked Sendable {
    // `@unchecked`: `jobs` and `stopped` are only touched with `condition` held.
    private let condition = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private var stopped = false

    /// Starts the thread, named `name` (at most 15 bytes are kept, the kernel's limit). `prepare`, when
    /// given, runs on the thread before its first job (a library's own per-thread set-up).
    public init(name: String, prepare: (@Sendable () -> Void)? = nil) {
        startThread(name: name) { [self] in
            prepare?()
            runLoop()
        }
    }

    /// Queues `job`; it runs after every job queued before it. Jobs queued after ``stop()`` still run.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on the thread and returns its result (or error) to the awaiting task.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            submit {
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Lets the thread end once its queue is empty.
    public func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
