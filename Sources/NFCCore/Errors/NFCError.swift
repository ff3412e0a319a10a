/// Errors of the NFC domain. Every case has a stable snake_case ``code`` (published on MQTT and
/// printed by the CLI — never rename one) and a human ``message`` built from its facts.
public enum NFCError: Error, Sendable, Equatable, CustomStringConvertible {
    // Transport and reader
    /// The tag answered with a NAK (4-bit) or the reader reported that the tag refused the command.
    /// NXP Type 2 tags fall back to IDLE after a NAK: re-select before the next command.
    case commandRefused(command: UInt8, nak: UInt8?)
    /// The tag did not answer in time.
    case timeout
    /// The tag left the field (or stopped answering and could not be re-selected).
    case tagRemoved
    /// The reader could not be opened or went away.
    case readerUnavailable(String)
    /// The reader is there (its port opens) but does not answer in time: no ACK nor answer to a
    /// command, nor to a firmware-version probe. The agent closes and reopens it with back-off.
    case readerUnresponsive(String)
    /// An RF or transmission error the reader reported (CRC/parity/framing, collision).
    case rfError(String)
    /// The tag or reader answered with bytes that do not fit the protocol.
    case invalidResponse([UInt8])
    /// An ISO 7816 status word other than 90 00.
    case unexpectedStatusWord(UInt8, UInt8)
    /// A checksum in tag data did not match (FeliCa attribute block, CRC).
    case crcMismatch
    /// Authentication (PWD_AUTH, 3DES, Crypto1, DESFire) failed.
    case authenticationFailed
    /// The pages to access are password protected (AUTH0) and no password was given.
    case authenticationRequired
    /// A DESFire status other than OK (SW1 = 91).
    case desfireError(status: UInt8)
    /// A FeliCa read reported status flags ≠ 0.
    case felicaBlockReadFailed(statusFlag: UInt8)
    /// A FeliCa write reported status flags ≠ 0.
    case felicaBlockWriteFailed(statusFlag: UInt8)

    // Operations
    /// A write was not acknowledged.
    case writeFailed(page: Int)
    /// Read-back after a write did not match.
    case verifyFailed(page: Int)
    /// The tag (or its NDEF area) is read-only.
    case tagLocked
    /// The data does not fit.
    case capacityExceeded(needed: Int, available: Int)
    /// The operation is not supported for this tag, reader or input.
    case unsupportedOperation(String)
    /// The tag type is not supported at all.
    case tagNotSupported
    /// A page-based export met a page that is not 4 bytes, or a dump file is not well formed.
    case malformedDump(String)
    /// A fixed-offset file (libnfc MFD, Proxmark3 MFU `.bin`, raw binary) of a dump that misses pages or
    /// blocks: such a file has no mark for "not read", so it is refused unless the caller asks for the
    /// pages read only (docs/formats.md, "Partial dumps").
    case partialDump(String)
    /// NDEF bytes could not be decoded or a record could not be built.
    case invalidNDEF(String)
    /// An argument given by the caller is not valid.
    case invalidArgument(String)
    /// The tag in the field is not the one the operation was meant for (irreversible operations check
    /// the UID first).
    case tagMismatch(expected: [UInt8], actual: [UInt8])
    /// The operation was cancelled (task cancellation or shutdown).
    case userCanceled
    /// A second scan was started while one is pending on the same reader.
    case scanInProgress
    /// The cryptography library (OpenSSL libcrypto) failed or lacks an algorithm; carries its detail.
    case cryptoFailure(String)
    /// The key authenticated, but the MIFARE Classic sector's access bits do not let it do this (MF1S50yyX
    /// §8.7): nothing was written. Carries which block, key and condition.
    case accessDenied(String)
    /// A secured answer's MAC (or, in DESFire EV1 full mode, its CRC32) does not match its data: the
    /// answer was altered on the way or does not come from the session's card. The data is dropped,
    /// never used. Carries what did not match.
    case integrityError(String)
    /// A Debian library opened when first needed (libcrypto) could not be loaded; carries which, why, and
    /// the package to install. Only the operation that needed it fails.
    case libraryUnavailable(String)

    /// The stable codes, one per case (several cases never share one). Never rename a raw value: they are
    /// published (MQTT error events and responses, CLI error lines, scan reports).
    public enum Code: String, Sendable, CaseIterable {
        case commandRefused = "command_refused"
        case timeout = "timeout"
        case tagRemoved = "tag_removed"
        case readerUnavailable = "reader_unavailable"
        case readerUnresponsive = "reader_unresponsive"
        case rfError = "rf_error"
        case invalidResponse = "invalid_response"
        case unexpectedStatusWord = "unexpected_status_word"
        case crcMismatch = "crc_mismatch"
        case authFailed = "auth_failed"
        case authRequired = "auth_required"
        case desfireError = "desfire_error"
        case felicaReadFailed = "felica_read_failed"
        case felicaWriteFailed = "felica_write_failed"
        case writeFailed = "write_failed"
        case verifyFailed = "verify_failed"
        case tagLocked = "tag_locked"
        case capacityExceeded = "capacity_exceeded"
        case unsupported = "unsupported"
        case tagNotSupported = "tag_not_supported"
        case malformedDump = "malformed_dump"
        case partialDump = "partial_dump"
        case invalidNdef = "invalid_ndef"
        case invalidArgument = "invalid_argument"
        case tagMismatch = "tag_mismatch"
        case canceled = "canceled"
        case scanInProgress = "scan_in_progress"
        case cryptoFailure = "crypto_failure"
        case accessDenied = "access_denied"
        case integrityError = "integrity_error"
        case libraryUnavailable = "library_unavailable"
    }

