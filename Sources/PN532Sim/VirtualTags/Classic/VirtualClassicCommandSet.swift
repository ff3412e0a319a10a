/// What a virtual MIFARE Classic ACCEPTS once selected: the commands of the datasheets' command
/// overview, written for the simulator alone (NFCCore's Classic code is not consulted).
///
/// Sources: MF1S50yyX/V1 (Classic EV1 1K) Rev. 3.2 §9.1 Table 9 "Command overview" and MF1S70yyX/V1
/// (Classic EV1 4K) §9.1 Table 9, which list the same commands; the Mini (MF1S20yyX) uses the same
/// command set (its datasheet was not at hand: UNVERIFIED for the Mini). The ISO/IEC 14443-3 activation
/// frames of that table (REQA, WUPA, anticollision, SELECT) are the emulated PN532's business and never
/// reach the tag's ``VirtualClassicTag/receive(_:)``; authentication (60h / 61h) reaches
/// ``VirtualClassicTag/authenticate(block:keyType:key:uid:)``.
///
/// A frame whose first byte is not in the table gets no answer and the card leaves ACTIVE: Table 9 is
/// "all available commands", and ISO/IEC 14443-3 §6.3 (PICC states) sends a PICC that receives
/// anything else in ACTIVE back to IDLE (HALT if it came from there) without an answer. A listed
/// command the simulator does not model is answered the same way (documented in docs/simulator.md):
/// never a made-up ACK.
enum VirtualClassicCommandSet {
    /// What the simulator does with a listed command.
    enum Handling: Sendable, Equatable {
        /// Answered by ``VirtualClassicTag`` (READ, WRITE).
        case simulated
        /// Ends the session without an answer: HLTA, as the card does (ISO/IEC 14443-3 §6.4.3).
        case halt
        /// Authentication: the PN532 runs Crypto1 in firmware and hands the key to
        /// ``VirtualClassicTag/authenticate(block:keyType:key:uid:)``; the same code sent as a raw frame
        /// (InCommunicateThru) gets silence, the simulator having no Crypto1.
        case authentication
        /// In Table 9, not modelled (value operations, EV1 personalisation): silence, card halted.
        case notSimulated
    }

    /// One row of Table 9: first byte, datasheet name, handling.
    struct Row: Sendable {
        var code: UInt8
        var name: String
        var handling: Handling
    }

    /// MF1S50yyX/V1 §9.1 Table 9 and MF1S70yyX/V1 §9.1 Table 9, without the ISO/IEC 14443-3 activation
    /// rows handled by the PN532.
    static let rows: [Row] = [
        Row(code: 0x50, name: "Halt (HLTA 50h 00h)", handling: .halt),
        Row(code: 0x60, name: "Authentication with Key A", handling: .authentication),
        Row(code: 0x61, name: "Authentication with Key B", handling: .authentication),
        Row(code: 0x40, name: "Personalize UID Usage", handling: .notSimulated),
        Row(code: 0x43, name: "SET_MOD_TYPE", handling: .notSimulated),
        Row(code: 0x30, name: "MIFARE Read", handling: .simulated),
        Row(code: 0xA0, name: "MIFARE Write", handling: .simulated),
        Row(code: 0xC0, name: "MIFARE Decrement", handling: .notSimulated),
        Row(code: 0xC1, name: "MIFARE Increment", handling: .notSimulated),
        Row(code: 0xC2, name: "MIFARE Restore", handling: .notSimulated),
        Row(code: 0xB0, name: "MIFARE Transfer", handling: .notSimulated),
    ]

    /// How a frame starting with `code` is taken: nil when Table 9 does not list it.
    static func handling(of code: UInt8) -> Handling? {
        rows.first { $0.code == code }?.handling
    }

    /// MF1S50yyX/V1 §9.3 Table 10 "MIFARE ACK and NAK": the 4-bit codes the card answers.
    enum NAK {
        /// Invalid operation, transfer buffer invalid: what the simulator answers a refused READ / WRITE
        /// (it models no transfer buffer, so the buffer is never valid).
        static let invalidOperation: UInt8 = 0x4
    }
}
