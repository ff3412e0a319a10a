import FoundationEssentials

/// The members of one JSON object read from a payload, for a strict parser that names the field in
/// every refusal (a command request, a signed envelope, a `write_blocks` block). It answers in the
/// forms a field may take — text, a number, a flag, a list of objects — so those parsers never hold
/// JSON values: reading JSON stays the codec's business, done once per payload.
package struct JSONFields: Sendable, Equatable {
    private var members: [String: JSONValue]

    /// What a payload held.
    package enum Parsed: Sendable, Equatable {
        /// A JSON object.
        case object(JSONFields)
        /// JSON, but not an object.
        case notObject
        /// Not JSON.
        case notJSON
    }

    /// A member as it was written, for a field that takes more than one form.
    package enum Member: Sendable, Equatable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A string.
        case string(String)
        /// An integer (an integral number such as `42.0` reads as one when it parses as one).
        case integer(Int64)
        /// Any other number.
        case number(Double)
        /// An object or a list.
        case composite
    }

    /// Parses `bytes` once; the caller has bounded them.
    package static func parse(_ bytes: [UInt8]) -> Parsed {
        guard let value = try? JSONValue(parsing: Data(bytes)) else { return .notJSON }
        guard let members = value.objectValue else { return .notObject }
        return .object(JSONFields(members))
    }

    /// The fields of an object with `members` (for a caller that builds a request in code, such as
    /// the CLI, and for the elements of a list).
    package init(_ members: [String: JSONValue]) {
        self.members = members
    }

    /// The member names, sorted.
    package var names: [String] { members.keys.sorted() }

    /// True when the object has a member `name` (`null` included).
    package func has(_ name: String) -> Bool { members[name] != nil }

    /// The members but `names`, as values (a request part parsed by its own type: `request/job`'s spec).
    package func values(except names: Set<String>) -> [String: JSONValue] { members.filter { !names.contains($0.key) } }

    /// These fields without the members `names`.
    package func removing(_ names: String...) -> JSONFields {
        var copy = self
        for name in names { copy.members[name] = nil }
        return copy
    }

    /// The member `name` as written; nil when absent.
    package func member(_ name: String) -> Member? {
        switch members[name] {
        case nil: nil
        case .null: .null
        case let .bool(flag): .bool(flag)
        case let .string(text): .string(text)
        case let .int(number): .integer(number)
        case let .double(number): .number(number)
        case .array, .object: .composite
        }
    }

    /// The text of the member `name`; nil when absent or not a string.
    package func string(_ name: String) -> String? { members[name]?.stringValue }

    /// The member `name` as a number (an integer as its `Double`); nil when absent or not a number.
    package func number(_ name: String) -> Double? {
        switch members[name] {
        case let .int(number): Double(number)
        case let .double(number): number
        default: nil
        }
    }

    /// The member `name` as an integer (an integral number counts); nil when absent or not one.
    package func integer(_ name: String) -> Int64? { members[name]?.intValue }

    /// The member `name` as a flag; nil when absent or not `true`/`false`.
    package func bool(_ name: String) -> Bool? { members[name]?.boolValue }

    /// The member `name` as the fields of an object; nil when absent or not an object.
    package func fields(_ name: String) -> JSONFields? { members[name]?.objectValue.map(JSONFields.init) }

    /// The member `name` as compact JSON bytes, written as ``JSONWire`` writes (sorted keys): a part
    /// kept as bytes, such as a spooled payload; nil when absent.
    package func encoded(_ name: String) -> [UInt8]? { members[name]?.jsonBytes }

    /// The member `name` as a list of objects: nil when absent or not a list; an element that is not
    /// an object is nil.
    package func objects(_ name: String) -> [JSONFields?]? {
        members[name]?.arrayValue?.map { $0.objectValue.map { JSONFields($0) } }
    }

    /// The member `name` as the elements of a list, or — when `objectAsList` and it is an object — as
    /// the only element; nil when absent or anything else. The elements are decoded only as a whole,
    /// by ``JSONElements/decode(_:as:)``.
    package func elements(_ name: String, objectAsList: Bool) -> JSONElements? {
        switch members[name] {
        case let .array(items)?: JSONElements(items: items)
        case let .object(object)? where objectAsList: JSONElements(items: [.object(object)])
        default: nil
        }
    }
}

/// The elements of a list member (``JSONFields/elements(_:objectAsList:)``), handed to a `Decodable`
/// model as a whole.
package struct JSONElements: Sendable, Equatable {
    fileprivate let items: [JSONValue]

    /// How many elements there are.
    package var count: Int { items.count }

    /// Decodes `type` from the object `{"<key>": [elements]}` (a model that reads its list from a
    /// named member, so its errors name it: `records[0].uri`).
    package func decode<T: Decodable>(_ type: T.Type, as key: String) throws -> T {
        try JSONValueDecoder().decode(type, from: .object([key: .array(items)]))
    }
}
