/// A DESFire status byte: the first byte of a native answer, or SW2 of a wrapped one (SW1 = 91h).
///
/// Table: MIFARE DESFire EV1 datasheet MF3ICD(Q)81 §9.3 "Status and error codes" (the same codes in
/// MIFARE DESFire EV2/EV3, DESFire Light MF2DLHX0 §10.2 and NTAG 424 DNA NT4H2421Gx §10.3, where
/// 1Eh, 1Fh and CAh come from). Unknown bytes keep their number and get a generic name.
public struct DESFireStatus: Sendable, Hashable, CustomStringConvertible {
    /// The raw status byte.
    public let rawValue: UInt8

    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    struct Row: Sendable {
        var status: UInt8
        /// The datasheet's upper-case name.
        var name: String
        /// Stable snake_case code: the name in lower case unless the row says otherwise.
        var code: String
        var message: String

        init(status: UInt8, name: String, code: String? = nil, message: String) {
            self.status = status
            self.name = name
            self.code = code ?? name.lowercased()
            self.message = message
        }
    }

    // MIFARE DESFire EV1 datasheet §9.3, table "Status and error codes".
    static let rows: [Row] = [
        Row(status: 0x00, name: "OPERATION_OK", message: "Successful operation"),
        Row(status: 0x0C, name: "NO_CHANGES", message: "No changes done to backup files"),
        Row(status: 0x0E, name: "OUT_OF_EEPROM_ERROR",
            message: "Insufficient NV-memory to complete the command"),
        Row(status: 0x1C, name: "ILLEGAL_COMMAND_CODE", message: "Command code not supported"),
        Row(status: 0x1E, name: "INTEGRITY_ERROR",
            message: "CRC or MAC does not match the data, or padding bytes are not valid"),
        Row(status: 0x1F, name: "DATA_NOT_FOUND", message: "No data found (EV2/EV3)"),
        Row(status: 0x40, name: "NO_SUCH_KEY", message: "Invalid key number specified"),
        Row(status: 0x7E, name: "LENGTH_ERROR", message: "Length of the command string is invalid"),
        Row(status: 0x9D, name: "PERMISSION_DENIED",
            message: "The current configuration or status does not allow the requested command"),
        Row(status: 0x9E, name: "PARAMETER_ERROR", message: "Value of a parameter is invalid"),
        Row(status: 0xA0, name: "APPLICATION_NOT_FOUND",
            message: "The requested AID is not present on the PICC"),
        Row(status: 0xA1, name: "APPL_INTEGRITY_ERROR", code: "application_integrity_error",
            message: "Unrecoverable error within the application; it will be disabled"),
        Row(status: 0xAE, name: "AUTHENTICATION_ERROR",
            message: "The current authentication status does not allow the requested command"),
        Row(status: 0xAF, name: "ADDITIONAL_FRAME", message: "Additional data frame is expected"),
        Row(status: 0xBE, name: "BOUNDARY_ERROR",
            message: "Attempt to read or write beyond the file's or record's limits"),
        Row(status: 0xC1, name: "PICC_INTEGRITY_ERROR",
            message: "Unrecoverable error within the PICC; it will be disabled"),
        Row(status: 0xCA, name: "COMMAND_ABORTED", message: "The previous command was not fully completed"),
        Row(status: 0xCD, name: "PICC_DISABLED_ERROR",
            message: "The PICC was disabled by an unrecoverable error"),
        Row(status: 0xCE, name: "COUNT_ERROR",
            message: "Number of applications is limited to 28; no additional CreateApplication possible"),
        Row(status: 0xDE, name: "DUPLICATE_ERROR",
            message: "Creation of a file or application failed: it already exists"),
        Row(status: 0xEE, name: "EEPROM_ERROR", message: "Could not complete NV-write operation"),
        Row(status: 0xF0, name: "FILE_NOT_FOUND", message: "The specified file number does not exist"),
        Row(status: 0xF1, name: "FILE_INTEGRITY_ERROR",
            message: "Unrecoverable error within the file; it will be disabled"),
    ]

    private var row: Row? { Self.rows.first { $0.status == rawValue } }

    /// The datasheet name ("AUTHENTICATION_ERROR"), or "STATUS_xx" for a byte the table does not know.
    public var name: String { row?.name ?? "STATUS_\(rawValue.hexString)" }

    /// A stable snake_case code ("authentication_error"), or "desfire_status_xx" for an unknown byte.
    public var code: String { row?.code ?? "desfire_status_\(rawValue.hexString.lowercased())" }

    /// The datasheet's explanation.
    public var message: String { row?.message ?? "Unknown DESFire status" }

    /// True for 00h (OPERATION_OK).
    public var isOK: Bool { rawValue == 0x00 }
    /// True for AFh (ADDITIONAL_FRAME).
    public var isAdditionalFrame: Bool { rawValue == 0xAF }

    public var description: String { "\(name) (91\(rawValue.hexString)): \(message)" }

    // Named constants for the codes the dump walk branches on.
    public static let ok = DESFireStatus(0x00)
    public static let additionalFrame = DESFireStatus(0xAF)
    public static let authenticationError = DESFireStatus(0xAE)
    public static let permissionDenied = DESFireStatus(0x9D)
    public static let fileNotFound = DESFireStatus(0xF0)
    public static let applicationNotFound = DESFireStatus(0xA0)
    public static let lengthError = DESFireStatus(0x7E)
    public static let illegalCommand = DESFireStatus(0x1C)
    public static let boundaryError = DESFireStatus(0xBE)
}

extension NFCError {
    /// The DESFire status of a ``NFCError/desfireError(status:)``, else nil. Its ``DESFireStatus/code``
    /// refines the error's stable `desfire_error` code.
    public var desfireStatus: DESFireStatus? {
        if case let .desfireError(status) = self { return DESFireStatus(status) }
        return nil
    }
}
