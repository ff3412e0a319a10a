import Glibc
import Synchronization

/// The PC/SC readers `nfcbridge-sim --vpcd` can be (`--pcsc-reader MODEL`), each with the command set its
/// vendor's manual lists; the emulation refuses the rest as that reader does. Written from the manuals
/// for the simulator, apart from the agent's own reader table.
public enum PCSCReaderModel: String, Sendable, CaseIterable {
    /// A PC/SC 2.02 part 3 reader with the transparent session (the default: what the simulator always was).
    case part3Transparent = "part3-transparent"
    /// A part 3 reader with the storage-card commands only.
    case part3 = "part3"
    case acr122u, acr1252u, acr1552u

    /// The class-FF instructions (and ACR122U pseudo-APDUs) a reader may accept.
    public enum Command: Sendable, Hashable {
        /// GET DATA `FF CA`.
        case getData
        /// READ BINARY `FF B0`, UPDATE BINARY `FF D6`.
        case readUpdateBinary
        /// LOAD KEYS `FF 82`, GENERAL AUTHENTICATE `FF 86`, and the older AUTHENTICATE `FF 88`.
        case classicKeys
        /// MANAGE SESSION / TRANSPARENT EXCHANGE `FF C2`.
        case transparentSession
        /// ACR122U Direct Transmit `FF 00 00 00 Lc` + PN532 command.
        case directTransmit
        /// ACR122U Bi-color LED and Buzzer Control `FF 00 40`.
        case ledBuzzer
        /// ACR122U Get the Firmware Version `FF 00 48 00 00`.
        case firmwareVersion
    }

    /// One reader: what it accepts and which cards it reads.
    public struct Row: Sendable {
        public let commands: Set<Command>
        /// The reader reads ISO 15693 cards (a PN532 cannot, ACR122U; the ACR1252U's front end neither).
        public let readsISO15693: Bool
        /// The answer to Get the Firmware Version, for readers that have it.
        public let firmware: String?
    }

    /// Part 3 storage-card commands (PC/SC part 3 v2.02 §3.2.2.1.3–9).
    private static let storage: Set<Command> = [.getData, .readUpdateBinary, .classicKeys]

    /// Sources, per row:
    /// - part3 / part3-transparent: PC/SC Specifications Part 3 v2.02 §3.2.2.1 (transparent session
    ///   §3.2.2.1.12–14 for the latter);
    /// - acr122u: ACR122U Application Programming Interface v2.04 — PICC commands (GET DATA), MIFARE
    ///   Classic commands (Load Authentication Keys, Authentication, Read / Update Binary Blocks) and the
    ///   Pseudo-APDUs (Direct Transmit, Bi-color LED and Buzzer Control, Get the Firmware Version); FF C2
    ///   is not among them (6A 81), and its PN532 has no ISO 15693;
    /// - acr1252u: ACR1252U Reference Manual — PICC commands; its LED and buzzer are escape commands
    ///   (SCardControl), not APDUs, and it reads no ISO 15693;
    /// - acr1552u: ACR1552U Series Reference Manual v1.08 — PICC commands, ISO 15693 blocks through
    ///   Read / Update Binary, the transparent session; LED and buzzer are escape commands.
    public var row: Row {
        switch self {
        case .part3Transparent: Row(commands: Self.storage.union([.transparentSession]), readsISO15693: true, firmware: nil)
        case .part3: Row(commands: Self.storage, readsISO15693: true, firmware: nil)
        case .acr122u:
            Row(commands: Self.storage.union([.directTransmit, .ledBuzzer, .firmwareVersion]), readsISO15693: false,
                firmware: "ACR122U201")
        case .acr1252u: Row(commands: Self.storage, readsISO15693: false, firmware: nil)
        case .acr1552u: Row(commands: Self.storage.union([.transparentSession]), readsISO15693: true, firmware: nil)
        }
    }

    /// The command a class-FF APDU is, nil for an instruction no reader here knows.
    static func command(ins: UInt8, p1: UInt8) -> Command? {
        switch (ins, p1) {
        case (0xCA, _): .getData
        case (0xB0, _), (0xD6, _): .readUpdateBinary
        case (0x82, _), (0x86, _), (0x88, _): .classicKeys
        case (0xC2, _): .transparentSession
        case (0x00, 0x00): .directTransmit
        case (0x00, 0x40): .ledBuzzer
        case (0x00, 0x48): .firmwareVersion
        default: nil
        }
    }
}

/// What a person at the emulated reader would see and hear, and the reader's own faults: read by the
/// control channel (`{"cmd":"reader"}`), written by the emulation on the vpcd thread.
public final class PCSCReaderPanel: Sendable {
    /// The LEDs and the buzzer as the last command left them.
    public struct State: Sendable, Equatable {
        public var red = false
        public var green = false
        /// Beeps the buzzer gave in total (each repetition linked to the buzzer counts one).
        public var beeps = 0
        /// LED / buzzer commands received.
        public var commands = 0
        /// The last LED / buzzer command, hex.
        public var lastCommand = ""
        /// The card stops answering: APDUs get no response at all (`never_answer` fault).
        public var isMute = false
    }

    private let state = Mutex(State())

    public init() {}

    public var snapshot: State { state.withLock { $0 } }

    func update(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }

    /// Waits (on the control channel's thread) until `count` LED / buzzer commands arrived in total;
    /// false when `timeout` passed first.
    public func waitForCommands(_ count: Int, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while snapshot.commands < count {
            guard ContinuousClock.now < deadline else { return false }
            usleep(2000)
        }
        return true
    }

    /// Arms (or clears) the never-answering card.
    public func setMute(_ mute: Bool) { state.withLock { $0.isMute = mute } }
}
