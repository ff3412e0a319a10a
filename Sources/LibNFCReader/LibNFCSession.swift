import CNFC
import Glibc
import NFCCore

/// An open libnfc device and everything known about its state. Created, used and closed only on
/// the device's ``LibNFCThread``; never shared with another thread (``LibNFCAbortControl`` is the
/// one part other threads may touch).
///
/// Each method names the libnfc calls it makes. All of them report failures as ``NFCError``.
final class LibNFCSession {
    /// How frames travel: the reader's easy framing (`InDataExchange`, CRC by the chip) or raw
    /// (`InCommunicateThru`, CRC by us). Tracked so the registers are only rewritten on a change.
    enum LinkMode {
        case easy, raw
    }

    /// The target libnfc and the chip consider selected.
    struct ActiveTarget: Equatable {
        var modulation: Modulation
        var uid: [UInt8]
    }

    let connstring: String
    let info: ReaderInfo
    /// Bumped on every open, so transports of an earlier session fail cleanly.
    let generation: Int
    private let context: OpaquePointer
    let device: OpaquePointer
    let control: LibNFCAbortControl
    let configuration: LibNFCConfiguration
    /// nil when unknown (after a failed property change): the next exchange sets both properties.
    private var mode: LinkMode?
    var active: ActiveTarget?
    /// Set when `active` was selected and nothing was sent to it since: a re-select asked for now
    /// (after a refusal this backend already settled with a select) would change nothing.
    var isFreshlySelected = false
    /// False for libnfc's `pcsc` driver, the one driver that is not a PN53x.
    var hasPN53xRegisters: Bool { !connstring.hasPrefix("pcsc") }
    /// The cancellation token of the job that is running now.
    var token = CancelToken()
    /// What the reader said to InAutoPoll so far (``autoPoll(_:timeout:limit:)``).
    var autoPollSupport = LibNFCAutoPoll.Support.untried(refusals: 0)
    /// The modulation of the last tag a host-driven poll found: the next poll asks for it first, so a
    /// reader that meets the same kind of tag again finds it with its first `InListPassiveTarget`
    /// (issue 25: a FeliCa card no longer waits for the empty 106A and 106B rounds before its own).
    var lastFound: Modulation?
    /// The search for more tags that an InAutoPoll arrival left for the next poll (``autoPoll(_:timeout:limit:)``).
    var deferredSearch: DeferredSearch?
    /// The modulations an InAutoPoll arrival did not list (the chip's poll ends at the first technology
    /// that finds a tag): the next poll lists them, after ``deferredSearch``.
    var deferredModulations: [(Modulation, LibNFCModulation)] = []
    /// True while the chip has a target selected that libnfc does not know of (InAutoPoll went through
    /// `pn53x_transceive`): libnfc's presence check would ping the target it selected last, so
    /// ``checkPresence(_:)`` selects instead. Cleared by the next select or deselect.
    var libnfcTargetIsStale = false

    /// What ``deferredSearch`` needs: the tag found and the modulation row to list with.
    struct DeferredSearch {
        var modulation: Modulation
        var row: LibNFCModulation
        var found: Target
        /// A select of `found` since (the scan's, after a failed exchange) got no answer, even after a
        /// field reset: the search lists the field without asking it again.
        var isGone = false
    }

    private init(
        context: OpaquePointer, device: OpaquePointer, info: ReaderInfo, generation: Int,
        control: LibNFCAbortControl, configuration: LibNFCConfiguration
    ) {
        self.context = context
        self.device = device
        self.info = info
        self.connstring = info.connstring
        self.generation = generation
        self.control = control
        self.configuration = configuration
    }

    // MARK: Open and close

    /// Opens `connstring` (nil: libnfc's default device — `LIBNFC_DEFAULT_DEVICE`, `LIBNFC_DEVICE`,
    /// libnfc.conf, then autoscan) and makes it an initiator.
    /// Wraps `nfc_init`, `nfc_open`, `nfc_initiator_init`, `nfc_device_set_property_bool`,
    /// `nfc_device_get_name`, `nfc_device_get_connstring`, `nfc_device_get_information_about`.
    static func open(
        connstring: String?, generation: Int, control: LibNFCAbortControl, configuration: LibNFCConfiguration
    ) throws(NFCError) -> LibNFCSession {
        let label = connstring ?? "the default libnfc device"
        var contextPointer: OpaquePointer?
        nfc_init(&contextPointer)
        guard let context = contextPointer else {
            throw .readerUnavailable("\(label): libnfc could not initialise (nfc_init)")
        }
        var opened: OpaquePointer?
        do {
            opened = try openInitialised(context: context, connstring: connstring, label: label)
            if opened == nil, let port = serialPort(of: connstring), isCharacterDevice(port) {
                // The port is there but nothing answered the wake-up: a PN532 just powered, or woken
                // from power-down on a busy host, can miss the first one (libnfc waits for its ACK a
                // bounded time). Once more after a short pause before calling the reader unresponsive.
                usleep(100_000)
                opened = try openInitialised(context: context, connstring: connstring, label: label)
            }
        } catch {
            nfc_exit(context)
            throw error
        }
        guard let device = opened else {
            nfc_exit(context)
            if let port = serialPort(of: connstring), isCharacterDevice(port) {
                // The port is there (a tty, or a pty behind a link) but no PN53x answered the
                // wake-up, SAMConfiguration or Diagnose: a wedged or powered-off chip, not an
                // unplugged reader.
                throw .readerUnresponsive("\(label): the port is there but no PN53x answered (nfc_open)")
            }
            let hint =
                connstring == nil
                ? "no NFC device found (set LIBNFC_DEFAULT_DEVICE or give a connstring)"
                : serialPort(of: connstring).flatMap(portProblem)
                    ?? "nfc_open failed (no PN53x answered: check the connstring, the port, its permissions and that no other program uses it)"
            throw .readerUnavailable("\(label): \(hint)")
        }
        let actualConnstring = String(cString: nfc_device_get_connstring(device))
        let fail = { (call: String, code: Int32) -> NFCError in
            nfc_close(device)
            nfc_exit(context)
            return LibNFCErrorCode(rawValue: code).nfcError(connstring: actualConnstring, call: call)
        }
        let initResult = nfc_initiator_init(device)
        if initResult < 0 { throw fail("nfc_initiator_init", initResult) }
        // One select attempt per call: polling loops here, with pauses, instead of the chip waiting
        // for a tag forever (MxRtyPassiveActivation FFh), which only an abort could end.
        for (property, value) in [(NP_INFINITE_SELECT, false), (NP_HANDLE_CRC, true), (NP_EASY_FRAMING, true)] {
            let result = nfc_device_set_property_bool(device, property, value)
            if result < 0 { throw fail("nfc_device_set_property_bool", result) }
        }
        let info = ReaderInfo(
            connstring: actualConnstring, name: String(cString: nfc_device_get_name(device)),
            firmware: firmwareText(of: device))
        let session = LibNFCSession(
            context: context, device: device, info: info, generation: generation, control: control,
            configuration: configuration)
        session.mode = .easy
        control.setDevice(device)
        return session
    }

