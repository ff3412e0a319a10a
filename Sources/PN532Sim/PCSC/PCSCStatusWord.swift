/// The status words the emulated PC/SC reader answers its pseudo-APDUs with (PC/SC part 3 rev. 2.02
/// §3.2.2.1, the tables of each command; ACR122U / ACR1252U reference manuals for the cases where
/// those readers answer more plainly). docs/simulator.md lists which command gives which.
public enum PCSCStatusWord: UInt16, Sendable, CaseIterable {
    /// Success.
    case success = 0x9000
    /// The card did not do it: NAK, no answer, failed authentication (ACR122U/ACR1252U "operation failed").
    case failed = 0x6300
    /// Wrong Lc or Le for the command.
    case wrongLength = 0x6700
    /// Classic block read or written without an authentication for its sector.
    case securityStatusNotSatisfied = 0x6982
    /// Key number outside the reader's volatile key slots (Load Keys / General Authenticate).
    case keyNumberNotValid = 0x6988
    /// Key length is not 6 (Load Keys).
    case keyLengthNotCorrect = 0x6989
    /// The card refuses the command for the block (ISO 15693 block locked) or no transparent session is open.
    case commandNotAllowed = 0x6986
    /// The command or its P1 does not exist for this card (Get Data P1 02h, Read Binary on a Type 4 card…).
    case functionNotSupported = 0x6A81
    /// Addressed block does not exist.
    case blockNotFound = 0x6A82
    /// P1/P2 not valid.
    case wrongParameters = 0x6B00
    /// Unknown INS in class FF.
    case instructionNotSupported = 0x6D00
    /// Class other than FF for a card without ISO/IEC 14443-4.
    case classNotSupported = 0x6E00

    /// SW1 SW2.
    public var bytes: [UInt8] { [UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)] }
}
