import CPCSCLite
import NFCCore
import Glibc
import Synchronization

/// How the backend shares the reader's card with other PC/SC programs (`SCardConnect` share mode).
public enum PCSCShareMode: String, Sendable, CaseIterable {
    /// `SCARD_SHARE_EXCLUSIVE`: no other program reaches the card while NFCBridge holds it, so nothing
    /// comes between a Classic authentication and its reads, or between two commands of a dump.
    case exclusive
    /// `SCARD_SHARE_SHARED`: other programs may connect too (pcsc_scan, a browser's smart-card stack).
    case shared

    var pcscValue: DWORD { self == .exclusive ? DWORD(SCARD_SHARE_EXCLUSIVE) : DWORD(SCARD_SHARE_SHARED) }
}

/// What other threads may touch while the PC/SC thread waits in `SCardGetStatusChange`: the context to
/// cancel and the pending abort. Everything else of a session lives on the thread.
final class PCSCWaitControl: Sendable {
    /// The deadline of each `SCardTransmit` of the device.
    let deadline: PCSCDeadline

    init(deadline: PCSCDeadline = PCSCDeadline()) {
        self.deadline = deadline
    }

    private struct State {
        var context: SCARDCONTEXT?
        var waiting = false
        var abortPending = false
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Marks the wait as running on `context`; false when an abort came first (it is then consumed).
    func beginWait(on context: SCARDCONTEXT) -> Bool {
        state.withLock { state in
            if state.abortPending || state.cancelled {
                state.abortPending = false
                return false
            }
            state.context = context
            state.waiting = true
            return true
        }
    }

    /// Ends the wait; true when an abort ended it (consumed).
    func endWait() -> Bool {
        state.withLock { state in
            state.waiting = false
            state.context = nil
            defer { state.abortPending = false }
            return state.abortPending
        }
    }

    /// Ends the running wait with `SCardCancel` (the one pcsc-lite call documented for another thread),
    /// or the next one when none runs.
    func abort() {
        state.withLock { state in
            state.abortPending = true
            if state.waiting, let context = state.context { _ = SCardCancel(context) }
        }
    }

    /// Like ``abort()`` for a cancelled task: the wait ends with ``NFCError/userCanceled``.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            if state.waiting, let context = state.context { _ = SCardCancel(context) }
        }
    }

    /// True (once) when the running job's task was cancelled.
    func takeCancellation() -> Bool {
        state.withLock { state in
            defer { state.cancelled = false }
            return state.cancelled
        }
    }
}

/// A PC/SC context on one reader and the card connected there. Created, used and released only on the
/// device's ``JobThread``; ``PCSCWaitControl`` is the one part other threads touch.
final class PCSCSession {
    /// The card the session is connected to.
    struct Card {
        var handle: SCARDHANDLE
        var activeProtocol: DWORD
        var generation: Int
    }

    let context: SCARDCONTEXT
    let readerName: String
    let label: String
    let shareMode: PCSCShareMode
    private let control: PCSCWaitControl
    private(set) var card: Card?
    /// The block of a Classic / compatibility WRITE (A0h) whose 16 data bytes come next.
    var pendingWrite: Int?
    private var cardGeneration = 0
    /// The reader's row: by its name when a row knows it, else from its answers with the first card
    /// (``probeProfile()``); nil until then.
    private(set) var profile: PCSCReaderProfile?
    /// The reader's last state from `SCardGetStatusChange` (without `SCARD_STATE_CHANGED`).
    private var readerState = DWORD(SCARD_STATE_UNAWARE)
    private var notificationState = DWORD(SCARD_STATE_UNAWARE)

    /// pcsc-lite's name for the pseudo reader whose state changes when a reader comes or goes.
    static let plugAndPlayReader = "\\\\?PnP?\\Notification"

    private init(context: SCARDCONTEXT, readerName: String, shareMode: PCSCShareMode, control: PCSCWaitControl) {
        self.context = context
        self.readerName = readerName
        self.label = "pcsc:\(readerName)"
        self.shareMode = shareMode
        self.control = control
        self.profile = PCSCReaderProfile.matching(readerName: readerName)
    }

    // MARK: Context and readers

