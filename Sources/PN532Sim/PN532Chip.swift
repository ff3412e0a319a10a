import struct NFCCore.Target

/// The emulated PN532 firmware (UM0701-02 v1.6): registers, RF settings, the targets it has
/// activated, and the ISO/IEC 14443-3 state of the tags in the field as the chip's raw commands
/// see it. It turns one host command into a ``PN532Outcome``; it does no I/O and never sleeps —
/// the session thread owns it and sends the answers (after the modelled delays).
final class PN532Chip {
    /// A target the chip activated (InListPassiveTarget / InAutoPoll), numbered Tg 1, 2.
    struct ActivatedTarget {
        enum Kind: Equatable { case typeA, felica, typeB }
        let number: UInt8
        let placed: PlacedTag
        let kind: Kind
        var isDeselected = false
        /// Rest of an ISO-DEP answer longer than one InDataExchange frame (sent with MI set).
        var chainedAnswer: [UInt8] = []
        /// APDU parts the host sent with MI set in the Tg byte.
        var hostChain: [UInt8] = []
        /// Type B: the PCD's ISO-DEP block number (ISO/IEC 14443-4 §7.5.3.2, rule A: 0 after activation).
        var blockNumber: UInt8 = 0
    }

    /// A type A tag's state as the chip's frames move it (ISO/IEC 14443-3 §6.3; READY and READY*
    /// are the ``Anticollision`` in progress). A tag placed, or in a field switched on, is IDLE.
    enum TypeAState {
        /// Answers REQA and WUPA; ignores HLTA and every other frame.
        case idle
        /// Selected from IDLE: a NAK sends it back to IDLE (MF0ULX1 §8.3; NTAG213/215/216 §9.3).
        case active
        /// ACTIVE*: selected after WUPA woke it from HALT; a NAK sends it back to HALT (ISO/IEC
        /// 14443-3 §6.3; "IDLE or HALT", NTAG213/215/216 §8.4.4).
        case activeFromHalt
        /// Answers WUPA only, so REQA-style discovery skips it.
        case halted
    }

    /// What the air interface knows about one placement.
    struct AirState {
        var typeA = TypeAState.idle
        /// Set once RATS was answered: blocks go through the ISO-DEP layer.
        var isoDEP: ISODEPSession?

        var isHalted: Bool { typeA == .halted }

        /// Selected (anticollision and SELECT, or a WUPA/REQA select by the chip): ACTIVE, or
        /// ACTIVE* when it was HALTed (only WUPA reaches a HALTed tag).
        mutating func activated(isoDEP session: ISODEPSession?) {
            typeA = typeA == .halted ? .activeFromHalt : .active
            isoDEP = session
        }

        /// A NAK: ACTIVE goes back to IDLE, ACTIVE* to HALT.
        mutating func refused() {
            typeA = typeA == .activeFromHalt ? .halted : .idle
            isoDEP = nil
        }

        /// HLTA, S(DESELECT) or a failed MIFARE Classic authentication: a selected tag HALTs; an IDLE
        /// one (a NAK left it there) ignores HLTA.
        mutating func halted() {
            if typeA != .idle { typeA = .halted }
            isoDEP = nil
        }
    }

    /// Raw ISO/IEC 14443-3 anticollision in progress (InCommunicateThru REQA / ANTICOLLISION / SELECT).
    struct Anticollision {
        var ready: [PlacedTag]
        var level = 0
    }

    let field: RFField
    let timing: PN532Timing
    var registers = PN532RegisterFile()
    /// SetParameters flags (UM0701 §7.2.9); bit 4 fAutomaticRATS.
    var parameters: UInt8 = 0x00
    var isFieldOn = false
    /// RFConfiguration item 02, RetryTimeout code (0x0A = 51.2 ms after reset).
    var retryTimeoutCode: UInt8 = 0x0A
    /// RFConfiguration item 04, MaxRtyCOM.
    var maxRetriesCOM: UInt8 = 0x00
    /// RFConfiguration item 05, MxRtyPassiveActivation (FF = wait for a tag).
    var maxRetriesPassiveActivation: UInt8 = 0xFF
    var targets: [ActivatedTarget] = []
    var air: [UInt64: AirState] = [:]
    var anticollision: Anticollision?
    /// The type A tag in ACTIVE state that raw frames reach.
    var activeTypeA: PlacedTag?
    /// A Gen1a card that answered the unlock's 7-bit 40h and waits for 43h (``gen1aUnlockFirstStep()``).
    var gen1aUnlocking: PlacedTag?
    /// Status of the last RF exchange, for GetGeneralStatus.
    var lastStatus: PN532Status = .success

    static let autoRATSParameter: UInt8 = 0x10
    /// False for a chip made without InAutoPoll (``inAutoPoll(_:)`` answers the syntax-error frame).
    let answersAutoPoll: Bool

    init(field: RFField, timing: PN532Timing, answersAutoPoll: Bool = true) {
        self.field = field
        self.timing = timing
        self.answersAutoPoll = answersAutoPoll
    }

    /// Runs one command frame's data (`code params…`).
    func handle(_ data: [UInt8]) -> PN532Outcome {
        guard let code = data.first, let command = PN532CommandTable.byCode[code] else { return .syntaxError }
        return command.handle(self, Array(data.dropFirst()))
    }

    // MARK: Shared helpers

    /// Chip time a silent tag costs: RetryTimeout × (MaxRtyCOM + 1).
    var silentTagDelay: Duration {
        timing.chip(PN532Timing.retryTimeout(code: retryTimeoutCode) * (Int(maxRetriesCOM) + 1))
    }

    /// The answer for "the tag said nothing".
    var timeoutAnswer: PN532Outcome {
        lastStatus = .timeout
        return .answer([PN532Status.timeout.rawValue], delay: silentTagDelay)
    }

    /// Status byte + data.
    func statusAnswer(_ status: PN532Status, _ data: [UInt8] = []) -> PN532Outcome {
        lastStatus = status
        return .answer([status.rawValue] + data)
    }

    /// Switches the RF field; switching it off powers every tag down (UM0701 §7.3.1 item 01).
    func setField(on: Bool) {
        if isFieldOn && !on {
            for placed in field.placedTags { placed.tag.powerOff() }
            air.removeAll()
            targets.removeAll()
            anticollision = nil
            activeTypeA = nil
            registers.crypto1On = false
        }
        isFieldOn = on
    }

    /// True when `placed` is in the powered field and may take one more command.
    func reaches(_ placed: PlacedTag) -> Bool {
        isFieldOn && field.admitCommand(to: placed)
    }

    func airState(_ placed: PlacedTag) -> AirState { air[placed.placement] ?? AirState() }

    func updateAir(_ placed: PlacedTag, _ change: (inout AirState) -> Void) {
        var state = airState(placed)
        change(&state)
        air[placed.placement] = state
    }

    /// A selected tag leaves ACTIVE (`change`: HALT, or back to IDLE after a NAK); the chip no longer
    /// has it as its active type A target.
    func leaveActive(_ placed: PlacedTag, _ change: (inout AirState) -> Void) {
        updateAir(placed, change)
        if activeTypeA?.placement == placed.placement { activeTypeA = nil }
    }

    /// The ATS with its TL byte, as the PN532 returns it; a default one when the model gave none.
    static func atsWithLength(_ target: Target) -> [UInt8] {
        let ats = target.ats.isEmpty ? [0x78, 0x80, 0x70, 0x02] : target.ats
        return [UInt8(ats.count + 1)] + ats
    }
}
