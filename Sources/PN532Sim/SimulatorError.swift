/// Errors of the simulator (pty, sockets, scenario files, control requests). Every case has a
/// stable snake_case ``code`` and a human ``message``, like `NFCError` in NFCCore.
public enum SimulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed while setting up the pseudo-terminal.
    case pseudoTerminal(String)
    /// The link path is unusable (contains ':', or a non-symlink file is in the way).
    case linkPath(String)
    /// The control socket could not be set up.
    case controlSocket(String)
    /// A scenario file could not be read or parsed; `line` is 1-based (0 when unknown).
    case scenario(file: String, line: Int, message: String)
    /// A control request was not understood.
    case badRequest(String)
    /// No tag with this id is defined.
    case unknownTag(String)
    /// A tag definition cannot be turned into a virtual tag.
    case invalidTag(id: String, reason: String)
    /// A control request waited in vain.
    case timedOut(String)
    /// A command-line argument is wrong.
    case usage(String)
    /// The vpcd client could not be set up.
    case vpcd(String)

    /// Stable machine-readable code.
    public var code: String {
        switch self {
        case .pseudoTerminal: "pty_failed"
        case .linkPath: "bad_link_path"
        case .controlSocket: "control_socket_failed"
        case .scenario: "bad_scenario"
        case .badRequest: "bad_request"
        case .unknownTag: "unknown_tag"
        case .invalidTag: "invalid_tag"
        case .timedOut: "timeout"
        case .usage: "usage"
        case .vpcd: "vpcd_failed"
        }
    }

    /// Human-readable explanation.
    public var message: String {
        switch self {
        case let .pseudoTerminal(detail): "Cannot set up the pseudo-terminal: \(detail)"
        case let .linkPath(detail): "Bad --link path: \(detail)"
        case let .controlSocket(detail): "Cannot set up the control socket: \(detail)"
        case let .scenario(file, line, message):
            line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
        case let .badRequest(detail): "Bad control request: \(detail)"
        case let .unknownTag(id): "No tag with id '\(id)' is defined"
        case let .invalidTag(id, reason): "Tag '\(id)': \(reason)"
        case let .timedOut(detail): "Timed out: \(detail)"
        case let .usage(detail): detail
        case let .vpcd(detail): "Cannot set up the vpcd client: \(detail)"
        }
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