    /// Establishes a context with pcscd. Wraps `SCardEstablishContext`.
    static func establishContext(label: String) throws(NFCError) -> SCARDCONTEXT {
        var context = SCARDCONTEXT()
        let result = PCSCReturnCode(SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context))
        guard result.isSuccess else { throw result.nfcError(reader: label, call: "SCardEstablishContext") }
        return context
    }

    /// The readers pcscd knows, in its order. Wraps `SCardListReaders`.
    static func readerNames(context: SCARDCONTEXT, label: String) throws(NFCError) -> [String] {
        var length = DWORD(0)
        var result = PCSCReturnCode(SCardListReaders(context, nil, nil, &length))
        if result.rawValue == Int(SCARD_E_NO_READERS_AVAILABLE) { return [] }
        guard result.isSuccess else { throw result.nfcError(reader: label, call: "SCardListReaders") }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        result = PCSCReturnCode(SCardListReaders(context, nil, &buffer, &length))
        if result.rawValue == Int(SCARD_E_NO_READERS_AVAILABLE) { return [] }
        guard result.isSuccess else { throw result.nfcError(reader: label, call: "SCardListReaders") }
        // A multi-string: names separated by NUL, ended by an empty one.
        return buffer.split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// Picks the reader `selector` names: nil the first one, a number its index in pcscd's list, else
    /// its exact name or, failing that, the one reader whose name starts with it.
    static func resolve(_ selector: String?, among names: [String]) -> String? {
        guard let selector, !selector.isEmpty else { return names.first }
        if let exact = names.first(where: { $0 == selector }) { return exact }
        if let index = Int(selector), names.indices.contains(index) { return names[index] }
        let prefixed = names.filter { $0.hasPrefix(selector) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Opens a session on the reader `selector` names (see ``resolve(_:among:)``).
    static func open(selector: String?, shareMode: PCSCShareMode, control: PCSCWaitControl) throws(NFCError) -> PCSCSession {
        let label = "pcsc:\(selector ?? "")"
        let context = try establishContext(label: label)
        let names: [String]
        do {
            names = try readerNames(context: context, label: label)
        } catch {
            SCardReleaseContext(context)
            throw error
        }
        guard let name = resolve(selector, among: names) else {
            SCardReleaseContext(context)
            let known = names.isEmpty ? "pcscd knows no reader" : "pcscd knows: \(names.joined(separator: ", "))"
            throw .readerUnavailable("\(label): no such PC/SC reader (\(known))")
        }
        return PCSCSession(context: context, readerName: name, shareMode: shareMode, control: control)
    }

    /// Disconnects the card and releases the context. Wraps `SCardDisconnect`, `SCardReleaseContext`.
    func close() {
        disconnectCard()
        SCardReleaseContext(context)
    }

    // MARK: Card presence

    /// Waits up to `timeout` for a contactless card of `modulations` on the reader, connects to it and
    /// returns its target (nil: none came in time, or ``abort()``). Reader and card changes come from
    /// `SCardGetStatusChange` on the reader and on ``plugAndPlayReader``; a card whose ATR is not a PC/SC
    /// part 3 contactless one, or whose technology is not polled, is left alone until it changes.
    /// Wraps `SCardGetStatusChange`, `SCardConnect`, `SCardStatus`, `SCardTransmit` (GET DATA).
    func waitForCard(modulations: [Modulation], timeout: Duration) throws(NFCError) -> Target? {
        disconnectCard()
        let deadline = ContinuousClock.now.advanced(by: timeout)
        // The first round asks for the state as it is now.
        readerState = DWORD(SCARD_STATE_UNAWARE)
        var ignoredEvents: DWORD?
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = readerState == DWORD(SCARD_STATE_UNAWARE) ? 0 : max(0, left.milliseconds)
            let (result, state) = try waitForChange(milliseconds: DWORD(milliseconds))
            if result.rawValue == Int(SCARD_E_TIMEOUT) { return nil }
            if result.rawValue == Int(SCARD_E_CANCELLED) {
                if control.takeCancellation() { throw .userCanceled }
                return nil
            }
            guard result.isSuccess else { throw result.nfcError(reader: label, call: "SCardGetStatusChange") }
            if state & DWORD(SCARD_STATE_UNKNOWN | SCARD_STATE_IGNORE) != 0 {
                throw .readerUnavailable("\(label): the reader is gone (SCardGetStatusChange: SCARD_STATE_UNKNOWN)")
            }
            let events = state >> 16
            if state & DWORD(SCARD_STATE_PRESENT) != 0, state & DWORD(SCARD_STATE_MUTE) == 0, ignoredEvents != events {
                if let target = try connect(), modulations.contains(target.modulation) { return target }
                // Not a card this agent reads: wait for the next insertion.
                disconnectCard()
                ignoredEvents = events
            }
            if ContinuousClock.now >= deadline, readerState != DWORD(SCARD_STATE_UNAWARE) { return nil }
            readerState = state & ~DWORD(SCARD_STATE_CHANGED)
        }
    }

    /// One `SCardGetStatusChange` on the reader and the plug-and-play pseudo reader; returns the result
    /// and the reader's event state. Abortable (``PCSCWaitControl``).
    private func waitForChange(milliseconds: DWORD) throws(NFCError) -> (PCSCReturnCode, DWORD) {
        guard control.beginWait(on: context) else {
            if control.takeCancellation() { throw .userCanceled }
            return (PCSCReturnCode(SCARD_E_CANCELLED), readerState)
        }
        let result: PCSCReturnCode
        var states = [SCARD_READERSTATE(), SCARD_READERSTATE()]
        let (name, notification) = (strdup(readerName), strdup(Self.plugAndPlayReader))
        defer {
            free(name)
            free(notification)
        }
        states[0].szReader = UnsafePointer(name)
        states[0].dwCurrentState = readerState
        states[1].szReader = UnsafePointer(notification)
        states[1].dwCurrentState = notificationState
        result = PCSCReturnCode(SCardGetStatusChange(context, milliseconds, &states, DWORD(states.count)))
        let aborted = control.endWait()
        if result.isSuccess {
            notificationState = states[1].dwEventState & ~DWORD(SCARD_STATE_CHANGED)
        }
        if aborted, result.isSuccess || result.rawValue == Int(SCARD_E_CANCELLED) {
            return (PCSCReturnCode(SCARD_E_CANCELLED), states[0].dwEventState)
        }
        return (result, states[0].dwEventState)
    }

    /// Connects to the card in the reader and reads what identifies it; nil when its ATR is not a PC/SC
    /// part 3 contactless one. Wraps `SCardConnect`, `SCardStatus`, `SCardTransmit`.
    private func connect() throws(NFCError) -> Target? {
        var handle = SCARDHANDLE()
        var activeProtocol = DWORD(0)
        let result = PCSCReturnCode(SCardConnect(
            context, readerName, shareMode.pcscValue, DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &handle, &activeProtocol))
        if result.meansCardGone { return nil }
        guard result.isSuccess else { throw result.nfcError(reader: label, call: "SCardConnect") }
        cardGeneration += 1
        card = Card(handle: handle, activeProtocol: activeProtocol, generation: cardGeneration)
        guard let atr = ContactlessATR(try currentATR()) else { return nil }
        return try identify(atr)
    }

    /// The card's ATR. Wraps `SCardStatus`.
    private func currentATR() throws(NFCError) -> [UInt8] {
        guard let card else { throw .tagRemoved }
        var atr = [UInt8](repeating: 0, count: Int(MAX_ATR_SIZE))
        var atrLength = DWORD(atr.count)
        var state = DWORD(0), activeProtocol = DWORD(0)
        var nameLength = DWORD(0)
        let result = PCSCReturnCode(SCardStatus(card.handle, nil, &nameLength, &state, &activeProtocol, &atr, &atrLength))
        guard result.isSuccess else { throw result.nfcError(reader: label, call: "SCardStatus") }
        return Array(atr.prefix(Int(atrLength)))
    }

    /// The target of the connected card: UID by GET DATA, ATQA / SAK / ATS where the reader answers them.
    private func identify(_ atr: ContactlessATR) throws(NFCError) -> Target? {
        guard let uid = try getData(.uid), !uid.isEmpty else {
            throw .unsupportedOperation("\(label) did not answer GET DATA (FF CA 00 00 00) with the UID of the \(atr.summary)")
        }
        if profile == nil { profile = try probeProfile() }
        var atqa: [UInt8]?, sak: UInt8?, ats: [UInt8]?
        if atr.modulation == .iso14443a {
            // Readers that answer P1 02h / 03h disagree on which is which (libnfc's Feitian: 02 SAK, 03 ATQA;
            // others the other way round): the length tells them apart (ATQA 2 bytes, SAK 1).
            for what in [PCSCPseudoAPDU.GetData.sak, .atqa] {
                guard let value = try getData(what) else { continue }
                if value.count == 2 { atqa = value } else if value.count == 1 { sak = value[0] }
            }
            if case let .isoDEP(historical) = atr.kind {
                ats = try getData(.ats).map(PCSCPseudoAPDU.atsWithoutLength)
                if atqa == nil, sak == nil,
                   let typeB = PCSCCardIdentification.typeBTarget(historicalBytes: historical, uid: uid, ats: ats) {
                    return typeB
                }
            }
        }
        guard let target = Target(contactlessATR: atr, uid: uid, atqa: atqa, sak: sak, ats: ats) else { return nil }
        if target.modulation.isFeliCa { return try withPollingAnswer(target) }
        return target
    }

    /// A FeliCa target with the PMm and system code of a Polling through the reader's FeliCa pass-through
    /// (``PCSCCardIdentification/felicaPolling``); the IDm alone when the reader cannot send it or the
    /// card does not answer it (the card is then classified "FeliCa Standard": no product, no Lite refinement).
    private func withPollingAnswer(_ target: Target) throws(NFCError) -> Target {
        let mapping = PCSCCommandMapping(reader: label, target: target, profile: currentProfile) { apdu throws(NFCError) in
            try self.transmitRaw(apdu)
        }
        var pending: Int?
        do throws(NFCError) {
            let answer = try mapping.transceive(PCSCCardIdentification.felicaPolling, framing: .standard, pendingWrite: &pending)
            return PCSCCardIdentification.felicaTarget(target, pollingAnswer: answer) ?? target
        } catch {
            switch error {
            case .unsupportedOperation, .timeout, .invalidResponse, .rfError: return target
            default: throw error
            }
        }
    }

    /// The profile in use: the one found, else the plain part 3 row (nothing beyond storage-card commands).
    var currentProfile: PCSCReaderProfile { profile ?? .row(.generic) }

    /// The row for a reader whose name no row knows, from what it answers with a card present: the
    /// ACR122U's firmware string (`FF 00 48 00 00`, ACR122U API §6), else a transparent session that
    /// starts (`FF C2`, PC/SC part 3 §3.2.2.1.12; left open for the first raw frame), else plain part 3.
    private func probeProfile() throws(NFCError) -> PCSCReaderProfile {
        let firmware = try transmitRaw(PCSCVendorAPDU.firmwareVersion)
        if String(decoding: firmware, as: UTF8.self).hasPrefix(PCSCReaderProfile.acr122uFirmwarePrefix) { return .row(.acr122u) }
        let session = try transmitRaw(PCSCPseudoAPDU.startSession)
        return session.suffix(2) == [0x90, 0x00] ? .row(.transparentSession) : .row(.generic)
    }

    /// One GET DATA; nil when the reader refuses it.
    private func getData(_ what: PCSCPseudoAPDU.GetData) throws(NFCError) -> [UInt8]? {
        let (data, sw1, sw2) = try transmit(PCSCPseudoAPDU.getData(what))
        return (sw1, sw2) == (0x90, 0x00) ? data : nil
    }

    /// Disconnects the card, leaving it powered (`SCARD_LEAVE_CARD`). Wraps `SCardDisconnect`.
    func disconnectCard() {
        guard let card else { return }
        if transparentSessionOpen {
            transparentSessionOpen = false
            _ = try? send(PCSCPseudoAPDU.endSession)
        }
        SCardDisconnect(card.handle, DWORD(SCARD_LEAVE_CARD))
        self.card = nil
        pendingWrite = nil
    }

    /// True while the card of `generation` is still in the reader. Wraps `SCardStatus`.
    func isPresent(generation: Int) throws(NFCError) -> Bool {
        guard let card, card.generation == generation else { return false }
        var state = DWORD(0), activeProtocol = DWORD(0), nameLength = DWORD(0)
        var atr = [UInt8](repeating: 0, count: Int(MAX_ATR_SIZE))
        var atrLength = DWORD(atr.count)
        let result = PCSCReturnCode(SCardStatus(card.handle, nil, &nameLength, &state, &activeProtocol, &atr, &atrLength))
        if result.rawValue == Int(SCARD_W_RESET_CARD) { return try reconnect(disposition: DWORD(SCARD_LEAVE_CARD)) }
        if result.meansCardGone || result.rawValue == Int(SCARD_E_INVALID_HANDLE) {
            disconnectCard()
            return false
        }
        guard result.isSuccess else { throw result.nfcError(reader: label, call: "SCardStatus") }
        return state & DWORD(SCARD_PRESENT) != 0
    }

    /// Reconnects to the card (`SCARD_RESET_CARD` resets it: a tag left idle or halted is activated
    /// again); false when it left. Wraps `SCardReconnect`.
    func reconnect(disposition: DWORD) throws(NFCError) -> Bool {
        guard let card else { return false }
        var activeProtocol = DWORD(0)
        let result = PCSCReturnCode(SCardReconnect(
            card.handle, shareMode.pcscValue, DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), disposition, &activeProtocol))
        if result.meansCardGone {
            disconnectCard()
            return false
        }
        guard result.isSuccess else { throw result.nfcError(reader: label, call: "SCardReconnect") }
        self.card?.activeProtocol = activeProtocol
        if disposition != DWORD(SCARD_LEAVE_CARD) { transparentSessionOpen = false }
        return true
    }

    /// The UID the card answers GET DATA with now (after a reset, to tell the same tag from another).
    func currentUID() throws(NFCError) -> [UInt8]? { try getData(.uid) }

    // MARK: Exchanges

    /// Sends one APDU to the connected card and returns the data and status word. A card reset by
    /// another program (`SCARD_W_RESET_CARD`, shared mode) is reconnected and the APDU sent again once.
    /// Wraps `SCardTransmit`.
    func transmit(_ apdu: [UInt8]) throws(NFCError) -> (data: [UInt8], sw1: UInt8, sw2: UInt8) {
        let answer = try transmitRaw(apdu)
        guard let parts = PCSCPseudoAPDU.split(answer) else { throw .invalidResponse(answer) }
        return parts
    }

    /// Sends `apdu` and returns the whole answer, status word included.
    ///
    /// Transparent sessions are kept open between exchanges: a start while one is open and an end are
    /// answered here (90 00) without a round trip, and the session really ends before the next APDU of
    /// another kind and on disconnect. An ISO 15693 dump of 2048 blocks with their security status is
    /// then one APDU per block, not three.
    func transmitRaw(_ apdu: [UInt8]) throws(NFCError) -> [UInt8] {
        if apdu == PCSCPseudoAPDU.endSession { return [0x90, 0x00] }
        if apdu == PCSCPseudoAPDU.startSession, transparentSessionOpen { return [0x90, 0x00] }
        let isTransparent = apdu.count >= 2 && apdu[0] == 0xFF && apdu[1] == 0xC2
        if transparentSessionOpen, !isTransparent {
            transparentSessionOpen = false
            _ = try send(PCSCPseudoAPDU.endSession)
        }
        let answer = try send(apdu)
        if apdu == PCSCPseudoAPDU.startSession, answer.suffix(2) == [0x90, 0x00] { transparentSessionOpen = true }
        return answer
    }

    /// A transparent session started and not yet ended (``transmitRaw(_:)``).
    private var transparentSessionOpen = false

    /// One `SCardTransmit`, reconnecting once after a reset by another program.
    private func send(_ apdu: [UInt8]) throws(NFCError) -> [UInt8] {
        for attempt in 0..<2 {
            guard let card else { throw .tagRemoved }
            var answer = [UInt8](repeating: 0, count: Self.answerCapacity)
            var length = DWORD(answer.count)
            let serial = control.deadline.begin(context: context, label: label)
            let result = PCSCReturnCode(SCardTransmit(
                card.handle, cpcsc_pci(card.activeProtocol), apdu, DWORD(apdu.count), nil, &answer, &length))
            if control.deadline.end(serial) { throw control.deadline.error(label: label, abandoned: false) }
            if result.isSuccess { return Array(answer.prefix(Int(length))) }
            if result.rawValue == Int(SCARD_W_RESET_CARD), attempt == 0, try reconnect(disposition: DWORD(SCARD_LEAVE_CARD)) {
                continue
            }
            if result.meansCardGone { disconnectCard() }
            throw result.nfcError(reader: label, call: "SCardTransmit")
        }
        throw .tagRemoved
    }

    /// Room for the longest short-APDU answer (256 bytes + SW) and an extended one up to 4 KiB.
    static let answerCapacity = 4096 + 2
}

extension Duration {
    /// Whole milliseconds, at least 0.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
