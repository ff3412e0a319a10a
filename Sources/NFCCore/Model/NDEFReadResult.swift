/// What ``NDEFReader/read(info:transport:)`` found on a tag: its NDEF message, none, or why the message
/// could not be had. Reading NDEF never fails a scan: an area the tag refuses is a result, not an error.
public enum NDEFReadResult: Sendable, Equatable {
    /// The tag holds this NDEF message (empty for an NDEF-formatted tag with an empty message).
    case message([UInt8])
    /// The tag holds no NDEF message: not NDEF formatted (no Type 2 CC magic, no NDEF application, no
    /// MAD, no NDEF sector), or no NDEF Message TLV before the terminator.
    case noMessage
    /// The tag is NDEF formatted but the message could not be read: a refused page or block
    /// (``NFCError/authenticationRequired`` behind a password), a failed sector authentication, an
    /// unsupported mapping version, a TLV longer than the area, a protocol error.
    case unreadable(NFCError)
    /// NDEF is not read from this tag: the family has no NDEF mapping here, or the reader cannot speak
    /// what the family needs (ISO-DEP, Crypto1). Always ``NFCError/unsupportedOperation(_:)``.
    case notRead(NFCError)

    /// The message, when one was read.
    public var message: [UInt8]? {
        guard case let .message(bytes) = self else { return nil }
        return bytes
    }

    /// The error behind ``unreadable(_:)`` and ``notRead(_:)``.
    public var error: NFCError? {
        switch self {
        case .message, .noMessage: nil
        case let .unreadable(error), let .notRead(error): error
        }
    }

    /// A stable word for the outcome: `read`, `none`, `unreadable` or `not_read`.
    public var status: String {
        switch self {
        case .message: "read"
        case .noMessage: "none"
        case .unreadable: "unreadable"
        case .notRead: "not_read"
        }
    }
}

extension NDEFReadResult {
    /// The result a finished TLV walk gives (``NFCForumTLV/walk(memory:start:end:controlTLVs:)``, used by the
    /// Type 2 and MIFARE Classic mappings); nil while the walk needs more memory. `area` names the data
    /// area for the message of an overrun ("the data area of 144 bytes").
    init?(walk: NFCForumTLV.Walk, area: String) {
        switch walk {
        case let .message(message): self = .message(message)
        case .noMessage: self = .noMessage
        case let .overrun(length): self = .unreadable(.invalidNDEF("The NDEF TLV announces \(length) bytes, more than \(area) holds"))
        case .needsMemory: return nil
        }
    }
}
