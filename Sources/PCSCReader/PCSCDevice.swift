import CPCSCLite
import NFCCore
import POSIXThreads
import Synchronization

/// A contactless reader driven through pcscd (pcsc-lite): ACR122U, ACR1252U, ACR1552U, Identiv uTrust,
/// HID Omnikey, and vsmartcard's virtual reader in the tests. The second ``ReaderDevice`` next to libnfc's;
/// it owns no NFC logic: NFCCore identifies, reads and writes through the ``PCSCTransport`` it returns.
///
/// ```swift
/// let reader = PCSCDevice(connstring: "pcsc:ACS ACR1252 1S CL Reader PICC 00 00")   // or "pcsc:0"
/// _ = try await reader.open()
/// for transport in try await reader.poll(modulations: [.iso14443a, .iso15693], timeout: .seconds(1)) { … }
/// await reader.close()
/// ```
///
/// ## Threads, waiting and cancelling
///
/// Every `SCard*` call of a device runs on one thread the device owns (``JobThread``), one after another;
/// async callers wait on a continuation and never block Swift's cooperative pool. Card and reader
/// presence come from `SCardGetStatusChange` (events: the reader's state and the `\\?PnP?\Notification`
/// pseudo reader), never from polling the card. ``abort()`` and task cancellation end a waiting poll
/// with `SCardCancel`, the one pcsc-lite call made from another thread (it exists for that).
///
/// ## Readers that come and go, pcscd that stops
///
/// A reader that disappears ends the poll with ``NFCError/readerUnavailable(_:)``; so does pcscd
/// stopping (`SCARD_E_NO_SERVICE`). The caller closes the device (the context is released) and opens it
/// again with back-off, as the agent's reader loop does: ``open()`` establishes a new context and looks
/// the reader up again, so a reader plugged back in and a restarted pcscd are both picked up.
///
/// pcsc-lite has no timeout per `SCardTransmit`: ``PCSCDeadline`` bounds each one (5 s by default),
/// `SCardCancel` from the deadline thread, and a thread that even that leaves stuck is given up: the
/// caller gets ``NFCError/readerUnresponsive(_:)`` at the deadline, never later.
public final class PCSCDevice: ReaderDevice, Sendable {
    /// The reader as the connstring named it: its name, index, or nil for the first reader.
    public let selector: String?
    /// Exclusive or shared access to the card.
    public let shareMode: PCSCShareMode
    let control: PCSCWaitControl
    /// The thread and session in use; replaced when an exchange outlived its deadline and the thread
    /// was left behind (``PCSCDeadline``).
    private let lane: Mutex<Lane>

    /// The open session. `@unchecked`: only read and written by jobs on its lane's thread.
    final class SessionState: @unchecked Sendable {
        var session: PCSCSession?
    }

    /// One PC/SC thread and the session it owns.
    final class Lane: Sendable {
        let thread: JobThread
        let state = SessionState()
        /// The jobs submitted and not finished, by number: how a given-up lane fails its waiting callers.
        private let waiting = Mutex<(next: Int, fail: [Int: @Sendable (NFCError) -> Void])>((0, [:]))

        init() { thread = JobThread(name: "pcsc-device") }

