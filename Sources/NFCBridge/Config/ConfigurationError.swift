/// A configuration problem: ONE clear message naming the file, the line and the key. The agent
/// refuses to start on it (the CLI exits 2) before anything connects.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes (never rename one; docs/cli.md, "run", shows them).
    package enum Code: String, Sendable, Equatable, CaseIterable {
        /// A bad value, an unknown key, a syntax error, an unreadable file, settings that do not go
        /// together (TLS files without TLS, a password without a user name).
        case invalidConfig = "invalid_config"
        /// The configuration file itself is missing.
        case configNotFound = "config_not_found"
    }

    /// The stable code.
    package var code: Code
    /// The configuration file (or the flag / variable) the problem is in.
    package var source: String
    /// Line (1-based) in ``source``, when the problem is in a file.
    package var line: Int?
    /// The key path (`mqtt.protocol`), when one is concerned.
    package var key: String?
    /// What is wrong and what is expected.
    package var detail: String

    /// Creates an error.
    package init(code: Code = .invalidConfig, source: String, line: Int? = nil, key: String? = nil, detail: String) {
        self.code = code
        self.source = source
        self.line = line
        self.key = key
        self.detail = detail
    }

    /// The longest value an error quotes whole; a longer one is cut (a 10 MB `id` gave a 10 MB
    /// line on stderr).
    static let quotedValueLimit = 64

    /// `value` in single quotes, cut to its first ``quotedValueLimit`` characters with its length
    /// in bytes when it is longer.
    static func quoted(_ value: String) -> String {
        guard value.utf8.count > quotedValueLimit else { return "'\(value)'" }
        return "'\(value.prefix(quotedValueLimit))…' (\(value.utf8.count) bytes)"
    }

    /// `config.yaml:12: mqtt.protocol: must be one of 3.1.1, 5 (got '6')`.
    package var message: String {
        var text = source
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "\(key): " }
        return text + detail
    }

    package var description: String { message }
}
