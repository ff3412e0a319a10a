import FoundationEssentials
import Glibc

/// A state-directory file operation that failed (spool, sequence number).
package struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes (never rename one).
    package enum Code: String, Sendable, Equatable, CaseIterable {
        /// The state directory cannot be created, written or read.
        case stateDirUnusable = "state_dir_unusable"
        /// The spool log could not be written or truncated.
        case spoolWriteFailed = "spool_write_failed"
        /// A state file (sequence, command results) could not be written.
        case stateWriteFailed = "state_write_failed"
    }

    /// The stable code.
    package var code: Code
    /// What failed, with the path and the system's reason.
    package var message: String

    /// Creates an error; `errno` adds the system's reason, and for a permission refusal of `path` who
    /// owns it and the `chown` that repairs it (``OwnershipHint``).
    package init(code: Code, _ message: String, errno number: Int32? = nil, path: String? = nil) {
        self.code = code
        let hint = number.flatMap { number in path.flatMap { OwnershipHint.text(path: $0, errno: number) } } ?? ""
        self.message = (number.map { "\(message): \(String(cString: strerror($0)))" } ?? message) + hint
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