    /// How often ``openInitialised(context:connstring:label:)`` opens again a device that came back
    /// half-initialised before it gives up: a garbled answer on a noisy line is rare, two in a row rarer.
    static let halfOpenAttempts = 2

    /// `nfc_open`, refusing a device libnfc returns half-initialised.
    ///
    /// libnfc 1.8.0's pn532_uart, pn532_i2c, pn532_spi and arygon drivers ignore `pn53x_init`'s
    /// result (`pn532_uart_open` ends `pn53x_init(pnd); return pnd;`): when the answer to its
    /// GetFirmwareVersion (PN532 user manual UM0701-02 §7.2.2) or SetParameters (§7.2.9) is lost or
    /// garbled on the line, `nfc_open` still returns the device — with no modulation lists
    /// (`supported_modulation_as_initiator` is only filled after GetFirmwareVersion), no chip name,
    /// and the chip's parameters unset. `nfc_device_get_information_about` and every select then read
    /// through a NULL list (`pn53x_get_information_about`, `nfc_device_validate_modulation`): the
    /// process dies with SIGSEGV on the libnfc thread. Such a device is told by its missing
    /// initiator modulation list, or (PN53x drivers) by the error its last exchange left in
    /// `nfc_device_get_last_error` — every successful exchange leaves 0 there. It is closed and
    /// opened again, up to ``halfOpenAttempts`` times in all; nil when nothing opened at all.
    /// Wraps `nfc_open`, `nfc_device_get_supported_modulation`, `nfc_device_get_last_error`, `nfc_close`.
    private static func openInitialised(
        context: OpaquePointer, connstring: String?, label: String
    ) throws(NFCError) -> OpaquePointer? {
        var lastError: Int32 = 0
        for _ in 0..<halfOpenAttempts {
            guard let device = connstring.map({ nfc_open(context, $0) }) ?? nfc_open(context, nil) else { return nil }
            var modulations: UnsafePointer<nfc_modulation_type>?
            let listed = nfc_device_get_supported_modulation(device, N_INITIATOR, &modulations)
            let isPN53x = !String(cString: nfc_device_get_connstring(device)).hasPrefix("pcsc")
            lastError = nfc_device_get_last_error(device)
            if listed >= 0, modulations != nil, !isPN53x || lastError >= 0 { return device }
            nfc_close(device)
        }
        let cause = lastError < 0 ? LibNFCErrorCode(rawValue: lastError).text : "no modulation list"
        throw .readerUnresponsive(
            "\(label): the PN53x answered but its GetFirmwareVersion or SetParameters answer at open was lost "
                + "(\(cause)), \(halfOpenAttempts) times: a noisy serial line (check the cable, its length and the "
                + "baud rate); the device was closed and is opened again")
    }

    /// The file a serial connstring names (`pn532_uart:/dev/ttyS0:115200` → `/dev/ttyS0`), nil for
    /// other buses and for libnfc's default device.
    static func serialPort(of connstring: String?) -> String? {
        guard let connstring else { return nil }
        let parts = connstring.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasSuffix("_uart"), parts[1].hasPrefix("/") else { return nil }
        return String(parts[1])
    }

    /// True when `path` (links followed) is a character device, as serial ports are.
    static func isCharacterDevice(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR
    }

    /// What is wrong with a serial port libnfc could not open, when `stat` can tell: it does not
    /// exist, it is not a character device, or this user may not open it. Nil when the port looks
    /// usable (then nothing answered on it, or libnfc refused it for another reason).
    static func portProblem(_ path: String) -> String? {
        var status = stat()
        if stat(path, &status) != 0 {
            return errno == ENOENT
                ? "\(path) does not exist (check the port's name: ls -l /dev/serial* /dev/tty*; a USB adapter that is unplugged has none)"
                : "\(path) cannot be examined (errno \(errno))"
        }
        if status.st_mode & S_IFMT != S_IFCHR {
            return "\(path) is not a serial port (not a character device)"
        }
        if access(path, R_OK | W_OK) != 0, errno == EACCES {
            return "\(path): permission denied (add this user to the port's group, usually dialout)"
        }
        return nil
    }

