/// A request's `id` as sent: a non-empty string or an integer (an integral number such as `42.0` is
/// taken as the integer). It is the idempotency key and is echoed in every response.
package enum RequestID: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// A string id.
    case string(String)
    /// An integer id.
    case int(Int64)

    /// Creates a string id.
    package init(stringLiteral value: String) { self = .string(value) }
    /// Creates an integer id.
    package init(integerLiteral value: Int64) { self = .int(value) }

    /// The key of the id in the result cache and the queue (`s:abc`, `i:42`): a string "42" and the
    /// integer 42 are different ids.
    package var key: String {
        switch self {
        case let .string(text): "s:" + text
        case let .int(value): "i:\(value)"
        }
    }

    /// The id as JSON text (`"abc"`, `42`), as logs and error messages quote it.
    package var jsonText: String { JSONWire.text(self) }

    /// The same value as the wider scalar a `transaction` is (the two are read and written alike).
    private var scalar: TransactionID {
        switch self {
        case let .string(text): .string(text)
        case let .int(value): .int(value)
        }
    }

    /// Reads a string or an integer.
    package init(from decoder: any Decoder) throws {
        switch try TransactionID(from: decoder) {
        case let .string(text): self = .string(text)
        case let .int(value): self = .int(value)
        case .double:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "an id is a string or an integer"))
        }
    }

    /// Writes the string or the integer.
    package func encode(to encoder: any Encoder) throws {
        try scalar.encode(to: encoder)
    }
}

/// Zigbee2MQTT's `transaction` as sent (a string or a number), echoed in every response.
package enum TransactionID: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int64)
    /// A number with a fraction (or beyond the integers).
    case double(Double)

    /// Creates a string transaction.
    package init(stringLiteral value: String) { self = .string(value) }
    /// Creates an integer transaction.
    package init(integerLiteral value: Int64) { self = .int(value) }

    /// Reads a string or a number (an integer first, as the request parser does).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Writes the string or the number as it came.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(text): try container.encode(text)
        case let .int(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        }
    }
}

extension RequestID {
    /// Longest `id` string accepted (it is stored in the persisted result cache); `transaction`
    /// strings are bounded alike.
    static let maximumLength = 256

    /// The request's `id` member: nil for `null`; `invalid_request` naming `id` for an empty or
    /// over-long string, a fraction or another type.
    init?(member value: JSONFields.Member) throws(CommandError) {
        switch value {
        case .null: return nil
        case let .string(text):
            guard !text.isEmpty else { throw .invalid("id", "must not be empty") }
            guard text.utf8.count <= Self.maximumLength else { throw .invalid("id", "longer than \(Self.maximumLength) bytes") }
            self = .string(text)
        case let .integer(number): self = .int(number)
        case let .number(number) where number.rounded() == number && abs(number) < 9e15: self = .int(Int64(number))
        default: throw .invalid("id", "must be a non-empty string or an integer")
        }
    }
}

extension TransactionID {
    /// The request's `transaction` member: nil for `null`. A string is bounded like `id`: it is
    /// echoed in every answer and kept with the result in `command-results.json`, rewritten whole
    /// after every request.
    init?(member value: JSONFields.Member) throws(CommandError) {
        switch value {
        case .null: return nil
        case let .string(text):
            guard text.utf8.count <= RequestID.maximumLength else {
                throw .invalid("transaction", "longer than \(RequestID.maximumLength) bytes")
            }
            self = .string(text)
        case let .integer(number): self = .int(number)
        case let .number(number): self = .double(number)
        default: throw .invalid("transaction", "must be a string or a number")
        }
    }
}
