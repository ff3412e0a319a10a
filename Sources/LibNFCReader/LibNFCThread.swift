import CNFC
import NFCCore
import POSIXThreads

/// The one thread on which a device's libnfc calls run, one job after another.
///
/// libnfc calls block (serial I/O with timeouts of hundreds of milliseconds). Running them on
/// Swift's cooperative pool would stall every task of the process on a 2-core board, so every call
/// is queued here and the caller awaits the result through a continuation. The thread lives as long
/// as the object; ``stop()`` lets it drain its queue and end.
final class LibNFCThread: @unchecked Sendable {
    // `@unchecked`: `jobs` and `stopped` are only touched with `condition` held.
    private let condition = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private var stopped = false

    /// Starts the thread. `name` (at most 15 characters are kept, the kernel's limit) shows in
    /// debuggers and `top -H`.
    init(name: String) {
        let shortName = String(name.prefix(15))
        // Linux applies a thread name only when the thread sets it itself (startThread does, and
        // so does the kernel-name call kept from before).
        startThread(name: shortName) { [self] in
            _ = cnfc_set_thread_name(shortName)
            runLoop()
        }
    }

    /// Queues `job`; it runs after every job queued before it. Jobs queued after ``stop()`` are
    /// still run (they are how a closing device releases libnfc).
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on the thread and returns its result to the awaiting task.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
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
    func stop() {
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
