import Foundation

/// A JSON value for control-channel replies, encoded with sorted keys so replies are stable.
enum JSONValue: Encodable, Sendable, Equatable {
    case string(String)
    case number(Int)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .bool(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// One line of JSON.
    var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return #"{"ok":false}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