    /// The chip line of `nfc_device_get_information_about` ("PN532 v1.6"), or "unknown".
    private static func firmwareText(of device: OpaquePointer) -> String {
        var buffer: UnsafeMutablePointer<CChar>?
        guard nfc_device_get_information_about(device, &buffer) >= 0, let buffer else { return "unknown" }
        defer { nfc_free(buffer) }
        let text = String(cString: buffer)
        let chipLine = text.split(separator: "\n").first { $0.hasPrefix("chip: ") }
        return chipLine.map { String($0.dropFirst("chip: ".count)) } ?? "unknown"
    }

    /// Releases the targets, switches the field off, powers the chip down and frees libnfc.
    /// Wraps `nfc_close` (InRelease, RFConfiguration field off, PowerDown) and `nfc_exit`.
    func close() {
        control.setDevice(nil)
        nfc_close(device)
        nfc_exit(context)
    }

    // MARK: Polling

    /// Looks for tags, one modulation after another (the one found last first, ``lastFound``), until some
    /// are found, `timeout` passes, the poll is aborted (returns `[]`) or the job is cancelled (throws
    /// ``NFCError/userCanceled``).
    /// Returns at most `limit` tags (nil: every tag the reader can tell apart). The last tag found
    /// stays selected, so the first exchange with it needs no second select. With
    /// ``LibNFCConfiguration/autoPoll`` a long enough poll lets the chip look for tags itself
    /// (``autoPoll(_:timeout:limit:)``), and polls from the host only where it cannot.
    /// Wraps `nfc_initiator_select_passive_target` and `nfc_initiator_deselect_target`.
    func poll(modulations: [Modulation], timeout: Duration, limit: Int? = nil) throws(NFCError) -> [Target] {
        var wanted: [(Modulation, LibNFCModulation)] = []
        for modulation in modulations where !wanted.contains(where: { $0.0 == modulation }) {
            if let row = LibNFCModulation.row(for: modulation) { wanted.append((modulation, row)) }
        }
        guard !wanted.isEmpty else {
            throw .unsupportedOperation("libnfc cannot poll for \(modulations.map(\.rawValue).joined(separator: ", "))")
        }
        if let found = try runDeferredSearch(limit: limit, wanted: wanted.map(\.0)) { return found }
        if let found = try autoPoll(wanted, timeout: timeout, limit: limit) { return found }
        if let lastFound, let index = wanted.firstIndex(where: { $0.0 == lastFound }), index > 0 {
            wanted.insert(wanted.remove(at: index), at: 0)
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            for (modulation, row) in wanted {
                if token.isCancelled { throw .userCanceled }
                if control.takePollAbort() { return [] }
                let found = try listTargets(modulation: modulation, row: row, limit: max(1, limit ?? 4))
                // A tag of one technology ends the round: the later modulations would deselect it.
                if !found.isEmpty {
                    lastFound = modulation
                    return found
                }
            }
            if ContinuousClock.now >= deadline { return [] }
            control.sleep(until: min(ContinuousClock.now.advanced(by: configuration.pollInterval), deadline), token: token)
        }
    }

    /// What `nfc_initiator_list_passive_targets` does, without its costs: select (one
    /// `InListPassiveTarget`), and while more tags are wanted deselect it (`InDeselect`, which
    /// halts it) and select again until no new tag answers. libnfc's list also sets the select
    /// retries again on every call (a second `RFConfiguration 05`, already set at open) and leaves
    /// even a lone tag deselected, which cost a deselect and a select by UID more. With `limit` 1
    /// the tag found stays selected: one `InListPassiveTarget` in all. Tags of a modulation whose row
    /// does not ``LibNFCModulation/findsSeveral`` (FeliCa, type B ignore a deselect) get one select
    /// (as in libnfc).
    ///
    /// `found`: tags found (and deselected) already, by ``autoPoll(_:timeout:limit:)``: the list goes on after them.
    func listTargets(
        modulation: Modulation, row: LibNFCModulation, limit: Int, after found: [Target] = []
    ) throws(NFCError) -> [Target] {
        try setMode(.easy)
        let libnfc = row.libnfc
        // What libnfc's list sends with each select (`prepare_initiator_data`).
        let initData = row.pollData
        var targets = found
        active = nil
        isFreshlySelected = false
        libnfcTargetIsStale = false
        while targets.count < limit {
            var selected = nfc_target()
            let result = try libnfcCall(.poll(token), "nfc_initiator_select_passive_target", timeout: Self.selectTimeout) {
                initData.withUnsafeBufferPointer { data in
                    nfc_initiator_select_passive_target(
                        device, libnfc, data.isEmpty ? nil : data.baseAddress, data.count, &selected)
                }
            }
            if result < 0 {
                // A reader that went away is an error, and so is one that timed out and then does
                // not answer the probe either; an I/O error the chip answers a probe after is a
                // transient error (see checkAnswers); any other failed select (aborted, a garbled
                // answer, a timeout the chip answers after) is an empty field, as in libnfc's list.
                let error = LibNFCErrorCode(rawValue: result)
                if error.meansReaderGone {
                    throw error.nfcError(connstring: connstring, call: "nfc_initiator_select_passive_target")
                }
                _ = try checkAnswers(after: result, call: "nfc_initiator_select_passive_target", keeping: targets)
                break
            }
            guard result > 0, let target = Target(libnfc: selected, modulation: modulation) else { break }
            active = ActiveTarget(modulation: modulation, uid: target.uid)
            isFreshlySelected = true
            if targets.contains(where: { $0.uid == target.uid }) { break }
            targets.append(target)
            if targets.count == limit || !row.findsSeveral { break }
            let deselected = try libnfcCall(.poll(token), "nfc_initiator_deselect_target", timeout: configuration.commandTimeout) {
                nfc_initiator_deselect_target(device)
            }
            active = nil
            isFreshlySelected = false
            if deselected < 0 {
                let error = LibNFCErrorCode(rawValue: deselected)
                if error.meansReaderGone { throw error.nfcError(connstring: connstring, call: "nfc_initiator_deselect_target") }
                if try checkAnswers(after: deselected, call: "nfc_initiator_deselect_target", keeping: targets) { break }
            }
        }
        return targets
    }

