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
///
/// The ring count and the idle flag change together, under one lock: the sender reads ``count``,
/// finds nothing to send and only then marks itself idle, and a message queued (and rung) in
/// between must keep it busy — with two separate values the late ``markIdle(after:)`` set idle
/// again after that ring, and ``EventPipeline/flush()`` returned while the message was still
/// queued (at shutdown the sender is cancelled right after: `status` offline could be lost).
final class Doorbell: Sendable {
    private struct Bell {
        var rings = 0
        var idle = true
    }

    private let bell = Watched(Bell())

    /// There may be something new to send.
    func ring() {
        bell.update { b in
            b.idle = false
            b.rings &+= 1
        }
    }

    /// How many times it rang: pass it to ``wait(after:orMilliseconds:)`` and ``markIdle(after:)``.
    var count: Int { bell.value.rings }

    /// True while the sender has nothing it can send now.
    var isIdle: Bool { bell.value.idle }

    /// The sender found nothing it can send after reading ``count`` as `seen`: it is idle, unless
    /// the bell rang since (what was rung for is not out yet).
    func markIdle(after seen: Int) {
        bell.update { b in
            if b.rings == seen { b.idle = true }
        }
    }

    /// Waits until the sender is idle.
    func waitUntilIdle() async { await bell.wait { $0.idle } }

    /// Waits until it rang after `seen` was read, or `timeout` ms passed (nil: no timeout).
    func wait(after seen: Int, orMilliseconds timeout: Int64?) async {
        guard let timeout else {
            _ = await bell.wait { $0.rings != seen }
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [bell] in _ = await bell.wait { $0.rings != seen } }
            group.addTask { try? await Task.sleep(for: .milliseconds(timeout)) }
            await group.next()
            group.cancelAll()
        }
    }
}
