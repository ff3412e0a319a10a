import Foundation

/// A state-directory file operation that failed (spool, sequence number).
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable code: `state_dir_unusable`, `spool_write_failed` or `state_write_failed`.
    public var code: String
    /// What failed, with the path and the system's reason.
    public var message: String

    /// Creates an error; `errno` adds the system's reason.
    public init(code: String, _ message: String, errno number: Int32? = nil) {
        self.code = code
        self.message = number.map { "\(message): \(String(cString: strerror($0)))" } ?? message
    }

    public var description: String { "\(code): \(message)" }
}