    /// The case's stable code.
    public var errorCode: Code {
        switch self {
        case .commandRefused: .commandRefused
        case .timeout: .timeout
        case .tagRemoved: .tagRemoved
        case .readerUnavailable: .readerUnavailable
        case .readerUnresponsive: .readerUnresponsive
        case .rfError: .rfError
        case .invalidResponse: .invalidResponse
        case .unexpectedStatusWord: .unexpectedStatusWord
        case .crcMismatch: .crcMismatch
        case .authenticationFailed: .authFailed
        case .authenticationRequired: .authRequired
        case .desfireError: .desfireError
        case .felicaBlockReadFailed: .felicaReadFailed
        case .felicaBlockWriteFailed: .felicaWriteFailed
        case .writeFailed: .writeFailed
        case .verifyFailed: .verifyFailed
        case .tagLocked: .tagLocked
        case .capacityExceeded: .capacityExceeded
        case .unsupportedOperation: .unsupported
        case .tagNotSupported: .tagNotSupported
        case .malformedDump: .malformedDump
        case .partialDump: .partialDump
        case .invalidNDEF: .invalidNdef
        case .invalidArgument: .invalidArgument
        case .tagMismatch: .tagMismatch
        case .userCanceled: .canceled
        case .scanInProgress: .scanInProgress
        case .cryptoFailure: .cryptoFailure
        case .accessDenied: .accessDenied
        case .integrityError: .integrityError
        case .libraryUnavailable: .libraryUnavailable
        }
    }

    /// Stable machine-readable code (``errorCode``'s raw value).
    public var code: String { errorCode.rawValue }

    public var message: String {
        switch self {
        case let .commandRefused(command, nak):
            "The tag refused command \(command.hexString)" + (nak.map { " (NAK \($0.hexString))" } ?? "")
        case .timeout: "The tag did not answer in time"
        case .tagRemoved: "The tag left the field"
        case let .readerUnavailable(detail): "The reader is not available: \(detail)"
        case let .readerUnresponsive(detail): "The reader does not answer: \(detail)"
        case let .rfError(detail): "RF error: \(detail)"
        case let .invalidResponse(bytes):
            bytes.isEmpty ? "The tag gave an empty or unexpected answer" : "Unexpected answer from the tag: \(bytes.hexString)"
        case let .unexpectedStatusWord(sw1, sw2): "The card answered status word \(sw1.hexString)\(sw2.hexString)"
        case .crcMismatch: "Checksum mismatch in tag data"
        case .authenticationFailed: "Authentication failed"
        case .authenticationRequired: "The tag is password protected: a password is needed"
        case let .desfireError(status): "DESFire error \(DESFireStatus(status))"
        case let .felicaBlockReadFailed(flag): "FeliCa read failed (status flag \(flag.hexString))"
        case let .felicaBlockWriteFailed(flag): "FeliCa write failed (status flag \(flag.hexString))"
        case let .writeFailed(page): "Write of page/block \(page) was not acknowledged"
        case let .verifyFailed(page): "Read-back differs from what was written, first at page/block \(page)"
        case .tagLocked: "The tag is read-only"
        case let .capacityExceeded(needed, available): "Needs \(needed) bytes but the tag holds \(available)"
        case let .unsupportedOperation(detail): detail
        case .tagNotSupported: "This tag type is not supported"
        case let .malformedDump(detail): "Malformed dump: \(detail)"
        case let .partialDump(detail): "Partial dump: \(detail)"
        case let .invalidNDEF(detail): "Invalid NDEF: \(detail)"
        case let .invalidArgument(detail): detail
        case let .tagMismatch(expected, actual):
            "The tag in the field (UID \(actual.hexString)) is not the expected one (UID \(expected.hexString))"
        case .userCanceled: "The operation was cancelled"
        case .scanInProgress: "A scan is already in progress on this reader"
        case let .cryptoFailure(detail): "Cryptography failed: \(detail)"
        case let .accessDenied(detail): detail
        case let .integrityError(detail): "Integrity error: \(detail); the data was dropped"
        case let .libraryUnavailable(detail): detail
        }
    }

    public var description: String { "\(code): \(message)" }
}

extension NFCError {
    /// True when nothing more can be asked of this tag: it left the field, or the reader went away or
    /// stopped answering. A read that fails otherwise (a refusal, an answer it cannot parse) may name
    /// the part it could not read and go on with the rest.
    public var endsTheSession: Bool {
        switch self {
        case .tagRemoved, .readerUnavailable, .readerUnresponsive: true
        default: false
        }
    }
}

extension Error {
    /// True for cancellation: ``NFCError/userCanceled`` or Swift's `CancellationError`.
    public var isNFCCancellation: Bool {
        if self is CancellationError { return true }
        if let error = self as? NFCError, error == .userCanceled { return true }
        return false
    }
}