        /// Runs `body` on the thread; resumed by the job, or failed by ``failAll(_:)`` when the lane is given up.
        func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            let once = ResumeOnce<T>()
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                once.set(continuation)
                let number = waiting.withLock { waiting in
                    waiting.next += 1
                    waiting.fail[waiting.next] = { error in once.resume(.failure(error)) }
                    return waiting.next
                }
                thread.submit { [self] in
                    let result = Result { try body() }
                    self.waiting.withLock { _ = $0.fail.removeValue(forKey: number) }
                    once.resume(result)
                }
            }
        }

        /// Fails every caller still waiting on this lane with `error`.
        func failAll(_ error: NFCError) {
            let failures = waiting.withLock { waiting in
                defer { waiting.fail = [:] }
                return Array(waiting.fail.values)
            }
            for fail in failures { fail(error) }
        }

        /// Closes the session and ends the thread once its running job (and those queued) are done.
        func retire() {
            let state = self.state
            thread.submit {
                state.session?.close()
                state.session = nil
            }
            thread.stop()
        }
    }


    /// The connstring prefix of this backend.
    public static let connstringPrefix = "pcsc"

    /// Prepares a device from a `pcsc:<reader name or index>` connstring (`pcsc` alone: the first reader);
    /// nothing is opened until ``open()``.
    public convenience init(connstring: String, shareMode: PCSCShareMode = .exclusive) {
        self.init(reader: Self.selector(of: connstring), shareMode: shareMode)
    }

    /// Prepares a device for the reader `reader` names (exact name, index in pcscd's list, or a prefix
    /// that fits one reader only; nil: the first).
    /// `transmitLimit` bounds each `SCardTransmit` (``PCSCDeadline``).
    public init(reader: String?, shareMode: PCSCShareMode = .exclusive, transmitLimit: Duration = .seconds(5)) {
        self.selector = reader
        self.shareMode = shareMode
        self.control = PCSCWaitControl(deadline: PCSCDeadline(limit: transmitLimit))
        self.lane = Mutex(Lane())
        control.deadline.onStuck.set { [weak self] error in self?.abandonLane(error) }
    }

    deinit {
        control.abort()
        lane.withLock { $0.retire() }
    }

    /// The deadline gave up the running exchange: the waiting caller gets `error` now, and the next job
    /// runs on a new thread with no session (the caller opens the device again, as after an unplug).
    private func abandonLane(_ error: NFCError) {
        let old = lane.withLock { lane in
            let old = lane
            lane = Lane()
            return old
        }
        old.retire()
        old.failAll(error)
    }

    /// The reader part of a `pcsc:` connstring: nil for `pcsc` or `pcsc:`.
    public static func selector(of connstring: String) -> String? {
        guard connstring.hasPrefix(connstringPrefix + ":") else { return nil }
        let rest = String(connstring.dropFirst(connstringPrefix.count + 1))
        return rest.isEmpty ? nil : rest
    }

    /// True for a connstring this backend takes (`pcsc` or `pcsc:…`).
    public static func accepts(_ connstring: String) -> Bool {
        connstring == connstringPrefix || connstring.hasPrefix(connstringPrefix + ":")
    }

    var label: String { "pcsc:\(selector ?? "")" }

    /// Establishes a context with pcscd and finds the reader; returns the same information when open.
    /// Throws ``NFCError/readerUnavailable(_:)`` when pcscd is not running or knows no such reader.
    /// Wraps `SCardEstablishContext`, `SCardListReaders`.
    public func open() async throws -> ReaderInfo {
        let selector = self.selector, shareMode = self.shareMode, control = self.control
        let current = lane.withLock { $0 }, state = current.state
        return try await current.run {
            if state.session == nil {
                state.session = try PCSCSession.open(selector: selector, shareMode: shareMode, control: control)
            }
            guard let session = state.session else { throw NFCError.readerUnavailable("pcsc: not open") }
            return ReaderInfo(connstring: session.label, name: session.readerName, firmware: "PC/SC (pcsc-lite)")
        }
    }

    /// Disconnects the card and releases the context; transports then throw ``NFCError/tagRemoved``.
    /// Safe to call when not open. Wraps `SCardDisconnect`, `SCardReleaseContext`.
    public func close() async {
        control.abort()
        let current = lane.withLock { $0 }, state = current.state
        _ = try? await current.run {
            state.session?.close()
            state.session = nil
            _ = self.control.takeCancellation()
        }
    }

    /// Waits up to `timeout` for a card of one of `modulations` and connects to it: one transport at
    /// most (a PC/SC reader presents one card). Returns `[]` on timeout or after ``abort()``.
    /// Wraps `SCardGetStatusChange`, `SCardConnect`, `SCardTransmit` (GET DATA).
    public func poll(modulations: [Modulation], timeout: Duration) async throws -> [any TagTransport] {
        let result = try await perform { session throws(NFCError) in
            try session.waitForCard(modulations: modulations, timeout: timeout).map { ($0, session.card?.generation ?? 0) }
        }
        guard let (target, generation) = result else { return [] }
        return [PCSCTransport(device: self, target: target, generation: generation, readerName: label)]
    }

    /// True while the card behind `transport` is still in the reader. Wraps `SCardStatus`.
    public func isPresent(_ transport: any TagTransport) async throws -> Bool {
        guard let transport = transport as? PCSCTransport, transport.device === self else {
            throw NFCError.invalidArgument("This transport does not belong to \(label)")
        }
        let generation = transport.generation
        return try await perform { session throws(NFCError) in try session.isPresent(generation: generation) }
    }

    /// Ends the running poll now, or the next one if none runs. Callable from any thread. Wraps `SCardCancel`.
    public func abort() {
        control.abort()
    }

    /// Runs `body` on the PC/SC thread with the open session; task cancellation ends a waiting poll.
    /// A failure that says pcscd or the reader went away releases the session, so the next ``open()``
    /// starts afresh.
    func perform<T: Sendable>(_ body: @escaping @Sendable (PCSCSession) throws(NFCError) -> T) async throws -> T {
        let current = lane.withLock { $0 }
        let state = current.state, control = self.control, label = self.label
        return try await withTaskCancellationHandler {
            try await current.run { () throws -> T in
                // A cancellation meant for this job ends with it, never reaching the next caller's job.
                defer { _ = control.takeCancellation() }
                guard let session = state.session else { throw NFCError.readerUnavailable("\(label) is not open") }
                do throws(NFCError) {
                    return try body(session)
                } catch {
                    if case .readerUnavailable = error {
                        session.close()
                        state.session = nil
                    }
                    throw error
                }
            }
        } onCancel: {
            control.cancel()
        }
    }
}

