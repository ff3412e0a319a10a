/// What a PC/SC contactless reader can do beyond sending APDUs to an ISO-DEP card, one row per reader
/// family, each from its vendor's reference manual. The backend picks a row from the reader's name
/// (``matching(readerName:)``) or, for a name it does not know, from what the reader answers with a card
/// present (``PCSCSession``): the ACR122U's firmware string, a transparent session that starts.
///
/// Each capability degrades on its own: a reader without a way to send a raw frame (no transparent
/// session, no Direct Transmit) still identifies a tag from its ATR card name and its CC, reads NDEF with
/// `FF B0` and writes with `FF D6`; what it could not refine is said in the scan (`notRefined`).
public struct PCSCReaderProfile: Sendable, Hashable {
    /// The reader families NFCBridge has a row for.
    public enum Model: String, Sendable, CaseIterable, Codable {
        /// Any PC/SC 2.02 part 3 reader: storage-card pseudo-APDUs only.
        case generic = "pcsc-part3"
        /// A part 3 reader that also offers the transparent session (`FF C2`).
        case transparentSession = "pcsc-part3-transparent"
        case acr122u = "acr122u"
        case acr1252u = "acr1252u"
        case acr1552u = "acr1552u"
    }

    /// What the reader offers; each member names the commands it stands for.
    public struct Capabilities: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// GET DATA `FF CA` (UID; PC/SC part 3 §3.2.2.1.3).
        public static let getData = Capabilities(rawValue: 1 << 0)
        /// READ BINARY `FF B0` / UPDATE BINARY `FF D6` (§3.2.2.1.8–9).
        public static let binary = Capabilities(rawValue: 1 << 1)
        /// LOAD KEYS `FF 82` + GENERAL AUTHENTICATE `FF 86` (§3.2.2.1.4, §3.2.2.1.6): MIFARE Classic.
        public static let classicAuthentication = Capabilities(rawValue: 1 << 2)
        /// MANAGE SESSION / TRANSPARENT EXCHANGE `FF C2` (§3.2.2.1.12–13): raw frames (GET_VERSION…).
        public static let transparentSession = Capabilities(rawValue: 1 << 3)
        /// ACR122U Direct Transmit `FF 00 00 00 Lc` + a PN532 command: InCommunicateThru (`D4 42`) for raw
        /// frames, InDataExchange (`D4 40`).
        public static let directTransmit = Capabilities(rawValue: 1 << 4)
        /// ACR122U Bi-color LED and Buzzer Control `FF 00 40`.
        public static let ledBuzzerPseudoAPDU = Capabilities(rawValue: 1 << 5)
        /// ACR122U Get Firmware Version `FF 00 48 00 00` (ASCII, no status word).
        public static let firmwarePseudoAPDU = Capabilities(rawValue: 1 << 6)
        /// ACS escape commands through `SCardControl` (IOCTL 3500): LED `E0 00 00 29 01`, buzzer
        /// `E0 00 00 28 01`, firmware `E0 00 00 18 00`.
        public static let escapeLEDBuzzer = Capabilities(rawValue: 1 << 7)
        /// ISO 15693 tags (UID by `FF CA`, blocks by `FF B0` / `FF D6` with the block number in P1 P2).
        public static let iso15693 = Capabilities(rawValue: 1 << 8)

        /// The capabilities' names, for `readers --json` and docs/readers.md.
        public static let names: [(Capabilities, String)] = [
            (.getData, "get_data"), (.binary, "read_update_binary"), (.classicAuthentication, "classic_authentication"),
            (.transparentSession, "transparent_session"), (.directTransmit, "direct_transmit"),
            (.ledBuzzerPseudoAPDU, "led_buzzer"), (.firmwarePseudoAPDU, "firmware_string"),
            (.escapeLEDBuzzer, "led_buzzer_escape"), (.iso15693, "iso15693"),
        ]

