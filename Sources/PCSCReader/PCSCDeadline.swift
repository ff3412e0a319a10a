import CPCSCLite
import Dispatch
import NFCCore
import POSIXThreads
import Synchronization

/// The deadline of each `SCardTransmit`: pcsc-lite has no timeout per exchange, so a card that never
/// answers holds the PC/SC thread until the driver gives up (vpcd: never). ``begin(context:)`` arms a
/// timer on a Dispatch thread (never the cooperative pool, never the PC/SC thread); when it fires
/// first the deadline thread calls `SCardCancel` on the context. pcsc-lite 1.9.9 only cancels
/// `SCardGetStatusChange` with it, so when the exchange is still running after ``grace`` the PC/SC
/// thread is given up: ``onStuck`` tells the device, which fails the waiting caller with
/// ``NFCError/readerUnresponsive(_:)`` and moves to a new thread and context; the old thread ends
/// when its call returns. Where `SCardCancel` does end the exchange, ``end(_:)`` says the deadline
/// passed and the exchange fails with the same error, on the same thread.
final class PCSCDeadline: Sendable {
    /// The default limit of one exchange (a card answers in milliseconds; a reader's own timer is below 5 s).
    static let defaultLimit: Duration = .seconds(5)
    /// How long `SCardCancel` gets to end the exchange before the thread is given up.
    static let grace: Duration = .milliseconds(500)

    /// The limit of one exchange.
    let limit: Duration
    /// Called (on the deadline thread) when an exchange outlived its limit and `SCardCancel`: the label
    /// of the reader and the limit are in the message it gets.
    let onStuck = CallbackSlot<NFCError>()

    private struct Running {
        var serial: Int
        var context: SCARDCONTEXT
        var label: String
    }

    private struct State {
        var serial = 0
        var running: Running?
        var expired = false
    }

    private let state = Mutex(State())

    init(limit: Duration = PCSCDeadline.defaultLimit) {
        self.limit = limit
    }

    /// Arms the deadline of the exchange about to start on `context`; returns its serial for ``end(_:)``.
    func begin(context: SCARDCONTEXT, label: String) -> Int {
        let serial = state.withLock { state in
            state.serial += 1
            state.running = Running(serial: state.serial, context: context, label: label)
            state.expired = false
            return state.serial
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval(limit)) { [self] in expire(serial) }
        return serial
    }

    /// Disarms it; true when the deadline had passed (the exchange was cancelled or came back too late).
    func end(_ serial: Int) -> Bool {
        state.withLock { state in
            guard state.running?.serial == serial else { return true }
            state.running = nil
            return state.expired
        }
    }

    /// The error of an exchange that outlived the limit.
    func error(label: String, abandoned: Bool) -> NFCError {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        let what = abandoned
            ? "SCardCancel did not end it, so the PC/SC thread was left behind and the reader is opened anew"
            : "SCardCancel ended it"
        return .readerUnresponsive(
            "\(label): the card or reader did not answer within \(seconds) s (SCardTransmit); \(what). "
                + "Take the card away and present it again; if it keeps happening, unplug the reader")
    }

    private func expire(_ serial: Int) {
        let running: Running? = state.withLock { state in
            guard let running = state.running, running.serial == serial else { return nil }
            state.expired = true
            return running
        }
        guard let running else { return }
        _ = SCardCancel(running.context)
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval(Self.grace)) { [self] in
            let stuck = state.withLock { $0.running?.serial == serial }
            guard stuck else { return }
            onStuck(error(label: running.label, abandoned: true))
        }
    }

    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        .milliseconds(Int(duration.milliseconds))
    }
}
