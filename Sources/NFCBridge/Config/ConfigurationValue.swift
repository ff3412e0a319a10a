import FoundationEssentials
import Glibc
import NFCCore
import YAMLDocument

/// One YAML value being applied to a configuration key: typed readers that throw a
/// ``ConfigurationError`` naming the key and the line when the value has the wrong type or range.
struct ConfigurationValue {
    /// The value.
    let node: YAMLNode
    /// The key path (`mqtt.protocol`).
    let key: String
    /// The file name used in messages.
    let source: String

    func failure(_ detail: String) -> ConfigurationError {
        ConfigurationError(source: source, line: node.line, key: key, detail: detail)
    }

    /// A scalar's text (any scalar: quoted or plain).
    func string() throws(ConfigurationError) -> String {
        guard case let .scalar(text, _, _) = node else { throw failure("expected a single value, found \(node.kindDescription)") }
        return text
    }

    /// A non-empty scalar.
    func nonEmptyString() throws(ConfigurationError) -> String {
        let text = try string()
        guard !text.isEmpty else { throw failure("must not be empty") }
        return text
    }

    /// `true` / `false` (also `yes` / `no`, `on` / `off`), unquoted.
    func bool() throws(ConfigurationError) -> Bool {
        let text = try string()
        if case let .scalar(_, _, plain) = node, plain {
            switch text.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: break
            }
        }
        throw failure("expected true or false, got \(ConfigurationError.quoted(text))")
    }

    /// A whole number within `range`.
    func int(in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        let text = try string()
        // `filter`, not `replacing(_:with:)`: the latter is _StringProcessing's, whose code would stay
        // resident in the agent for this one call at start-up (issue 25).
        guard let value = Int(text.filter { $0 != "_" }) else {
            throw failure("expected a whole number, got \(ConfigurationError.quoted(text))")
        }
        guard range.contains(value) else {
            throw failure("must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }

    /// One of an enumeration's raw values.
    func choice<T: RawRepresentable & CaseIterable>(_ type: T.Type) throws(ConfigurationError) -> T
    where T.RawValue == String {
        let text = try string()
        guard let value = T(rawValue: text) else {
            throw failure("must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), got \(ConfigurationError.quoted(text))")
        }
        return value
    }

    /// A non-empty list of one enumeration's raw values, without repeats.
    func choices<T: RawRepresentable & CaseIterable & Equatable>(_ type: T.Type) throws(ConfigurationError) -> [T]
    where T.RawValue == String {
        guard case let .sequence(items, _) = node else { throw failure("expected a list, found \(node.kindDescription)") }
        var values: [T] = []
        for item in items {
            let value = try ConfigurationValue(node: item, key: key, source: source).choice(T.self)
            guard !values.contains(value) else { throw ConfigurationValue(node: item, key: key, source: source).failure("\(ConfigurationError.quoted(value.rawValue)) is listed twice") }
            values.append(value)
        }
        guard !values.isEmpty else { throw failure("must list at least one value") }
        return values
    }

    /// A path to a file that exists and can be read.
    func readableFile() throws(ConfigurationError) -> String {
        let path = try nonEmptyString()
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw failure("file '\(path)' does not exist")
        }
        guard !isDirectory else { throw failure("'\(path)' is a directory, expected a file") }
        // A FIFO or a device would block whoever opens it (this agent, or libmosquitto's TLS set-up).
        var status = stat()
        if stat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            throw failure("'\(path)' is \(BoundedFile.kind(status.st_mode)), not a regular file: name a file")
        }
        guard FileManager.default.isReadableFile(atPath: path) else { throw failure("file '\(path)' cannot be read") }
        return path
    }

    /// The first line of a file, without surrounding white space; an empty one is an error (the
    /// password and signature key files).
    ///
    /// Reads at most ``firstLineLimit`` bytes: a path such as `/dev/zero` or a huge file is refused
    /// instead of read to its end (the agent would never start).
    func firstLine(ofFile path: String) throws(ConfigurationError) -> String {
        let data: [UInt8]
        do throws(BoundedFile.Failure) {
            data = try BoundedFile.read(path, limit: Self.firstLineLimit, prefix: true) ?? []
        } catch {
            throw failure(error.message)
        }
        guard data.count < Self.firstLineLimit || data.contains(UInt8(ascii: "\n")) else {
            throw failure("the first line of '\(path)' is longer than \(Self.firstLineLimit) bytes: this file should hold one line")
        }
        let firstLine = String(textFile: data).textLines()
            .first.map { $0.trimmingWhitespaceAndNewlines() } ?? ""
        guard !firstLine.isEmpty else { throw failure("the first line of '\(path)' is empty") }
        return firstLine
    }

    /// The content of the file at `path`, at most `limit` bytes (a larger file, or one that cannot be
    /// read, is an error at this key: the keys files).
    func content(ofFile path: String, limit: Int) throws(ConfigurationError) -> [UInt8] {
        let read: [UInt8]?
        do throws(BoundedFile.Failure) {
            read = try BoundedFile.read(path, limit: limit)
        } catch {
            throw failure(error.message)
        }
        guard let data = read else { throw failure("file '\(path)' does not exist") }
        return data
    }

    /// The longest first line ``firstLine(ofFile:)`` reads (a password or a hex key is far shorter).
    static let firstLineLimit = 65_536

    /// An MQTT topic prefix: no wildcards, no empty levels, no leading or trailing slash.
    func topicPrefix() throws(ConfigurationError) -> String {
        let text = try nonEmptyString()
        if let problem = TopicMap.problem(inPrefix: text) { throw failure(problem) }
        return text
    }
}
