import Foundation

/// Collects what an `AsyncStream` yields so a test can await "the next element that matches".
/// The timeout is only a guard against a hang (the failure then lists everything seen); no test
/// measures time with it.
actor Inbox<Element: Sendable> {
    private var buffer: [Element] = []
    private var history: [Element] = []
    private var finished = false
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    /// Starts draining `stream` into a new inbox.
    static func draining(_ stream: AsyncStream<Element>) -> Inbox {
        let inbox = Inbox()
        Task {
            for await element in stream { await inbox.append(element) }
            await inbox.finish()
        }
        return inbox
    }

    /// Returns the next element matching `predicate`; elements before it are consumed.
    func next(timeout: Duration = .seconds(30), where predicate: @Sendable (Element) -> Bool) async throws -> Element {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let index = buffer.firstIndex(where: predicate) {
                let element = buffer[index]
                buffer.removeFirst(index + 1)
                return element
            }
            buffer.removeAll()
            if finished { throw InboxError("stream finished without a match; seen: \(history)") }
            if ContinuousClock.now >= deadline { throw InboxError("no match within \(timeout) (failure guard); seen: \(history)") }
            await waitForChange(until: deadline)
        }
    }

    /// `true` once the stream has finished.
    func isFinished(timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !finished && ContinuousClock.now < deadline { await waitForChange(until: deadline) }
        return finished
    }

    /// Everything received so far.
    var seen: [Element] { history }

    private func append(_ element: Element) {
        buffer.append(element)
        history.append(element)
        wakeAll()
    }

    private func finish() {
        finished = true
        wakeAll()
    }

    private func waitForChange(until deadline: ContinuousClock.Instant) async {
        let id = UUID()
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            await self?.wake(id)
        }
        await withCheckedContinuation { waiters[id] = $0 }
        timer.cancel()
    }

    private func wake(_ id: UUID) {
        waiters.removeValue(forKey: id)?.resume()
    }

    private func wakeAll() {
        let all = waiters
        waiters.removeAll()
        for waiter in all.values { waiter.resume() }
    }
}

struct InboxError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
