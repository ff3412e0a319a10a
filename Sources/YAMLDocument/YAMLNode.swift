/// A node of a parsed YAML document, with the line it starts on (1-based) so configuration errors
/// can point at the offending line.
public indirect enum YAMLNode: Sendable, Equatable {
    /// A scalar: its text, its line, and whether it was written plain (unquoted). Only plain
    /// scalars can be `null`, booleans or numbers; a quoted `"5"` is the string 5.
    case scalar(String, line: Int, plain: Bool)
    /// A mapping, its entries in document order.
    case mapping([YAMLEntry], line: Int)
    /// A sequence.
    case sequence([YAMLNode], line: Int)

    /// The line (1-based) the node starts on.
    public var line: Int {
        switch self {
        case let .scalar(_, line, _), let .mapping(_, line), let .sequence(_, line): line
        }
    }

    /// True for a plain `~`, `null` or empty scalar: "use the default".
    public var isNull: Bool {
        guard case let .scalar(text, _, plain) = self, plain else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(text)
    }

    /// What kind of node this is, for error messages ("a mapping", "a list", "a scalar").
    public var kindDescription: String {
        switch self {
        case .scalar: "a single value"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }
}

/// One `key: value` entry of a YAML mapping.
public struct YAMLEntry: Sendable, Equatable {
    /// The key (mapping keys must be scalars).
    public var key: String
    /// The line (1-based) of the key.
    public var line: Int
    /// The value.
    public var value: YAMLNode

    /// Creates an entry.
    public init(key: String, line: Int, value: YAMLNode) {
        self.key = key
        self.line = line
        self.value = value
    }
}
