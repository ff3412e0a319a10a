import NFCCore
import YAMLDocument

/// One named entry of a keys file (``AuthKeysFile``), or a mapping nested in one, with typed readers
/// for its fields. Errors name the keys file, the line and the field, and never quote a secret's text
/// (a malformed key is described by its length, not shown).
package struct AuthKeyEntry: Sendable {
    /// The entry's name (its key under `keys:`).
    package let name: String
    /// The keys file, for errors.
    package let path: String
    /// The line of the mapping.
    package let line: Int
    /// Where in the entry this mapping is (`door.diversification`), for errors.
    package let location: String
    /// The fields.
    let fields: [YAMLEntry]

    /// The names a key may have: what facts and `info` show.
    static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ".")].contains(byte)
            }
    }

    /// The entry `entry` of `keys:`; its name must be valid and its value a mapping.
    init(_ entry: YAMLEntry, path: String) throws(ConfigurationError) {
        guard Self.isValidName(entry.key) else {
            throw ConfigurationError(
                source: path, line: entry.line,
                detail: "key name \(ConfigurationError.quoted(entry.key)) must be 1-64 characters of A-Z, a-z, 0-9, '_', '-' and '.'")
        }
        guard case let .mapping(fields, line) = entry.value else {
            throw ConfigurationError(source: path, line: entry.line, key: entry.key, detail: "expected a mapping with `kind:`, found \(entry.value.kindDescription)")
        }
        self.init(name: entry.key, path: path, line: line, location: entry.key, fields: fields)
    }

    private init(name: String, path: String, line: Int, location: String, fields: [YAMLEntry]) {
        self.name = name
        self.path = path
        self.line = line
        self.location = location
        self.fields = fields
    }

    /// An error at `line` (the mapping's when nil), naming `field`.
    package func failure(_ detail: String, field: String? = nil, line: Int? = nil) -> ConfigurationError {
        ConfigurationError(source: path, line: line ?? self.line, key: field.map { "\(location).\($0)" } ?? location, detail: detail)
    }

    /// The row of ``AuthKeyKind/table`` the `kind` field names.
    func kind() throws(ConfigurationError) -> AuthKeyKind {
        let text = try requiredText("kind")
        guard let kind = AuthKeyKind.table.first(where: { $0.name == text }) else {
            throw failure("must be one of \(AuthKeyKind.table.map(\.name).joined(separator: ", ")), got \(ConfigurationError.quoted(text))",
                          field: "kind", line: node("kind")?.line)
        }
        return kind
    }

    /// Refuses a field not in `allowed` (nor `kind` at an entry's top), suggesting the closest.
    package func checkFields(allowed: [String]) throws(ConfigurationError) {
        let known = location == name ? ["kind"] + allowed : allowed
        for field in fields where !known.contains(field.key) {
            let hint = Spelling.closest(to: field.key, among: known).map { " (did you mean '\($0)'?)" } ?? ""
            throw failure("unknown field '\(field.key)'\(hint); expected \(known.joined(separator: ", "))", line: field.line)
        }
    }

    /// The value of `field`, nil when absent or null.
    package func node(_ field: String) -> YAMLNode? {
        guard let node = fields.first(where: { $0.key == field })?.value, !node.isNull else { return nil }
        return node
    }

    /// The text of `field`, nil when absent.
    package func text(_ field: String) throws(ConfigurationError) -> String? {
        guard let node = node(field) else { return nil }
        guard case let .scalar(text, line, _) = node else {
            throw failure("expected a single value, found \(node.kindDescription)", field: field, line: node.line)
        }
        guard !text.isEmpty else { throw failure("must not be empty", field: field, line: line) }
        return text
    }

    /// The text of a required `field`.
    package func requiredText(_ field: String) throws(ConfigurationError) -> String {
        guard let text = try text(field) else { throw failure("'\(field)' is required", field: field) }
        return text
    }

    /// Public hex bytes (an AID, a PACK, a system identifier) of one of `lengths`; quoted in errors.
    package func hex(_ field: String, lengths: ClosedRange<Int>) throws(ConfigurationError) -> [UInt8] {
        let text = try requiredText(field)
        guard let bytes = [UInt8](hex: text), lengths.contains(bytes.count) else {
            let size = lengths.count == 1 ? "\(lengths.lowerBound)" : "\(lengths.lowerBound)-\(lengths.upperBound)"
            throw failure("expected \(size) bytes as hex digits, got \(ConfigurationError.quoted(text))", field: field, line: node(field)?.line)
        }
        return bytes
    }

    /// Secret hex bytes (a key, a password) of exactly `length` bytes. The text is never quoted: an
    /// error says how many digits it has and what is expected.
    package func secret(_ field: String, length: Int, what: String) throws(ConfigurationError) -> SecretBytes {
        let text = try requiredText(field)
        guard let bytes = [UInt8](hex: text) else {
            throw failure("\(what) must be \(length * 2) hex digits; the value has characters that are not hex digits (value not shown)",
                          field: field, line: node(field)?.line)
        }
        guard bytes.count == length else {
            throw failure("\(what) is \(length) bytes (\(length * 2) hex digits), this one is \(bytes.count) (value not shown)",
                          field: field, line: node(field)?.line)
        }
        return SecretBytes(bytes)
    }

    /// A whole number within `range` (decimal, or hex with `0x`).
    package func int(_ field: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        let text = try requiredText(field)
        let value = text.hasPrefix("0x") || text.hasPrefix("0X") ? Int(text.dropFirst(2), radix: 16) : Int(text)
        guard let value, range.contains(value) else {
            throw failure("expected a whole number from \(range.lowerBound) to \(range.upperBound), got \(ConfigurationError.quoted(text))",
                          field: field, line: node(field)?.line)
        }
        return value
    }

    /// One of an enumeration's raw values.
    package func choice<T: RawRepresentable & CaseIterable>(_ field: String, _ type: T.Type) throws(ConfigurationError) -> T
    where T.RawValue == String {
        let text = try requiredText(field)
        guard let value = T(rawValue: text) else {
            throw failure("must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), got \(ConfigurationError.quoted(text))",
                          field: field, line: node(field)?.line)
        }
        return value
    }

    /// The mapping in `field` as an entry of its own with the fields `allowed`; nil when absent.
    package func nested(_ field: String, allowed: [String]) throws(ConfigurationError) -> AuthKeyEntry? {
        guard let node = node(field) else { return nil }
        guard case let .mapping(fields, line) = node else {
            throw failure("expected a mapping, found \(node.kindDescription)", field: field, line: node.line)
        }
        let nested = AuthKeyEntry(name: name, path: path, line: line, location: "\(location).\(field)", fields: fields)
        try nested.checkFields(allowed: allowed)
        return nested
    }

    /// The mappings under `field` by their keys (`files: {"02": {...}}`), each with the fields
    /// `allowed`; empty when absent.
    package func nestedEntries(_ field: String, allowed: [String]) throws(ConfigurationError) -> [(key: String, entry: AuthKeyEntry)] {
        guard let node = node(field) else { return [] }
        guard case let .mapping(items, _) = node else {
            throw failure("expected a mapping, found \(node.kindDescription)", field: field, line: node.line)
        }
        var out: [(key: String, entry: AuthKeyEntry)] = []
        for item in items {
            guard case let .mapping(fields, line) = item.value else {
                throw failure("expected a mapping, found \(item.value.kindDescription)", field: "\(field).\(item.key)", line: item.line)
            }
            let entry = AuthKeyEntry(name: name, path: path, line: line, location: "\(location).\(field).\(item.key)", fields: fields)
            try entry.checkFields(allowed: allowed)
            out.append((item.key, entry))
        }
        return out
    }
}