    /// ``checkAnswers(after:call:)`` inside a list that already found `found`: true when a transient
    /// error (``NFCError/rfError(_:)``, a garbled frame) should end the list with them rather than
    /// lose them. They were deselected — halted: a halted tag answers only WUPA (ISO/IEC 14443-3 §6.3),
    /// and on a lossy line the next polls then found nothing for the rest of the tap — so the first
    /// exchange with one selects it again, resetting the field when needed (``select(_:)``).
    func checkAnswers(after result: Int32, call: String, keeping found: [Target]) throws(NFCError) -> Bool {
        do {
            try checkAnswers(after: result, call: call)
            return false
        } catch {
            guard case .rfError = error, !found.isEmpty else { throw error }
            return true
        }
    }

    // MARK: Exchanges

    /// Sends `command` to `target` and returns the answer without CRC (and without LEN for FeliCa).
    /// Wraps `nfc_initiator_transceive_bytes` in easy framing (`InDataExchange`) or, for
    /// ``Framing/raw`` ISO/IEC 14443-A frames, with CRC and easy framing off (`InCommunicateThru`);
    /// a Type 2 tag's frames stay raw while the chip is in raw mode (``speaksRawAlike(_:)``).
    func transceive(_ command: [UInt8], framing: Framing, to target: Target) throws(NFCError) -> [UInt8] {
        guard !command.isEmpty else { throw .invalidArgument("An empty command cannot be sent") }
        try makeActive(target)
        switch target.modulation {
        case .felica212, .felica424:
            // FeliCa CRC is not CRC_A, so the chip keeps handling it; only LEN is ours.
            try setMode(.easy)
            switch try exchange(try RawFrameCodec.feliCaFrame(command), timeout: configuration.commandTimeout) {
            case let .success(answer): return try RawFrameCodec.feliCaPayload(answer)
            case let .failure(code): throw try settle(code, target: target, ifStillThere: .timeout)
            }
        case .iso14443a where framing == .raw || (mode == .raw && Self.speaksRawAlike(target)):
            try setMode(.raw)
            // A frame the caller sent as a standard one fails as it would through InDataExchange:
            // silence or a broken answer from a tag still there is a refusal, not a timeout.
            let silence: NFCError = framing == .raw ? .timeout : .commandRefused(command: command[0], nak: nil)
            switch try exchange(RawFrameCodec.appendingCRCA(command), timeout: configuration.commandTimeout) {
            case let .success(answer):
                let decoded: RawFrameCodec.Answer
                do {
                    decoded = try RawFrameCodec.decodeRawAnswer(answer)
                } catch {
                    guard framing != .raw else { throw error }
                    active = nil
                    throw try select(target) ? silence : .tagRemoved
                }
                switch decoded {
                case let .data(bytes): return bytes
                case .ack: return [RawFrameCodec.ack]
                case let .nak(value):
                    // A NAK sends the tag to IDLE (ISO/IEC 14443-3): the next exchange selects it again.
                    active = nil
                    throw .commandRefused(command: command[0], nak: value)
                }
            // In raw mode a NAK is visible, so a failure here is silence (or a broken frame).
            case let .failure(code): throw try settle(code, target: target, ifStillThere: silence)
            }
        case .iso14443a, .iso14443b:
            try setMode(.easy)
            let isoDEP = target.isISODEP || target.modulation == .iso14443b
            let timeout = isoDEP ? configuration.apduTimeout : configuration.commandTimeout
            switch try exchange(command, timeout: timeout) {
            case let .success(answer):
                // InDataExchange reports a 4-bit ACK (WRITE, COMPATIBILITY WRITE) as status 00
                // with no data.
                return answer.isEmpty && !isoDEP ? [RawFrameCodec.ack] : answer
            case let .failure(code):
                // Easy framing hides a NAK inside NFC_ERFTRANS (PN532 status 13h, "invalid
                // received frame"); when the tag is still there after the error, it refused.
                throw try settle(code, target: target, ifStillThere: .commandRefused(command: command[0], nak: nil))
            }
        case .iso15693:
            throw .unsupportedOperation("libnfc cannot talk to ISO 15693 tags")
        case .jewel:
            // NFC Forum Type 1 is identified only (its registry row has no verbs): no command is sent.
            throw .unsupportedOperation("NFCBridge sends no commands to Jewel / Topaz tags")
        }
    }

