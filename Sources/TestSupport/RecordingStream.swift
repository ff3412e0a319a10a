import Synchronization

/// Collects what an `AsyncStream` yields (MQTT messages, connection events) so a test can await
/// "the next element that matches" — no sleeping, no timing assertions; the suite's time limit
/// guards against a hang (``next(after:timeout:where:)`` also gives up, so a test that waits for
/// something that never comes fails instead of holding up the whole run).
public final class RecordingStream<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts draining `stream`.
    public init(_ stream: AsyncStream<Element>) {
        let drain = Task { [weak self] in
            for await element in stream { self?.append(element) }
        }
        task.withLock { $0 = drain }
    }

    deinit { task.withLock { $0?.cancel() } }

    /// Everything received so far.
    public var received: [Element] { state.withLock { $0.items } }

    private func append(_ element: Element) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.items.append(element)
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The first element matching `predicate` after position `index`, with its position.
    private func match(after index: Int, _ predicate: (Element) -> Bool) -> (found: (Int, Element)?, count: Int) {
        state.withLock { s in
            let start = max(0, index + 1)
            if start < s.items.count, let position = s.items[start...].firstIndex(where: predicate) {
                return ((position, s.items[position]), s.items.count)
            }
            return (nil, s.items.count)
        }
    }

    /// Waits for an element matching `predicate` after position `index`; returns its position and the element.
    @discardableResult
    public func next(after index: Int = -1, where predicate: @Sendable (Element) -> Bool) async -> (index: Int, element: Element) {
        while true {
            let (found, count) = match(after: index, predicate)
            if let found { return found }
            await waitForMore(than: count)
        }
    }

    /// Like ``next(after:where:)``, but returns nil when `timeout` passes first or the waiting task
    /// is cancelled (a test's time limit) — a failure guard, never a timing assertion.
    public func next(
        after index: Int = -1, timeout: Duration, where predicate: @Sendable (Element) -> Bool
    ) async -> (index: Int, element: Element)? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let (found, count) = match(after: index, predicate)
            if let found { return found }
            if Task.isCancelled || ContinuousClock.now >= deadline { return nil }
            await waitForMore(than: count, until: deadline)
        }
    }

    /// Returns once more than `count` elements arrived, or (with a `deadline`) when it passes or
    /// the task is cancelled.
    private func waitForMore(than count: Int, until deadline: ContinuousClock.Instant? = nil) async {
        let id = state.withLock { s -> Int in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        let wake: @Sendable () -> Void = { [self] in
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
        let timer = deadline.map { deadline in
            Task {
                try? await Task.sleep(until: deadline)
                wake()
            }
        }
        defer { timer?.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.items.count > count { return true }
                    // Cancelled, or the timer already fired before this waiter was registered.
                    if let deadline, Task.isCancelled || ContinuousClock.now >= deadline { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            // Only bounded waits give up; the unbounded `next` keeps its old behaviour.
            if deadline != nil { wake() }
        }
    }
}
