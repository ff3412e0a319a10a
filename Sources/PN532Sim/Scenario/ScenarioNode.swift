/// A format-neutral document tree for scenario files (YAML) and inline tag definitions on the
/// control channel (JSON): scalars are text, every node remembers its 1-based line (0 for JSON) so
/// errors can point at it.
public struct ScenarioNode: Sendable, Equatable {
    /// What the node holds.
    public enum Value: Sendable, Equatable {
        case scalar(String)
        case list([ScenarioNode])
        /// Keys in document order.
        case map([(key: String, value: ScenarioNode)])

        /// Structural equality (map keys in order).
        public static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case let (.scalar(a), .scalar(b)): a == b
            case let (.list(a), .list(b)): a == b
            case let (.map(a), .map(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: false
            }
        }
    }

    /// The content.
    public var value: Value
    /// 1-based line in the source file; 0 when the node did not come from a file.
    public var line: Int

    /// A node with `value` from `line`.
    public init(_ value: Value, line: Int = 0) {
        self.value = value
        self.line = line
    }

    /// The node as JSON-like text for error messages.
    var kindName: String {
        switch value {
        case .scalar: "a value"
        case .list: "a list"
        case .map: "a mapping"
        }
    }
}

/// Inline definitions and control requests arrive as JSON: numbers and booleans become their text,
/// object keys are sorted (JSON objects have no order).
extension ScenarioNode: Decodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        line = 0
        if let object = try? decoder.container(keyedBy: Key.self) {
            var entries: [(key: String, value: ScenarioNode)] = []
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                entries.append((key.stringValue, try object.decode(ScenarioNode.self, forKey: key)))
            }
            value = .map(entries)
        } else if var array = try? decoder.unkeyedContainer() {
            var items: [ScenarioNode] = []
            while !array.isAtEnd { items.append(try array.decode(ScenarioNode.self)) }
            value = .list(items)
        } else {
            let single = try decoder.singleValueContainer()
            if let text = try? single.decode(String.self) {
                value = .scalar(text)
            } else if let flag = try? single.decode(Bool.self) {
                value = .scalar(flag ? "true" : "false")
            } else if let integer = try? single.decode(Int.self) {
                value = .scalar(String(integer))
            } else if let number = try? single.decode(Double.self) {
                value = .scalar(String(number))
            } else if single.decodeNil() {
                value = .scalar("")
            } else {
                throw DecodingError.dataCorruptedError(in: single, debugDescription: "Unsupported JSON value")
            }
        }
    }
}