        /// The names of the members present, in ``names`` order.
        public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }

        /// A way to send a raw frame (GET_VERSION, READ_SIG, PWD_AUTH, ISO 15693 custom commands).
        public var sendsRawFrames: Bool { !isDisjoint(with: [.transparentSession, .directTransmit]) }
        /// A way to drive the reader's LED and buzzer.
        public var drivesIndicators: Bool { !isDisjoint(with: [.ledBuzzerPseudoAPDU, .escapeLEDBuzzer]) }
    }

    public let model: Model
    /// The vendor's document the row is written from.
    public let manual: String
    /// Substrings of the name pcscd gives the reader (from the USB product string).
    public let nameMarkers: [String]
    public let capabilities: Capabilities

    /// Part 3 storage-card commands every row has.
    static let part3: Capabilities = [.getData, .binary, .classicAuthentication]

    /// The rows. Readers are matched by name in this order.
    public static let all: [PCSCReaderProfile] = [
        // ACR122U Application Programming Interface v2.04: §4 PICC commands (GET DATA), §5 MIFARE Classic
        // (Load Authentication Keys, Authentication, Read / Update Binary Blocks), §6 Pseudo-APDUs: Direct
        // Transmit, Bi-color LED and Buzzer Control, Get the Firmware Version. No transparent session
        // (it answers FF C2 with 6A 81) and no ISO 15693 (a PN532 inside).
        PCSCReaderProfile(
            model: .acr122u, manual: "ACS ACR122U Application Programming Interface v2.04 (§4–§6)",
            nameMarkers: ["ACR122"],
            capabilities: part3.union([.directTransmit, .ledBuzzerPseudoAPDU, .firmwarePseudoAPDU])),
        // ACR1252U Reference Manual v1.x: §5.3 PICC commands (GET DATA, Load Authentication Keys,
        // Authentication, Read / Update Binary), §5.5 peripherals control through escape commands
        // (SCardControl 3500: Get Firmware Version E0 00 00 18, LED Control E0 00 00 29, Buzzer Control
        // E0 00 00 28). ISO 14443 A/B, MIFARE, FeliCa; no ISO 15693, no transparent session.
        PCSCReaderProfile(
            model: .acr1252u, manual: "ACS ACR1252U Reference Manual (PICC commands; peripherals control escape commands)",
            nameMarkers: ["ACR1252"], capabilities: part3.union([.escapeLEDBuzzer])),
        // ACR1552U Series Reference Manual v1.08: PC/SC part 3 PICC commands with ISO 15693 blocks in
        // Read / Update Binary, the part 3 transparent session, §6.2 escape commands for LED and buzzer.
        PCSCReaderProfile(
            model: .acr1552u, manual: "ACS ACR1552U Series Reference Manual v1.08 (PICC commands; §6.2 escape commands)",
            nameMarkers: ["ACR1552"], capabilities: part3.union([.transparentSession, .escapeLEDBuzzer, .iso15693])),
        // PC/SC Specifications Part 3 v2.02 §3.2.2.1 with the transparent session (§3.2.2.1.12–14).
        PCSCReaderProfile(
            model: .transparentSession, manual: "PC/SC Specifications Part 3 v2.02 §3.2.2.1 (with §3.2.2.1.12–14)",
            nameMarkers: [], capabilities: part3.union([.transparentSession, .iso15693])),
        // PC/SC Specifications Part 3 v2.02 §3.2.2.1 storage-card commands only.
        PCSCReaderProfile(
            model: .generic, manual: "PC/SC Specifications Part 3 v2.02 §3.2.2.1",
            nameMarkers: [], capabilities: part3.union([.iso15693])),
    ]

    /// The row of `model`.
    public static func row(_ model: Model) -> PCSCReaderProfile {
        all.first { $0.model == model } ?? all[all.count - 1]
    }

    /// The row whose name markers the reader's name holds; nil for a name no row knows (the reader's
    /// answers decide then).
    public static func matching(readerName: String) -> PCSCReaderProfile? {
        all.first { row in row.nameMarkers.contains { readerName.containsIgnoringCase($0) } }
    }

    /// The ACR122U's firmware string starts so (ACR122U API, Get the Firmware Version: "ACR122U201").
    static let acr122uFirmwarePrefix = "ACR122U"
}

extension String {
    /// Case-insensitive containment without Foundation.
    fileprivate func containsIgnoringCase(_ other: String) -> Bool {
        lowercased().contains(other.lowercased())
    }
}
