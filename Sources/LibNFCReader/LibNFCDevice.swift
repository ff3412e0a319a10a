import NFCCore

/// A reader driven through libnfc (PN532 on UART/I2C/SPI, PN533/ACR122 on USB, …): the
/// ``ReaderDevice`` the agent and the CLI use on real boards, and against the PN532 emulator.
///
/// ```swift
/// let reader = LibNFCDevice(connstring: "pn532_uart:/dev/ttyS0")
/// let info = try await reader.open()            // "PN532 v1.6"
/// for transport in try await reader.poll(modulations: [.iso14443a], timeout: .seconds(1)) {
///     let page0 = try await transport.transceive([0x30, 0x00])
/// }
/// await reader.close()
/// ```
///
/// ## What blocks and how to cancel
///
/// Every libnfc call of a device runs on one thread the device owns (``LibNFCThread``), one call
/// at a time and in the order they were made; async callers wait on a continuation and never
/// occupy Swift's cooperative pool. Calls are short — the reader answers or libnfc's timeout
/// (``LibNFCConfiguration/commandTimeout``, ``LibNFCConfiguration/apduTimeout``, 300 ms for a
/// select) expires — except ``poll(modulations:timeout:)``, which runs until a tag comes, its
/// timeout passes, or:
/// * ``abort()`` is called from any thread: the running poll (or, when none runs, the next one)
///   returns `[]` at once. The libnfc call in flight is interrupted with `nfc_abort_command`, which
///   makes libnfc send the PN532 an ACK frame that ends the chip's command.
/// * the awaiting task is cancelled: the poll — or any other operation of the device and its
///   transports — ends with ``NFCError/userCanceled``, its libnfc call interrupted the same way.
///
/// ``close()`` aborts a running poll first, then waits for the call in flight to finish.
/// Presence checks are single checks: pace them in the caller (libnfc's own loop in nfc-poll has
/// no delay and sends hundreds of frames per second).
///
/// Errors: every libnfc failure arrives as an ``NFCError`` (see ``LibNFCErrorCode`` for the
/// mapping); a device that cannot be opened or goes away throws ``NFCError/readerUnavailable(_:)``
/// naming the connstring. No libnfc error stops the process.
public final class LibNFCDevice: ReaderDevice, Sendable {
    /// The connstring given at creation; nil means libnfc's default device.
    public let connstring: String?
    /// Timeouts and poll pacing.
    public let configuration: LibNFCConfiguration
    private let thread: LibNFCThread
    private let control = LibNFCAbortControl()
    private let state = SessionState()

    /// The open session. `@unchecked`: only read and written by jobs on ``thread``.
    private final class SessionState: @unchecked Sendable {
        var session: LibNFCSession?
        var generation = 0
    }

    /// Prepares a device; nothing is opened until ``open()``.
    /// - Parameter connstring: a libnfc connstring such as `pn532_uart:/dev/ttyAMA0`; nil opens
    ///   libnfc's default device (`LIBNFC_DEFAULT_DEVICE`, `LIBNFC_DEVICE`, libnfc.conf, autoscan).
    public init(connstring: String? = nil, configuration: LibNFCConfiguration = LibNFCConfiguration()) {
        self.connstring = connstring
        self.configuration = configuration
        self.thread = LibNFCThread(libNFCName: "libnfc-device")
    }

    deinit {
        let state = self.state
        control.abortPoll()
        control.stopMonitor()
        thread.submit {
            state.session?.close()
            state.session = nil
        }
        thread.stop()
    }

    /// The libnfc thread: a task that prefers it runs this device's libnfc calls without a thread hop.
    public var taskExecutor: (any TaskExecutor)? { thread }

    /// The connstring for messages.
    var label: String { connstring ?? "the default libnfc device" }

    /// Opens the device and reports its chip; returns the same information when already open.
    /// Throws ``NFCError/readerUnavailable(_:)`` naming the connstring when it cannot be opened.
    /// Wraps `nfc_init`, `nfc_open`, `nfc_initiator_init` (see ``LibNFCSession``).
    public func open() async throws -> ReaderInfo {
        let connstring = self.connstring, configuration = self.configuration
        let control = self.control, state = self.state
        return try await thread.run {
            if let session = state.session { return session.info }
            state.generation += 1
            let session = try LibNFCSession.open(
                connstring: connstring, generation: state.generation, control: control, configuration: configuration)
            state.session = session
            return session.info
        }
    }

    /// Releases the tags, switches the field off and frees the device; transports of this session
    /// then throw ``NFCError/tagRemoved``. Safe to call when not open. Wraps `nfc_close`, `nfc_exit`.
    public func close() async {
        control.abortPoll()
        let state = self.state
        _ = try? await thread.run {
            state.session?.close()
            state.session = nil
        }
    }

