import FoundationEssentials
import Glibc
import NFCBridge
import NFCCore

/// Command-line arguments of one subcommand: `--name value` options, `--flag` switches and
/// positionals. Hand-written (command-line parsing is the accepted exception to "use a library").
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []
    private var consumed: Set<String> = []
    /// `--name` options given without a value (the last argument, or followed by another `--option`):
    /// an unknown one is reported as unknown, a known one as needing a value.
    private var missingValues: Set<String> = []

    /// Parses `args`; `flagNames` are the switches that take no value (without dashes).
    init(_ args: [String], flagNames: Set<String>) throws(CLIError) {
        var i = 0
        while i < args.count {
            let arg = args[i]
            if arg == "--" {
                positionals += args[(i + 1)...]
                break
            }
            if arg.hasPrefix("--") {
                var name = String(arg.dropFirst(2))
                var inlineValue: String?
                if let eq = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if flagNames.contains(name) {
                    guard inlineValue == nil else { throw CLIError.usage("--\(name) takes no value") }
                    flags.insert(name)
                } else if let value = inlineValue {
                    options[name, default: []].append(value)
                } else {
                    if i + 1 < args.count, !Self.isOption(args[i + 1]) {
                        options[name, default: []].append(args[i + 1])
                        i += 1
                    } else {
                        missingValues.insert(name)
                    }
                }
            } else {
                positionals.append(arg)
            }
            i += 1
        }
    }

    /// The last value of `--name`, if given.
    mutating func option(_ name: String) -> String? {
        consumed.insert(name)
        return options[name]?.last
    }

    /// `--name` as a number.
    mutating func number(_ name: String) throws(CLIError) -> Double? {
        guard let text = option(name) else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw CLIError.usage("--\(name) needs a non-negative number, got '\(text)'")
        }
        return value
    }

    /// Whether `--name` was given.
    mutating func flag(_ name: String) -> Bool {
        consumed.insert(name)
        return flags.contains(name)
    }

    /// Throws for any option nobody asked for (typos must not pass silently: `scan --jsn` is an
    /// unknown option, not one that needs a value), then for a known option given without a value.
    func rejectUnknown() throws(CLIError) {
        let unknown = Set(options.keys).union(flags).union(missingValues).subtracting(consumed)
        if let name = unknown.sorted().first {
            // `consumed` holds every option the command asked for: the names it knows.
            let hint = Spelling.closest(to: name, among: consumed.subtracting(unknown).sorted()).map { " (did you mean --\($0)?)" } ?? ""
            throw CLIError.usage("unknown option --\(String(name.prefix(64)))\(hint)")
        }
        if let name = missingValues.sorted().first { throw CLIError.usage("--\(name) needs a value") }
    }

    /// Whether `arg` is an option name (`--x…`) rather than a value.
    private static func isOption(_ arg: String) -> Bool {
        arg.hasPrefix("--") && arg.count > 2
    }

    /// The end of parsing for a `command` that takes options only: ``rejectUnknown()``, then
    /// refuses any positional.
    func finish(optionsOnly command: String) throws(CLIError) {
        try rejectUnknown()
        if let dashed = positionals.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw CLIError.usage("unknown option \(dashed)")
        }
        guard positionals.isEmpty else { throw CLIError.usage("\(command) takes no arguments") }
    }
}

/// A CLI failure: a code, a message and the exit status.
struct CLIError: Error {
    var code: String
    var message: String
    var exitCode: Int32

    /// Wrong usage: exit 2 (as the documented exit codes say).
    static func usage(_ message: String) -> CLIError {
        CLIError(code: "usage", message: message, exitCode: 2)
    }

    /// Bad input data: exit 1.
    static func input(_ code: String, _ message: String) -> CLIError {
        CLIError(code: code, message: message, exitCode: 1)
    }

    init(code: String, message: String, exitCode: Int32) {
        self.code = code
        self.message = message
        self.exitCode = exitCode
    }

    /// A refusal of the MQTT-shaped request a command built from its options (exit 1), the
    /// request's field names replaced by the options that filled them: `--ndef-hex: must be a hex
    /// string`, not `ndef_hex: …`. `options` pairs a field path with its option.
    static func input(_ error: CommandError, options: KeyValuePairs<String, String>) -> CLIError {
        var message = error.message
        if let (field, option) = options.first(where: { message.hasPrefix($0.key + ":") }) {
            message = option + message.dropFirst(field.count)
        }
        return .input(error.code.rawValue, message)
    }

    /// Wraps an NFC error (exit 1, its stable code).
    init(_ error: NFCError, exitCode: Int32 = 1) {
        self.init(code: error.code, message: error.message, exitCode: exitCode)
    }
}

/// Output helpers shared by the subcommands.
enum Console {
    /// Writes `text` to standard output as is.
    static func out(_ text: String) {
        writeAll(STDOUT_FILENO, Array(text.utf8))
    }

    /// Writes raw bytes to standard output.
    static func out(bytes: [UInt8]) {
        writeAll(STDOUT_FILENO, bytes)
    }

    /// Writes a line to standard error.
    static func err(_ text: String) {
        writeAll(STDERR_FILENO, Array((text + "\n").utf8))
    }

    /// Writes `text` to standard error as is (no newline).
    static func errRaw(_ text: String) {
        writeAll(STDERR_FILENO, Array(text.utf8))
    }

    /// The one-line JSON error `{"error":{"code":…,"message":…}}` on standard error.
    static func report(_ error: CLIError) {
        let object = ["error": ["code": error.code, "message": error.message]]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(object),
            let line = String(data: data, encoding: .utf8)
        {
            err(line)
        } else {
            err("{\"error\":{\"code\":\"\(error.code)\",\"message\":\"internal error\"}}")
        }
    }

    /// All of standard input, at most `limit` bytes: a longer input (`/dev/zero`) is refused with
    /// `invalid_argument` (the message ends with `what`) without being read to its end; a read error
    /// is `io_error`.
    static func readStandardInput(limit: Int, what: String) throws -> [UInt8] {
        let bytes: [UInt8]
        do throws(ReadFailure) {
            bytes = try readAll(STDIN_FILENO, limit: limit)
        } catch {
            throw CLIError.input("io_error", "cannot read standard input: \(error.reason)")
        }
        guard bytes.count <= limit else {
            throw NFCError.invalidArgument("standard input holds more than \(limit) bytes; \(what)")
        }
        return bytes
    }

    /// A failed `read`, with its `errno` taken at once.
    struct ReadFailure: Error {
        let code: Int32
        /// `strerror`'s text for it.
        var reason: String { String(cString: strerror(code)) }
    }

    /// Every byte until end of file on `fd`, or more than `limit` bytes when there are more (reading
    /// stops there: the caller refuses the input).
    static func readAll(_ fd: Int32, limit: Int) throws(ReadFailure) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= limit {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw ReadFailure(code: code)
            }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
        }
        return bytes
    }

    /// Writes every byte of `bytes` to `fd` (short writes and EINTR retried); false on an error.
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
