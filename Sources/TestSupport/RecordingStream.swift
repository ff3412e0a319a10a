import Synchronization

/// Collects what an `AsyncStream` yields (MQTT messages, connection events) so a test can await
/// "the next element that matches" — no sleeping, no timing assertions; the suite's time limit
/// guards against a hang.
public final class RecordingStream<Element: Sendable>: Sendable {
    private let state = Mutex<(items: [Element], waiters: [CheckedContinuation<Void, Never>])>(([], []))
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
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for an element matching `predicate` after position `index`; returns its position and the element.
    @discardableResult
    public func next(after index: Int = -1, where predicate: @Sendable (Element) -> Bool) async -> (index: Int, element: Element) {
        while true {
            let (found, count): ((Int, Element)?, Int) = state.withLock { s in
                let start = max(0, index + 1)
                if start < s.items.count, let position = s.items[start...].firstIndex(where: predicate) {
                    return ((position, s.items[position]), s.items.count)
                }
                return (nil, s.items.count)
            }
            if let found { return found }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.items.count > count { return true }
                    s.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }
}
