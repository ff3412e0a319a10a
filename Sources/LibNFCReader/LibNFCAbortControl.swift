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
/// is marked in flight, and every abortable loop also checks the flags between calls. A call in
/// flight may still be in a wait that watches no abort pipe (pn532_uart_send's ACK wait) or not
/// have reached its receive yet, which then watches the new pipe: so while an aborted call stays in
/// flight the abort is sent again every ``abortResendInterval``, up to ``abortResends`` times.
///
/// Every call marked in flight also has a deadline, watched by a thread of its own: libnfc bounds
/// each of its waits by the call's timeout, but a reader that trickles bytes, or a driver that
/// blocks where libnfc expects it not to, could still hold the libnfc thread. A call past its
/// deadline is aborted with `nfc_abort_command` and reported as expired (``call(_:deadline:_:)``).
final class LibNFCAbortControl: @unchecked Sendable {
    // `@unchecked`: every field is read and written with `condition` held.
    private let condition = ConditionLock()
    private var device: OpaquePointer?
    private var inFlight: InFlight?
    private var pollAbortPending = false
    /// When the call in flight must have returned.
    private var deadline: ContinuousClock.Instant?
    /// The call in flight passed its deadline (and was aborted).
    private var expired = false
    private var monitorStopped = false
    /// Until when the deadline thread sleeps (nil: until woken, or not asleep yet). A call whose
    /// deadline comes later does not wake it: it wakes at that time, finds the new deadline and
    /// sleeps on — so a run of short calls (a dump's exchanges) does not wake a third thread for
    /// each (issue 25).
    private var monitorSleepsUntil: ContinuousClock.Instant?
    /// When an abort sent to the call in flight is sent again, if it is still in flight then.
    private var abortResendAt: ContinuousClock.Instant?
    private var abortsResent = 0
    static let abortResendInterval: Duration = .milliseconds(100)
    static let abortResends = 10

    /// Starts the deadline thread; ``stopMonitor()`` ends it.
    init() {
        startThread(name: "libnfc-deadline") { [self] in watchDeadlines() }
    }

    /// Ends the deadline thread (the device is being freed).
    func stopMonitor() {
        condition.lock()
        monitorStopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func watchDeadlines() {
        condition.lock()
        defer { condition.unlock() }
        while !monitorStopped {
            let wake = [deadline, abortResendAt].compactMap { $0 }.min()
            guard let wake else {
                monitorSleepsUntil = nil
                condition.wait()
                continue
            }
            let now = ContinuousClock.now
            let left = now.duration(to: wake)
            if left > .zero {
                monitorSleepsUntil = wake
                condition.wait(atMost: left)
                continue
            }
            if let deadline, deadline <= now {
                expired = true
                self.deadline = nil
                abortInFlight()
            } else if abortResendAt != nil {
                abortsResent += 1
                abortResendAt = nil
                abortInFlight(resend: abortsResent < Self.abortResends)
            }
        }
    }

    /// `nfc_abort_command` for the call in flight, and (`resend`) again after
    /// ``abortResendInterval`` if it is still in flight then; `condition` held.
    private func abortInFlight(resend: Bool = true) {
        guard inFlight != nil, let device else { return }
        _ = nfc_abort_command(device)
        if resend { abortResendAt = ContinuousClock.now.advanced(by: Self.abortResendInterval) }
        condition.broadcast()
    }

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
    /// ``cancel(_:)`` can interrupt it, and aborts it when it has not returned within `limit`.
    /// `expired` is true when that happened: its result then says nothing about the tag.
    func call<T>(_ kind: InFlight, deadline limit: Duration, _ body: () -> T) -> (result: T, expired: Bool) {
        condition.lock()
        begin(kind, deadline: limit)
        condition.unlock()
        return finish(body())
    }

    /// ``call(_:deadline:_:)`` for a poll that waits long (InAutoPoll), or nil without running
    /// `body` when a poll abort or `token`'s cancellation is pending already: `nfc_abort_command`
    /// sent before the call waits would not reach it, so the check and the marking happen under
    /// one lock.
    func pollCall<T>(_ token: CancelToken, deadline limit: Duration, _ body: () -> T) -> (result: T, expired: Bool)? {
        condition.lock()
        if pollAbortPending || token.isCancelled {
            condition.unlock()
            return nil
        }
        begin(.poll(token), deadline: limit)
        condition.unlock()
        return finish(body())
    }

    /// Marks `kind` in flight with its deadline; `condition` held.
    private func begin(_ kind: InFlight, deadline limit: Duration) {
        let due = ContinuousClock.now.advanced(by: limit)
        inFlight = kind
        deadline = due
        expired = false
        abortResendAt = nil
        abortsResent = 0
        if monitorSleepsUntil.map({ due < $0 }) ?? true { condition.broadcast() }
    }

    /// Clears the call in flight and tells whether it expired.
    private func finish<T>(_ result: T) -> (result: T, expired: Bool) {
        condition.lock()
        inFlight = nil
        deadline = nil
        abortResendAt = nil
        let didExpire = expired
        expired = false
        condition.unlock()
        return (result, didExpire)
    }

    /// True once the call in flight passed its deadline (tests wait for it inside a call).
    var hasExpired: Bool {
        condition.lock()
        defer { condition.unlock() }
        return expired
    }

    /// Asks the running poll — or, if none runs, the next one — to end now.
    func abortPoll() {
        condition.lock()
        pollAbortPending = true
        if case .poll = inFlight { abortInFlight() }
        condition.broadcast()
        condition.unlock()
    }

    /// Marks `token` cancelled and interrupts its call if it is the one in flight.
    func cancel(_ token: CancelToken) {
        condition.lock()
        token.cancel()
        if let inFlight, inFlight.token === token { abortInFlight() }
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
