import CNFC
import POSIXThreads
import Synchronization

/// A cancellation flag for one queued job, set from any thread.
final class CancelToken: Sendable {
    private let flag = Atomic<Bool>(false)

    /// True once the task awaiting the job was cancelled.
    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    func cancel() { flag.store(true, ordering: .releasing) }
}

/// What lets another thread interrupt the libnfc thread: the open device (for
/// `nfc_abort_command`), which call is in flight, and the "abort the poll" request.
///
/// `nfc_abort_command` on `pn532_uart` wakes the `select()` a receive is blocked in, and libnfc
/// then sends the PN532 an ACK frame, which ends the chip's command. Called while no receive waits,
/// it only replaces the abort pipe (and leaks the old write end), so it is sent only while a call
/// is marked in flight, and every abortable loop also checks the flags between calls.
final class LibNFCAbortControl: @unchecked Sendable {
    // `@unchecked`: every field is read and written with `condition` held.
    private let condition = ConditionLock()
    private var device: OpaquePointer?
    private var inFlight: InFlight?
    private var pollAbortPending = false

    /// Which kind of call is blocking the libnfc thread.
    enum InFlight {
        /// A call made by ``LibNFCDevice/poll(modulations:timeout:)``.
        case poll(CancelToken)
        /// Any other call (transceive, select, presence check).
        case command(CancelToken)

        var token: CancelToken {
            switch self {
            case let .poll(token), let .command(token): token
            }
        }
    }

    /// Registers the open device (nil once it is being closed). Clears any stale poll abort.
    func setDevice(_ device: OpaquePointer?) {
        condition.lock()
        self.device = device
        pollAbortPending = false
        condition.unlock()
    }

    /// Runs one blocking libnfc call marked as in flight, so ``abortPoll()`` and
    /// ``cancel(_:)`` can interrupt it.
    func call<T>(_ kind: InFlight, _ body: () -> T) -> T {
        condition.lock()
        inFlight = kind
        condition.unlock()
        defer {
            condition.lock()
            inFlight = nil
            condition.unlock()
        }
        return body()
    }

    /// Asks the running poll — or, if none runs, the next one — to end now.
    func abortPoll() {
        condition.lock()
        pollAbortPending = true
        if case .poll = inFlight, let device { _ = nfc_abort_command(device) }
        condition.broadcast()
        condition.unlock()
    }

    /// Marks `token` cancelled and interrupts its call if it is the one in flight.
    func cancel(_ token: CancelToken) {
        condition.lock()
        token.cancel()
        if let inFlight, inFlight.token === token, let device { _ = nfc_abort_command(device) }
        condition.broadcast()
        condition.unlock()
    }

    /// Consumes a pending poll abort: true if one was requested.
    func takePollAbort() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let pending = pollAbortPending
        pollAbortPending = false
        return pending
    }

    /// Sleeps until `deadline`, or less when a poll abort or `token`'s cancellation arrives.
    func sleep(until deadline: ContinuousClock.Instant, token: CancelToken) {
        condition.lock()
        defer { condition.unlock() }
        while !pollAbortPending && !token.isCancelled {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return }
            condition.wait(atMost: left)
        }
    }
}
