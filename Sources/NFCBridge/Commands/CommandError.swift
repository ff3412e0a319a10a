import NFCCore

/// Why a command failed: a stable ``CommandErrorCode``, a human message, and facts that belong in
/// the response's `data` (the pages written before a tag was pulled).
package struct CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code.
    package var code: CommandErrorCode
    /// What happened, for people.
    package var message: String
    /// Facts published in the response's `data` (none for most errors).
    package var details: CommandErrorDetails

    /// Creates an error.
    package init(_ code: CommandErrorCode, _ message: String, details: CommandErrorDetails = CommandErrorDetails()) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// A malformed request, naming the field (`field: problem`).
    package static func invalid(_ field: String, _ problem: String) -> CommandError {
        CommandError(.invalidRequest, "\(field): \(problem)")
    }

    package var description: String { "\(code.rawValue): \(message)" }

    /// THE table from NFCCore's errors to command error codes (docs/mqtt.md, "Error codes", lists it).
    /// Exhaustive and without `default`: a new ``NFCError`` case does not compile until it is mapped
    /// here. `reading` picks the code of errors of the link or of the tag's answers: `read_failed`
    /// while reading (dump), `write_failed` while changing the tag (write, format, lock).
    package static func code(for error: NFCError, reading: Bool) -> CommandErrorCode {
        switch error {
        case .tagRemoved: .tagRemoved
        case .capacityExceeded: .capacityExceeded
        case .tagLocked: .tagLocked
        // No password given for protected pages is not a wrong password (scan says the same).
        case .authenticationRequired: .authRequired
        case .authenticationFailed: .authFailed
        case .tagMismatch: .tagMismatch
        case .writeFailed: .writeFailed
        case .verifyFailed: .verifyFailed
        case .unsupportedOperation, .tagNotSupported: .unsupported
        case .invalidArgument, .invalidNDEF: .invalidRequest
        case .readerUnavailable, .readerUnresponsive: .readerUnavailable
        case .userCanceled: .canceled
        case .partialDump: .partialDump
        case .accessDenied: .accessDenied
        case .libraryUnavailable: .libraryUnavailable
        case .commandRefused, .timeout, .rfError, .invalidResponse, .unexpectedStatusWord, .crcMismatch, .desfireError,
            .felicaBlockReadFailed, .felicaBlockWriteFailed, .malformedDump, .scanInProgress, .cryptoFailure, .integrityError:
            reading ? .readFailed : .writeFailed
        }
    }

    /// Maps an NFC error met while acting on a tag through ``code(for:reading:)``. `reading`
    /// selects the code of link errors (`read_failed` for a dump, `write_failed` for write / format /
    /// lock). `pagesWritten` (operations that write) goes into `data.pages_written`, even when empty:
    /// the caller then knows the tag was not changed. `detail` (``TagOperationError/detail``: which
    /// block, sector, key) follows the error's message.
    package init(_ error: NFCError, pagesWritten: [Int]? = nil, reading: Bool = false, detail: String? = nil) {
        let code = Self.code(for: error, reading: reading)
        self.init(code, error.message + (detail.map { ": \($0)" } ?? ""), details: CommandErrorDetails(pagesWritten: pagesWritten))
    }
}

/// The facts a failure publishes in the response's `data`: `pages_written`, the pages (blocks) a
/// command that changes the tag wrote before it failed — written even when empty (the tag was not
/// changed), left out for errors that could not have written.
package struct CommandErrorDetails: Sendable, Equatable, Codable {
    /// The pages (Type 2) or blocks (Type 3, Classic) written, in write order; nil: not a write.
    package var pagesWritten: [Int]?

    /// The agent stopped before the request acted (``CommandError/agentStopping``): not published,
    /// and such a result is not remembered for its id (``CommandError/isRemembered``).
    package var isAgentStopping = false

    /// Details of a failure.
    package init(pagesWritten: [Int]? = nil, isAgentStopping: Bool = false) {
        self.pagesWritten = pagesWritten
        self.isAgentStopping = isAgentStopping
    }

    enum CodingKeys: String, CodingKey { case pagesWritten = "pages_written" }
}
