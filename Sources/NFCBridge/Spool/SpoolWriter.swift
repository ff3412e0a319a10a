import POSIXThreads

/// The spool's writer thread: woken by every change, it runs ``EventSpool/writePass()`` (the
/// blocking file work) off the reader's path and off Swift's cooperative pool. While writes fail
/// it tries again every ``retryInterval``. The thread holds the spool only during a pass, so a
/// spool nobody uses any more goes away and its thread ends.
final class SpoolWriter: @unchecked Sendable {
    // `@unchecked`: `dirty`, `stopped` and `passes` are only touched with `condition` held.
    private let condition = ConditionLock()
    private var dirty = false
    private var stopped = false
    private var passes = 0

    /// How long the writer waits before trying a failed write again.
    static let retryInterval: Duration = .seconds(1)

    /// Starts the thread; false when the system refused one.
    func start(for spool: EventSpool) -> Bool {
        startThread(name: "spool-writer") { [weak spool, self] in
            var retrying = false
            while waitForWork(retrying: retrying) {
                guard let spool else { return }
                retrying = spool.writePass()
                finishedPass()
            }
        }
    }

    /// Something changed: wake the writer.
    func kick() {
        condition.withLock {
            dirty = true
            condition.signal()
        }
    }

    /// Lets the thread end.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    /// Blocks until `settled` holds after a pass (kicking the writer meanwhile).
    func waitUntil(_ settled: () -> Bool) {
        while !settled() {
            condition.lock()
            if stopped {
                condition.unlock()
                return
            }
            let seen = passes
            dirty = true
            condition.signal()
            while passes == seen && !stopped { condition.wait() }
            condition.unlock()
        }
    }

    /// Waits for a change (or, while `retrying`, at most ``retryInterval``); false once stopped.
    private func waitForWork(retrying: Bool) -> Bool {
        condition.withLock {
            while !dirty && !stopped {
                if retrying {
                    if !condition.wait(atMost: Self.retryInterval) { break }
                } else {
                    condition.wait()
                }
            }
            dirty = false
            return !stopped
        }
    }

    private func finishedPass() {
        condition.withLock {
            passes += 1
            condition.broadcast()
        }
    }
}

extension ConditionLock {
    /// Runs `body` with the lock held.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