    /// Why the libnfc backend cannot poll `modulations`: ISO 15693 (libnfc 1.8.0 has no such
    /// modulation, and PN53x chips have no ISO 15693 front end), as ``NFCError/unsupportedOperation(_:)``;
    /// nil when it can poll them all. `nfcbridge run` asks this at start-up and refuses a configuration
    /// that lists `iso15693`.
    public static func unsupportedPolling(of modulations: [Modulation]) -> NFCError? {
        let missing = modulations.filter { LibNFCModulation.row(for: $0) == nil }
        guard !missing.isEmpty else { return nil }
        return .unsupportedOperation(
            "the libnfc backend cannot poll \(missing.map(\.rawValue).joined(separator: ", ")): libnfc has no ISO 15693 "
                + "modulation and PN53x readers cannot talk to ISO 15693 tags; remove it (ISO 15693 tags need a PC/SC reader)")
    }

    /// Polls the given modulations until tags answer or `timeout` passes; selects them and returns
    /// one transport per tag (several when one modulation finds several tags). Returns `[]` on
    /// timeout or after ``abort()``. A list with ISO 15693 is refused with ``unsupportedPolling(of:)``'s
    /// ``NFCError/unsupportedOperation(_:)`` before anything is sent (libnfc has no such modulation).
    /// Seeing a second tag costs a deselect and a select more (see ``poll(modulations:timeout:limit:)``).
    /// Wraps `nfc_initiator_select_passive_target` and `nfc_initiator_deselect_target`.
    public func poll(modulations: [Modulation], timeout: Duration) async throws -> [any TagTransport] {
        try await poll(modulations: modulations, timeout: timeout, limit: nil)
    }

    /// Like ``poll(modulations:timeout:)``, returning at most `limit` tags: with `limit` 1 a tag
    /// costs one select (`InListPassiveTarget`) and stays selected for its first exchange.
    public func poll(modulations: [Modulation], timeout: Duration, limit: Int) async throws -> [any TagTransport] {
        try await poll(modulations: modulations, timeout: timeout, limit: Optional(limit))
    }

    private func poll(modulations: [Modulation], timeout: Duration, limit: Int?) async throws -> [any TagTransport] {
        if let problem = Self.unsupportedPolling(of: modulations) { throw problem }
        let (targets, generation) = try await perform { session throws(NFCError) in
            (try session.poll(modulations: modulations, timeout: timeout, limit: limit), session.generation)
        }
        return targets.map { LibNFCTransport(device: self, target: $0, generation: generation) }
    }

    /// One presence check of the tag behind `transport` (see ``LibNFCSession/isPresent(_:)``).
    /// False for a transport of an earlier session. Wraps `nfc_initiator_target_is_present`.
    public func isPresent(_ transport: any TagTransport) async throws -> Bool {
        try await checkPresence(transport) != .absent
    }

    /// One presence check that tells a missed check apart (see ``LibNFCSession/checkPresence(_:)``).
    /// ``PresenceCheck/absent`` for a transport of an earlier session.
    public func checkPresence(_ transport: any TagTransport) async throws -> PresenceCheck {
        guard let transport = transport as? LibNFCTransport, transport.device === self else {
            throw NFCError.invalidArgument("This transport does not belong to \(label)")
        }
        let target = transport.target, generation = transport.generation
        return try await perform { session throws(NFCError) in
            guard session.generation == generation else { return .absent }
            return try session.checkPresence(target)
        }
    }

    /// True while an InAutoPoll arrival's search for more tags waits for the next poll
    /// (``LibNFCSession/deferredSearch``, ``LibNFCSession/deferredModulations``).
    public func hasDeferredSearch() async -> Bool {
        (try? await perform { session throws(NFCError) in session.deferredSearch != nil || !session.deferredModulations.isEmpty }) ?? false
    }

    /// Ends the running poll now, or the next one if none is running. Callable from any thread.
    /// Wraps `nfc_abort_command`.
    public func abort() {
        control.abortPoll()
    }

    /// Runs `body` on the libnfc thread with the open session; task cancellation interrupts it.
    func perform<T: Sendable>(
        _ body: @escaping @Sendable (LibNFCSession) throws(NFCError) -> T
    ) async throws -> T {
        let token = CancelToken()
        let state = self.state, control = self.control, label = self.label
        return try await withTaskCancellationHandler {
            try await thread.run { () throws -> T in
                guard let session = state.session else {
                    throw NFCError.readerUnavailable("\(label) is not open")
                }
                if token.isCancelled { throw NFCError.userCanceled }
                session.token = token
                return try body(session)
            }
        } onCancel: {
            control.cancel(token)
        }
    }
}
