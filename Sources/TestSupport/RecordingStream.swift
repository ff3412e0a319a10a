import Synchronization

/// Collects what an `AsyncStream` yields (MQTT messages, connection events) so a test can await
/// "the next element that matches" — no sleeping, no timing assertions. Every wait is bounded and
/// ends when the test's time limit cancels it (``next(after:where:)`` throws, ``next(after:timeout:where:)``
/// returns nil), so a test that waits for something that never comes fails instead of holding up the
/// whole run (a CI run was once killed at its 90-minute limit by one such wait).
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

    /// How long ``next(after:where:)`` waits before it gives up: a failure guard far above any wait a
    /// passing test has (a RabbitMQ node boots in up to 80 s on a loaded machine), never a timing assertion.
    public static var guardTimeout: Duration { .seconds(300) }

    /// Waits for an element matching `predicate` after position `index`; returns its position and the
    /// element. Throws ``RecordingStreamWaitFailed`` when nothing matching comes within
    /// ``guardTimeout`` or the waiting task is cancelled (a test's time limit), so a test that waits
    /// for something that never comes fails instead of holding up the whole run.
    @discardableResult
    public func next(after index: Int = -1, where predicate: @Sendable (Element) -> Bool) async throws -> (index: Int, element: Element) {
        guard let found = await next(after: index, timeout: Self.guardTimeout, where: predicate) else {
            let count = received.count
            throw RecordingStreamWaitFailed(
                description: Task.isCancelled
                    ? "cancelled (the test's time limit) while waiting for an element after #\(index) (\(count) received)"
                    : "nothing matching arrived after #\(index) within \(Self.guardTimeout) (\(count) received)")
        }
        return found
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
            if deadline != nil { wake() }
        }
    }
}

/// A wait on a ``RecordingStream`` that ended without its element: nothing matching came within the
/// guard time, or the test's time limit cancelled the wait.
public struct RecordingStreamWaitFailed: Error, CustomStringConvertible {
    /// What was waited for and how it ended.
    public let description: String
}
