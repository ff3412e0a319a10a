import Glibc
import Synchronization

/// One dedicated thread that runs queued jobs one after another, for C libraries whose calls block
/// (pcsc-lite's `SCardGetStatusChange` and `SCardTransmit`). Async callers await the result through
/// a continuation, so the blocking call never occupies Swift's cooperative pool. The thread lives
/// until ``stop()`` and an empty queue.
///
/// It is also a `TaskExecutor` (issue 25): a task that prefers it (`Task(executorPreference:)`)
/// runs its nonisolated code on this thread, and ``run(_:)`` called from there runs the blocking
/// call at once instead of queueing it and waiting on a continuation — no thread hop and no wake-up
/// of another thread per call. Such a task must not outlive the thread (``stop()``): jobs queued
/// after the thread ended never run.
public final class JobThread: TaskExecutor, @unchecked Sendable {
    // `@unchecked`: `jobs` and `stopped` are only touched with `condition` held; `owner` is atomic.
    private let condition = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private var stopped = false
    /// `pthread_self()` of the thread once it runs (0 before: no thread has that identifier).
    private let owner = Atomic<UInt>(0)

    /// Starts the thread, named `name` (at most 15 bytes are kept, the kernel's limit). `prepare`, when
    /// given, runs on the thread before its first job (a library's own per-thread set-up).
    public init(name: String, prepare: (@Sendable () -> Void)? = nil) {
        startThread(name: name) { [self] in
            owner.store(UInt(pthread_self()), ordering: .releasing)
            prepare?()
            runLoop()
        }
    }

    /// True when the caller runs on this thread (a job, or a task that prefers this executor).
    public var isCurrent: Bool { owner.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Runs a task's job on the thread, after the jobs queued before it (`TaskExecutor`).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        submit { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    /// Queues `job`; it runs after every job queued before it. Jobs queued after ``stop()`` still run.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on the thread and returns its result (or error) to the awaiting task; called on
    /// the thread itself (``isCurrent``), runs it at once.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        if isCurrent { return try body() }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
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
