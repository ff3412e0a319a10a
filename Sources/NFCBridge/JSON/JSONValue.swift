import FoundationEssentials
import Glibc

/// A JSON value: what the payload models encode into (``JSONValueEncoder``) on their way to the
/// wire, and what the codec parses (a request, a spool line, a stored result) before it hands out
/// typed fields (``JSONFields``), bytes or an opaque ``StoredJSON``; in NFCBridge, only `JSON/` holds one.
///
/// Objects serialise with sorted keys, so payloads are byte-for-byte reproducible (tests compare
/// them, and retained messages do not change when nothing changed).
package enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The member `key` of an object; nil for other values or a missing key.
    package subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members[key]
    }

    /// The text of a string value.
    package var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    /// The value of an integer (or integral double) value.
    package var intValue: Int64? {
        switch self {
        case let .int(value): return value
        case let .double(value) where value.rounded() == value && abs(value) < 9e15: return Int64(value)
        default: return nil
        }
    }

    /// The value of a boolean value.
    package var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// The members of an object.
    package var objectValue: [String: JSONValue]? {
        if case let .object(members) = self { return members }
        return nil
    }

    /// The elements of an array.
    package var arrayValue: [JSONValue]? {
        if case let .array(elements) = self { return elements }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int64) { self = .int(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements) { _, last in last })
    }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    package init(nilLiteral: ()) { self = .null }
}

extension JSONValue: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Compact UTF-8 JSON with sorted keys and unescaped slashes.
    package var jsonData: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail except for non-finite doubles, which are written as null.
        return (try? encoder.encode(self.replacingNonFiniteNumbers)) ?? Data("null".utf8)
    }

    /// Compact JSON text (see ``jsonData``).
    package var jsonString: String { String(decoding: jsonData, as: UTF8.self) }

    /// Compact JSON bytes (see ``jsonData``).
    package var jsonBytes: [UInt8] { [UInt8](jsonData) }

    /// Parses JSON text. Throws for anything that is not JSON.
    package init(parsing data: Data) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    private var replacingNonFiniteNumbers: JSONValue {
        switch self {
        case let .double(value) where !value.isFinite: return .null
        case let .array(elements): return .array(elements.map(\.replacingNonFiniteNumbers))
        case let .object(members): return .object(members.mapValues(\.replacingNonFiniteNumbers))
        default: return self
        }
    }
}
