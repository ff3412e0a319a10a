/// Status byte of the PN532's initiator commands (UM0701-02 §7.1, table "Error code list").
///
/// The status byte of InDataExchange / InCommunicateThru answers holds the code in bits 5–0;
/// bit 6 is MI (more information follows) and bit 7 NAD. The emulator never sets NAD: libnfc's
/// `pn53x_transceive()` calls `abort()` when it sees it.
public enum PN532Status: UInt8, Sendable, CaseIterable {
    /// Success.
    case success = 0x00
    /// Time out: the target has not answered.
    case timeout = 0x01
    /// CRC error detected by the CIU.
    case crcError = 0x02
    /// Parity error detected by the CIU.
    case parityError = 0x03
    /// Erroneous bit count during anticollision / select (106 kbps type A only).
    case bitCountError = 0x04
    /// Framing error during a MIFARE operation.
    case framingError = 0x05
    /// Abnormal bit collision during bitwise anticollision at 106 kbps.
    case bitCollision = 0x06
    /// Communication buffer too small for the answer.
    case bufferTooSmall = 0x07
    /// RF buffer overflow in the CIU.
    case rfBufferOverflow = 0x09
    /// The RF field was not switched on in time.
    case rfFieldNotOn = 0x0A
    /// RF protocol error.
    case rfProtocolError = 0x0B
    /// Overheating.
    case temperatureError = 0x0D
    /// Internal buffer overflow.
    case internalBufferOverflow = 0x0E
    /// Invalid parameter (range, format, …).
    case invalidParameter = 0x10
    /// DEP: command received in an invalid state.
    case depInvalidCommand = 0x12
    /// The data format does not match the specification (MIFARE / ISO/IEC 14443-4, DEP).
    /// Also used for a tag's 4-bit NAK to a MIFARE command (libnfc: "Invalid received frame").
    case invalidFrame = 0x13
    /// MIFARE authentication error.
    case mifareAuthenticationError = 0x14
    /// ISO/IEC 14443-3: UID check byte (BCC) wrong.
    case uidCheckByteWrong = 0x23
    /// DEP: invalid device state.
    case depInvalidDeviceState = 0x25
    /// Operation not allowed in this configuration.
    case operationNotAllowed = 0x26
    /// Command not acceptable in the current context (unknown or released target, wrong mode).
    case wrongContext = 0x27
    /// The PN532 as target was released by its initiator.
    case releasedByInitiator = 0x29
    /// ISO/IEC 14443-3B: the card ID does not match.
    case cardIDMismatch = 0x2A
    /// ISO/IEC 14443-3B: the card previously activated has disappeared.
    case cardDisappeared = 0x2B
    /// NFCID3 mismatch in DEP 212/424 passive.
    case nfcid3Mismatch = 0x2C
    /// Over-current event.
    case overCurrent = 0x2D
    /// NAD missing in a DEP frame.
    case nadMissing = 0x2E
}
