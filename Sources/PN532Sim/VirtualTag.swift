import enum NFCCore.ClassicKeyType
import struct NFCCore.Target

/// What a virtual tag answers to one ISO/IEC 14443-3 frame (Flipper listener style: an explicit
/// outcome, never an exception).
public enum VirtualTagReply: Sendable, Equatable {
    /// A full answer; the PN532 (or the in-process transport) adds the CRC.
    case data([UInt8])
    /// 4-bit ACK (0Ah), e.g. after WRITE.
    case ack
    /// 4-bit NAK with its code (0h invalid argument/page, 1h/5h CRC/parity or EEPROM error, 4h
    /// auth/count). NXP Type 2 tags drop to IDLE after sending it.
    case nak(UInt8)
    /// No answer at all (the tag is IDLE/HALT, or ignores the command).
    case silent
}

/// A tag in the emulated field. Implementations are classes that guard their state with a lock,
/// so the PN532 emulator thread and tests can both touch them.
///
/// Life cycle (ISO/IEC 14443-3 §6.3): power-on → IDLE; ``activate()`` models REQA/WUPA plus
/// anticollision and SELECT, which puts the tag in ACTIVE; ``receive(_:)`` then handles one frame.
/// A tag that NAKs or is HALTed answers ``VirtualTagReply/silent`` until activated again.
/// ``powerOff()`` models the field going off (auth state and pending two-frame commands reset).
public protocol VirtualTag: AnyObject, Sendable {
    /// What anticollision / polling reveals: UID, ATQA (MSB first), SAK, ATS; or IDm/PMm/system code.
    var target: Target { get }
    /// REQA/WUPA + anticollision + SELECT. Returns false when the tag does not answer (e.g. it was
    /// removed, or a HALTed tag gets REQA — the emulator always uses WUPA, so HALT is left).
    func activate() -> Bool
    /// One frame (without CRC) to the ACTIVE tag.
    func receive(_ frame: [UInt8]) -> VirtualTagReply
    /// The RF field went off: back to power-on state.
    func powerOff()
}

/// A virtual ISO/IEC 14443-4 tag: the emulated PN532 does RATS and block chaining and hands over
/// whole APDUs.
public protocol ISODEPVirtualTag: VirtualTag {
    /// One command APDU; returns the response APDU with SW1 SW2.
    func process(apdu: [UInt8]) -> [UInt8]
}

/// A virtual MIFARE Classic tag. Crypto1 itself is not modelled: the PN532 runs it in firmware,
/// so the emulator only needs to know whether the key is right (compared against the sector
/// trailer), and then lets READ/WRITE through for the authenticated sector.
public protocol ClassicVirtualTag: VirtualTag {
    /// Checks `key` of type `keyType` for the sector of `block`, with the UID the reader sent.
    /// On success the sector is authenticated; on failure the tag halts.
    func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8], uid: [UInt8]) -> Bool
}

/// A virtual FeliCa tag (JIS X 6319-4).
public protocol FeliCaVirtualTag: VirtualTag {
    /// Answers POLLING for `systemCode` (FFFF = wildcard).
    func answersPolling(systemCode: [UInt8]) -> Bool
    /// One FeliCa command without the LEN byte; returns the answer without LEN, or nil for silence.
    func process(felica command: [UInt8]) -> [UInt8]?
}