    /// Sends the first `bitCount` bits of `frame` into the field as they are: raw mode (easy framing
    /// and chip CRC off), parity by the chip, no CRC added (short frames, the Gen1a unlock). Nothing is
    /// selected first — a sequence such as HLTA, 40h, 43h must reach the tag without a select between
    /// its frames — and afterwards the tag is not taken for selected (a HLTA or a backdoor command
    /// changed its state): the next exchange or ``reselect(_:)`` selects it again. Silence is
    /// ``NFCError/timeout``. Wraps
    /// `nfc_initiator_transceive_bits` (which sets CIU_BitFraming TxLastBits and sends
    /// InCommunicateThru; the answer's valid bits come from CIU_Control RxLastBits).
    func transceiveBits(_ frame: [UInt8], bitCount: Int, to target: Target) throws(NFCError) -> [UInt8] {
        guard target.modulation == .iso14443a else {
            throw .unsupportedOperation("Short frames are ISO 14443-A only")
        }
        guard !frame.isEmpty, frame.count <= 64, bitCount > (frame.count - 1) * 8, bitCount <= frame.count * 8 else {
            throw .invalidArgument("\(bitCount) bits do not fit a frame of \(frame.count) bytes")
        }
        try setMode(.raw)
        active = nil
        isFreshlySelected = false
        var answer = [UInt8](repeating: 0, count: 64)
        let capacity = answer.count
        let result = try libnfcCall(.command(token), "nfc_initiator_transceive_bits", timeout: configuration.commandTimeout) {
            frame.withUnsafeBufferPointer { tx in
                answer.withUnsafeMutableBufferPointer { rx in
                    nfc_initiator_transceive_bits(device, tx.baseAddress, bitCount, nil, rx.baseAddress, capacity, nil)
                }
            }
        }
        guard result > 0 else {
            try checkAnswers(after: result, call: "nfc_initiator_transceive_bits")
            throw .timeout
        }
        return Array(answer.prefix((Int(result) + 7) / 8))
    }

    /// Exchanges an ISO 7816-4 APDU over ISO-DEP; the chip does the block protocol.
    /// Wraps `nfc_initiator_transceive_bytes` in easy framing. An answer of one byte is returned as it
    /// came: DESFire native frames answer the status byte alone (MIFARE DESFire EV1 datasheet §9.1);
    /// ISO 7816 callers check SW1 SW2 themselves (`ResponseAPDU(raw:)`).
    func sendAPDU(_ apdu: [UInt8], to target: Target) throws(NFCError) -> [UInt8] {
        guard target.isISODEP || target.modulation == .iso14443b else {
            throw .unsupportedOperation("This tag does not speak ISO-DEP (SAK \(target.sak.map { $0.hexString } ?? "none"))")
        }
        let answer = try transceive(apdu, framing: .standard, to: target)
        guard !answer.isEmpty else { throw .invalidResponse(answer) }
        return answer
    }

