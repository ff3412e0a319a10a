/// How a command travels through the reader.
public enum Framing: Sendable, Equatable {
    /// The reader adds and checks CRC itself and may interpret the command (PN53x InDataExchange).
    /// Right for READ, WRITE, FAST_READ, READ_SIG, READ_CNT and ISO-DEP.
    case standard
    /// The frame bypasses the reader's command interpretation; CRC_A is added and checked in
    /// software by the backend. Needed on PN53x for GET_VERSION (60h) and PWD_AUTH (1Bh), which
    /// InDataExchange would take for MIFARE Classic AUTH (libnfc nfc-mfultralight does the same).
    case raw
}

/// A command/response channel to one selected tag — the one seam every reader backend implements
/// (libnfc, in-process virtual tags, scripted test transports).
///
/// Commands and answers never carry CRC bytes: the backend adds and strips them. For FeliCa
/// targets, commands and answers never carry the leading LEN byte either.
///
/// Errors are ``NFCError``s: ``NFCError/commandRefused(command:nak:)`` for a NAK,
/// ``NFCError/timeout`` for silence, ``NFCError/tagRemoved`` when the tag is gone.
/// A 4-bit ACK (Type 2 WRITE) comes back as `[0x0A]`.
public protocol TagTransport: Sendable {
    /// The target this transport talks to, as selected.
    var target: Target { get }

    /// Sends one command and returns the answer.
    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8]

    /// Selects the same target again (after a NAK NXP Type 2 tags drop to IDLE and answer nothing
    /// until re-selected). Throws ``NFCError/tagRemoved`` when the tag is no longer there.
    func reselect() async throws
}

extension TagTransport {
    /// Sends a command with standard framing.
    public func transceive(_ command: [UInt8]) async throws -> [UInt8] {
        try await transceive(command, framing: .standard)
    }
}

/// Readers that can exchange ISO 7816-4 APDUs over ISO-DEP (ISO/IEC 14443-4): the reader does
/// RATS, block chaining and waiting-time extensions.
public protocol APDUTransport: TagTransport {
    /// Sends a command APDU (or any ISO-DEP information field, such as a DESFire native frame) and
    /// returns the answer as the card sent it: the response APDU including SW1 SW2, or a native
    /// DESFire answer, whose status byte may come alone.
    func sendAPDU(_ apdu: [UInt8]) async throws -> [UInt8]

    /// False when DESFire native frames (a command byte and its data, not an ISO 7816-4 APDU) may not
    /// reach the card as they are: a PC/SC reader or its driver may take one for a malformed APDU. The
    /// DESFire family then frames every command ISO 7816-4 wrapped. True by default (PN53x).
    var carriesNativeDESFireFrames: Bool { get }
}

extension APDUTransport {
    /// PN53x readers pass any ISO-DEP information field.
    public var carriesNativeDESFireFrames: Bool { true }
}

/// Which MIFARE Classic key.
public enum ClassicKeyType: String, Sendable, Codable {
    /// Key A (AUTH 60h).
    case a = "A"
    /// Key B (AUTH 61h).
    case b = "B"
}

/// Readers that can run MIFARE Classic Crypto1 authentication (PN53x does it in firmware).
/// After a successful `authenticate`, standard `transceive` READ (30h) / WRITE (A0h) work on the
/// authenticated sector.
public protocol ClassicAuthenticating: TagTransport {
    /// Authenticates the sector holding `block`. Throws ``NFCError/authenticationFailed`` on a
    /// wrong key (the tag then halts: re-select before trying another key).
    func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8]) async throws
}
