import Synchronization

/// The order messages were handed to the pipeline in. Events (``EventJournal``), retained state
/// and responses (``Outbox``) draw their tickets from one counter, so the sender can send them in
/// the order they came.
final class Tickets: Sendable {
    private let last = Mutex(0)

    /// The next ticket.
    func next() -> Int {
        last.withLock { value in
            value += 1
            return value
        }
    }

    /// The last ticket given.
    var current: Int { last.withLock { $0 } }
}

/// Wakes the sender: rung whenever there may be something new to send; the sender marks itself
/// idle when it has nothing it can send, and ``flush()`` waits for that.
final class Doorbell: Sendable {
    private let rings = Watched(0)
    private let idle = Watched(true)

    /// There may be something new to send.
    func ring() {
        idle.update { $0 = false }
        rings.update { $0 &+= 1 }
    }

    /// How many times it rang: pass it to ``wait(after:orMilliseconds:)``.
    var count: Int { rings.value }

    /// The sender has nothing it can send now.
    func markIdle() { idle.update { $0 = true } }

    /// Waits until the sender is idle.
    func waitUntilIdle() async { await idle.wait { $0 } }

    /// Waits until it rang after `seen` was read, or `timeout` ms passed (nil: no timeout).
    func wait(after seen: Int, orMilliseconds timeout: Int64?) async {
        guard let timeout else {
            _ = await rings.wait { $0 != seen }
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [rings] in _ = await rings.wait { $0 != seen } }
            group.addTask { try? await Task.sleep(for: .milliseconds(timeout)) }
            await group.next()
            group.cancelAll()
        }
    }
}