    /// MIFARE Classic Crypto1 authentication, done by the PN53x firmware: `InDataExchange` with
    /// `60h`/`61h`, the block, the 6-byte key and the last 4 UID bytes (what libnfc's
    /// `nfc_initiator_mifare_cmd` sends for `MC_AUTH_A`/`MC_AUTH_B`).
    /// Wraps `nfc_initiator_transceive_bytes`.
    func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8], target: Target) throws(NFCError) {
        guard key.count == 6 else { throw .invalidArgument("A MIFARE Classic key is 6 bytes, got \(key.count)") }
        guard (0...255).contains(block) else { throw .invalidArgument("Block \(block) is out of range 0…255") }
        guard target.modulation == .iso14443a, target.uid.count >= 4 else {
            throw .unsupportedOperation("MIFARE Classic authentication needs an ISO 14443-A tag")
        }
        try makeActive(target)
        try setMode(.easy)
        let command = [keyType == .a ? 0x60 : 0x61, UInt8(block)] + key + Array(target.uid.suffix(4))
        switch try exchange(command, timeout: configuration.commandTimeout) {
        case .success:
            return
        case let .failure(code) where code.rawValue == NFC_EMFCAUTHFAIL:
            // The tag halts after a failed authentication: the next exchange must select it again.
            active = nil
            throw .authenticationFailed
        case let .failure(code):
            throw try settle(code, target: target, ifStillThere: .authenticationFailed)
        }
    }

    /// Selects `target` again. Throws ``NFCError/tagRemoved`` when it does not answer. Right after a
    /// select (a refusal is settled with one, see ``settle(_:target:ifStillThere:)``) the tag is
    /// already freshly selected and nothing is sent.
    func reselect(_ target: Target) throws(NFCError) {
        if isFreshlySelected && active == ActiveTarget(modulation: target.modulation, uid: target.uid) { return }
        guard try select(target) else { throw .tagRemoved }
    }

    /// True while `target` answers (``checkPresence(_:)`` is not ``PresenceCheck/absent``).
    func isPresent(_ target: Target) throws(NFCError) -> Bool {
        try checkPresence(target) != .absent
    }

    /// One presence check. ISO 14443 tags get libnfc's own presence check (READ 00 for
    /// Ultralight/NTAG, re-select for Classic, R(NAK) for ISO-DEP); when that fails a re-select
    /// confirms it, because a tag whose page 0 is read-protected, or one left idle by a NAK, fails
    /// the READ ping while still in the field. FeliCa tags are polled again (libnfc's Request
    /// Response ping does not work on FeliCa Lite).
    ///
    /// ``PresenceCheck/returned``: the ping got silence (or, for FeliCa, the first poll got no
    /// answer) and the re-select then found the same tag — it may have left and come back inside
    /// this check, which the caller must not take for an unbroken presence. A NAK or a broken
    /// frame is an answer: the tag was there. Wraps `nfc_initiator_target_is_present` and
    /// `nfc_initiator_select_passive_target`.
    func checkPresence(_ target: Target) throws(NFCError) -> PresenceCheck {
        if target.modulation.isFeliCa {
            // FeliCa has no HALT: a poll it does not answer means it was not in the field.
            if try selectOnce(target) { return .present }
            try cycleField()
            return try selectOnce(target) ? .returned : .absent
        }
        guard !libnfcTargetIsStale, active == ActiveTarget(modulation: target.modulation, uid: target.uid) else {
            return try select(target) ? .present : .absent
        }
        try setMode(.easy)
        isFreshlySelected = false
        let result = try libnfcCall(.command(token), "nfc_initiator_target_is_present", timeout: configuration.commandTimeout) {
            nfc_initiator_target_is_present(device, nil)
        }
        if result == 0 { return .present }
        let code = LibNFCErrorCode(rawValue: result)
        if code.meansReaderGoneOrAborted {
            throw code.nfcError(connstring: connstring, call: "nfc_initiator_target_is_present")
        }
        try checkAnswers(after: result, call: "nfc_initiator_target_is_present")
        // Silence says the tag was away: libnfc reports the chip's own RF timeout (PN532 status 01h,
        // UM0701-02 §7.1, after ~51 ms) to the READ or R(NAK) ping, and a failed re-select (Classic),
        // as NFC_ETGRELEASED. A host-side NFC_ETIMEOUT (no whole answer frame within the command
        // timeout) that ``checkAnswers(after:call:)`` let stand came with a chip that answers its
        // probe: the frame was lost on the line, which is an answer, not the tag's silence.
        let missed = result == NFC_ETGRELEASED
        guard try select(target) else { return .absent }
        return missed ? .returned : .present
    }

    // MARK: Building blocks

    /// Selects `target` unless it is the active one already.
    private func makeActive(_ target: Target) throws(NFCError) {
        if active == ActiveTarget(modulation: target.modulation, uid: target.uid) { return }
        guard try select(target) else { throw .tagRemoved }
    }

    /// Selects `target` by its UID (ISO 14443-A: libnfc cascades it) or polls for it (FeliCa: any
    /// system code; ISO 14443-B: any AFI) and checks that the same tag answered. When nothing
    /// answers, the field is cycled and the select tried once more: a tag still in ACTIVE state
    /// ignores the WUPA of a select, but every tag wakes up fresh after a field reset.
    /// Wraps `nfc_initiator_select_passive_target` and `nfc_device_set_property_bool(NP_ACTIVATE_FIELD)`.
    func select(_ target: Target) throws(NFCError) -> Bool {
        if try selectOnce(target) { return true }
        try cycleField()
        if try selectOnce(target) { return true }
        if deferredSearch?.found.uid == target.uid { deferredSearch?.isGone = true }
        return false
    }

    /// Switches the field off and on: every tag in it resets to IDLE.
    private func cycleField() throws(NFCError) {
        active = nil
        isFreshlySelected = false
        try setProperty(NP_ACTIVATE_FIELD, false)
        try setProperty(NP_ACTIVATE_FIELD, true)
    }

    private func selectOnce(_ target: Target) throws(NFCError) -> Bool {
        guard let row = LibNFCModulation.row(for: target.modulation) else {
            throw .unsupportedOperation("libnfc cannot select \(target.modulation.rawValue) tags")
        }
        try setMode(.easy)
        let libnfc = row.libnfc
        let initData = row.selectData.bytes(for: target)
        active = nil
        isFreshlySelected = false
        libnfcTargetIsStale = false
        var selected = nfc_target()
        let result = try libnfcCall(.command(token), "nfc_initiator_select_passive_target", timeout: Self.selectTimeout) {
            initData.withUnsafeBufferPointer { data in
                nfc_initiator_select_passive_target(device, libnfc, data.isEmpty ? nil : data.baseAddress, data.count, &selected)
            }
        }
        if result < 0 {
            let code = LibNFCErrorCode(rawValue: result)
            if code.meansReaderGoneOrAborted {
                throw code.nfcError(connstring: connstring, call: "nfc_initiator_select_passive_target")
            }
            try checkAnswers(after: result, call: "nfc_initiator_select_passive_target")
            return false
        }
        guard result > 0, let found = Target(libnfc: selected, modulation: target.modulation) else { return false }
        active = ActiveTarget(modulation: target.modulation, uid: found.uid)
        isFreshlySelected = true
        return found.uid == target.uid
    }

    /// Decides what a failed exchange means. `NFC_ERFTRANS` is ambiguous (see ``LibNFCErrorCode``),
    /// so the tag is asked again: ISO-DEP tags get a presence check, others a re-select (which
    /// also brings a tag that NAKed back from IDLE). Gone → ``NFCError/tagRemoved``; still there →
    /// `ifStillThere` (ISO-DEP: an RF error, the chip already retried).
    private func settle(_ code: LibNFCErrorCode, target: Target, ifStillThere: NFCError) throws(NFCError) -> NFCError {
        guard code.rawValue == NFC_ERFTRANS else {
            if code.rawValue == NFC_ETGRELEASED { active = nil }
            return code.nfcError(connstring: connstring, call: "nfc_initiator_transceive_bytes")
        }
        if target.isISODEP || target.modulation == .iso14443b {
            return try isPresent(target) ? .rfError("nfc_initiator_transceive_bytes: \(code.text)") : .tagRemoved
        }
        return try select(target) ? ifStillThere : .tagRemoved
    }

    /// One `nfc_initiator_transceive_bytes` call with the current framing.
    private func exchange(_ frame: [UInt8], timeout: Duration) throws(NFCError) -> Result<[UInt8], LibNFCErrorCode> {
        // libnfc copies the frame into a 264-byte command buffer (2 bytes of it for the chip
        // command) without checking its length.
        guard frame.count <= 262 else {
            throw .invalidArgument("A frame of \(frame.count) bytes does not fit a PN53x command (262 at most)")
        }
        isFreshlySelected = false
        var answer = [UInt8](repeating: 0, count: 300)
        let capacity = answer.count
        let milliseconds = timeout.libnfcMilliseconds
        let result = try libnfcCall(.command(token), "nfc_initiator_transceive_bytes", timeout: timeout) {
            frame.withUnsafeBufferPointer { tx in
                answer.withUnsafeMutableBufferPointer { rx in
                    nfc_initiator_transceive_bytes(device, tx.baseAddress, tx.count, rx.baseAddress, capacity, milliseconds)
                }
            }
        }
        guard result >= 0 else {
            try checkAnswers(after: result, call: "nfc_initiator_transceive_bytes")
            return .failure(LibNFCErrorCode(rawValue: result))
        }
        return .success(Array(answer.prefix(Int(result))))
    }

    /// A Type 2 tag (SAK 00h: neither ISO-DEP nor MIFARE Classic, whose Crypto1 only `InDataExchange`
    /// speaks; ISO/IEC 14443-3 §6.5.3.4 SAK coding, NFC Forum Digital Protocol §4.8.2 SEL_RES: b7b6 = 00b
    /// is the Type 2 platform) answers a frame sent raw with
    /// software CRC exactly as it answers the same frame through `InDataExchange`, and the raw answer
    /// shows a NAK where easy framing hides it (and costs a select to tell from removal). So once a
    /// raw command (GET_VERSION) has switched the chip's CRC off, the commands that follow stay raw:
    /// switching back would cost a `WriteRegister` round trip between arrival and publish. Polling
    /// and selecting switch back (``listTargets``, InAutoPoll).
    static func speaksRawAlike(_ target: Target) -> Bool {
        target.modulation == .iso14443a && target.sak == 0x00
    }

    /// Switches between easy framing + chip CRC and raw frames with software CRC, as libnfc's
    /// nfc-mfultralight does around GET_VERSION (CRC first, then framing).
    ///
    /// The CRC bits are set by writing TxMode and RxMode whole, with the values they hold at
    /// 106 kbps ISO/IEC 14443-A (speed 000b, framing 00b, only TxCRCEn/RxCRCEn differ; PN532 user
    /// manual UM0701-02 §8.6.23, CIU_TxMode 6302h and CIU_RxMode 6303h): libnfc then writes both in
    /// one `WriteRegister` instead of reading them first (one round trip per switch, not two).
    /// Raw frames are only ever sent to a selected 106 kbps type A tag, so those are the values
    /// the chip holds. Not for the `pcsc` driver, which has no PN53x registers.
    func setMode(_ wanted: LinkMode) throws(NFCError) {
        guard mode != wanted else { return }
        mode = nil
        let on = wanted == .easy
        if hasPN53xRegisters {
            let value: UInt8 = on ? 0x80 : 0x00
            for register: UInt16 in [0x6302, 0x6303] {
                let result = pn53x_write_register(device, register, 0xFF, value)
                if result < 0 {
                    try checkAnswers(after: result, call: "pn53x_write_register")
                    throw LibNFCErrorCode(rawValue: result).nfcError(connstring: connstring, call: "pn53x_write_register")
                }
            }
        }
        try setProperty(NP_HANDLE_CRC, on)
        try setProperty(NP_EASY_FRAMING, on)
        mode = wanted
    }

    /// Wraps `nfc_device_set_property_bool`.
    private func setProperty(_ property: nfc_property, _ value: Bool) throws(NFCError) {
        let result = nfc_device_set_property_bool(device, property, value)
        if result < 0 {
            try checkAnswers(after: result, call: "nfc_device_set_property_bool")
            throw LibNFCErrorCode(rawValue: result).nfcError(connstring: connstring, call: "nfc_device_set_property_bool")
        }
    }

    // MARK: Silent, gone or merely slow reader

    /// After a call that failed with `result`, tells a reader that is gone or silent from one
    /// whose line merely hiccuped. Returns when the call's own error stands; throws otherwise.
    ///
    /// - `NFC_ETIMEOUT` (the host gave up waiting: no ACK or no answer frame within the call's
    ///   timeout, see pn532_uart_send/receive in libnfc 1.8.0): asks the chip for its firmware
    ///   version. A PN53x reports a silent tag or an empty field itself (status 01h, `NFC_ERFTRANS`,
    ///   or NbTg 0 — select retries are finite, see ``open(connstring:generation:control:configuration:)``),
    ///   so a host-side timeout that two probes also meet means the reader stopped answering —
    ///   unless a third one, after ``flushLine()``, answers: then a garbled frame had left the chip
    ///   waiting for bytes that never came (``NFCError/rfError(_:)``); otherwise
    ///   ``NFCError/readerUnresponsive(_:)``. A probe that answers, or that meets a late frame
    ///   (`NFC_EIO`: bytes came, just not its ACK), leaves the call's error in force.
    /// - `NFC_EIO` (see ``LibNFCErrorCode/meansReaderGone``): a serial port that is no longer
    ///   there (the device node or the pty behind the link vanished), or a chip that fails three
    ///   probes with `NFC_EIO` as well, is gone: ``NFCError/readerUnavailable(_:)``. Probes that
    ///   time out: ``NFCError/readerUnresponsive(_:)``. A probe that answers makes it a transient
    ///   error of this call — a late or garbled frame — thrown as ``NFCError/rfError(_:)``: the
    ///   reader stays open and the caller goes on (the reader loop polls again and counts it).
    ///
    /// Not for libnfc's `pcsc` driver (no PN53x to probe): its `NFC_EIO` means the reader is gone.
    func checkAnswers(after result: Int32, call: String) throws(NFCError) {
        let code = LibNFCErrorCode(rawValue: result)
        guard result == NFC_ETIMEOUT || code.isIOError else { return }
        if code.isIOError, !hasPN53xRegisters { throw code.nfcError(connstring: connstring, call: call) }
        if let port = Self.serialPort(of: connstring), !Self.isCharacterDevice(port) {
            throw .readerUnavailable("\(connstring): \(call) failed (\(code.text)) and \(port) is no longer there")
        }
        guard hasPN53xRegisters else { return }
        // More than once: a chip still finishing the command that failed answers it late, and
        // that late frame is what the next probe meets (NFC_EIO: not the ACK it waits for). After a
        // timeout, such a frame is a sign of life too; after NFC_EIO a third probe gets a say.
        var probes: [Int32] = []
        for _ in 0..<(code.isIOError ? 3 : 2) {
            let answer = probe()
            if !code.isIOError, answer >= 0 || answer == NFC_EIO { return }
            if answer >= 0 {
                throw .rfError(
                    "\(call): \(code.text); the PN53x answered a GetFirmwareVersion probe right after it, "
                        + "so the reader is there: a late or garbled frame on the line")
            }
            probes.append(answer)
        }
        if code.isIOError, probes.allSatisfy({ $0 == NFC_EIO }) {
            throw .readerUnavailable(
                "\(connstring): \(call) failed: \(code.text), and \(probes.count) GetFirmwareVersion probes failed the same way")
        }
        let flushed = probes.allSatisfy { $0 == NFC_ETIMEOUT }
        if flushed {
            flushLine()
            let answer = probe()
            if answer >= 0 || answer == NFC_EIO {
                throw .rfError(
                    "\(call): \(code.text); the PN53x answered no GetFirmwareVersion probe until a line flush, so a "
                        + "garbled frame had left it waiting for a longer one: a noisy serial line")
            }
        }
        let what = code.isIOError ? "failed (\(code.text))" : "timed out"
        let tried = flushed ? "\(probes.count + 1) GetFirmwareVersion probes, the last after a line flush" : "\(probes.count) GetFirmwareVersion probes"
        throw .readerUnresponsive(
            "\(connstring): \(call) \(what) and the PN53x answered none of \(tried) (\(configuration.probeTimeout.libnfcMilliseconds) ms each)")
    }

    /// One `GetFirmwareVersion` (02h, PN532 user manual UM0701-02 §7.2.2) with ``LibNFCConfiguration/probeTimeout``:
    /// libnfc's result (≥ 0 when the chip answered; `NFC_ETIMEOUT` when the call passed its
    /// deadline).
    private func probe() -> Int32 {
        chipCommand([0x02], answerCapacity: 16)
    }

    /// The bytes of ``flushLine()``'s command: Diagnose (00h), NumTst 00h and zeros.
    static let lineFlushLength = 262

    /// Sends the longest line test a PN532 frame holds — Diagnose NumTst 00h (communication line test,
    /// echoed; PN532 user manual UM0701-02 §7.2.1) with 260 zero bytes, 273 bytes on the line — and
    /// ignores its fate. A host frame that lost its LEN or LCS byte on a noisy line can leave the chip's
    /// framer resynchronised on a `00 FF` inside that frame's data (the FeliCa poll's `00 FF FF 01`
    /// reads as a normal frame of LEN FFh with a valid LCS) and waiting for up to 266 more bytes (LEN
    /// + DCS; TFI + data is at most 265 bytes, UM0701-02 §6.2.1.1-2): every command swallowed, no ACK,
    /// while the chip is fine. These bytes complete that phantom frame, whose checksum then fails, and
    /// the chip looks for a start code again. A chip in step just echoes them.
    private func flushLine() {
        _ = chipCommand([UInt8](repeating: 0, count: Self.lineFlushLength), answerCapacity: Self.lineFlushLength + 8)
    }

    /// One PN53x command (`command[0]` is its code) with ``LibNFCConfiguration/probeTimeout``: libnfc's
    /// result, `NFC_ETIMEOUT` when the call passed its deadline. Wraps `pn53x_transceive`.
    private func chipCommand(_ command: [UInt8], answerCapacity: Int) -> Int32 {
        var answer = [UInt8](repeating: 0, count: answerCapacity)
        let milliseconds = configuration.probeTimeout.libnfcMilliseconds
        let (result, expired) = control.call(.command(token), deadline: deadline(for: configuration.probeTimeout)) {
            command.withUnsafeBufferPointer { tx in
                answer.withUnsafeMutableBufferPointer { rx in
                    pn53x_transceive(device, tx.baseAddress, tx.count, rx.baseAddress, answerCapacity, milliseconds)
                }
            }
        }
        return expired ? NFC_ETIMEOUT : result
    }

    /// The timeout libnfc gives `nfc_initiator_select_passive_target` (and its list functions).
    static let selectTimeout: Duration = .milliseconds(300)

    /// How long a call with libnfc timeout `timeout` may block: ``LibNFCConfiguration/callDeadline``,
    /// or twice the timeout plus 1 s when that is longer (libnfc waits up to `timeout` for the ACK
    /// and again for each part of the answer frame).
    func deadline(for timeout: Duration) -> Duration {
        max(configuration.callDeadline, timeout * 2 + .seconds(1))
    }

    /// One blocking libnfc call, marked in flight (abortable) and with its deadline. A call that
    /// passed its deadline was aborted: ``NFCError/readerUnresponsive(_:)``.
    func libnfcCall(
        _ kind: LibNFCAbortControl.InFlight, _ name: String, timeout: Duration, _ body: () -> Int32
    ) throws(NFCError) -> Int32 {
        let limit = deadline(for: timeout)
        let (result, expired) = control.call(kind, deadline: limit, body)
        if expired {
            throw .readerUnresponsive("\(connstring): \(name) did not return within its \(limit.libnfcMilliseconds) ms deadline and was aborted")
        }
        return result
    }
}