/// The PC/SC readers pcscd knows, for `nfcbridge readers`.
public enum PCSC {
    /// The names of the readers pcscd knows, in its order (the index is what `pcsc:<index>` means).
    /// Throws ``NFCError/readerUnavailable(_:)`` when pcscd is not running. Runs on its own thread.
    /// Wraps `SCardEstablishContext`, `SCardListReaders`, `SCardReleaseContext`.
    public static func readerNames() async throws -> [String] {
        let thread = JobThread(name: "pcsc-list")
        defer { thread.stop() }
        return try await thread.run { () throws -> [String] in
            let context = try PCSCSession.establishContext(label: "pcsc")
            defer { SCardReleaseContext(context) }
            return try PCSCSession.readerNames(context: context, label: "pcsc")
        }
    }
}

/// A continuation resumed once: by the job, or by the deadline that gave the job up (whichever comes first).
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func set(_ continuation: CheckedContinuation<T, any Error>) { self.continuation.withLock { $0 = continuation } }

    func resume(_ result: Result<T, any Error>) {
        // Resumed outside the mutex: resuming a task may wait for the runtime's lock on its status.
        let taken = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        taken?.resume(with: result)
    }
}

extension PCSCDevice: IndicatorDriving {
    /// Drives the reader's LED and buzzer (``PCSCSession/indicate(_:)``) on the PC/SC thread, under the
    /// exchange deadline.
    public func indicate(_ signal: IndicatorSignal) async throws {
        try await perform { session throws(NFCError) in try session.indicate(signal) }
    }

    /// The reader's profile: by its name, else as its answers made it once a card was presented; nil
    /// before either. Wraps nothing (the session's own record).
    public func profile() async -> PCSCReaderProfile? {
        try? await perform { session throws(NFCError) in session.profile }
    }
}
