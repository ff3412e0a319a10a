/// Decodes a `Decodable` model straight from a ``JSONValue`` (the counterpart of ``JSONValueEncoder``),
/// so a request already parsed into a value is never written back to JSON text to be decoded again.
///
/// Mismatches throw `DecodingError` with the coding path, as `JSONDecoder` does for the same JSON;
/// integers accept integral doubles (``JSONValue/intValue``), as `JSONDecoder` accepts `1.0`.
package struct JSONValueDecoder {
    /// Creates a decoder.
    package init() {}

    /// Decodes `type` from `value`.
    package func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: []))
    }
}

/// One value with its place in the document.
private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let members = value.objectValue else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedValueContainer(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = value.arrayValue else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedValueContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValue(value: value, codingPath: codingPath)
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    .typeMismatch(type, DecodingError.Context(codingPath: path, debugDescription: "Expected \(type), found \(value.jsonString)"))
}

/// The scalar decoding every container shares.
private func decodeScalar<T: Decodable>(_ type: T.Type, from value: JSONValue, path: [any CodingKey]) throws -> T {
    let result: Any?
    switch type {
    case is Bool.Type: result = value.boolValue
    case is String.Type: result = value.stringValue
    case is Double.Type:
        if case let .double(number) = value { result = number } else { result = value.intValue.map(Double.init) }
    case is Float.Type:
        if case let .double(number) = value { result = Float(number) } else { result = value.intValue.map(Float.init) }
    case is Int.Type: result = value.intValue.flatMap { Int(exactly: $0) }
    case is Int64.Type: result = value.intValue
    case is Int32.Type: result = value.intValue.flatMap { Int32(exactly: $0) }
    case is Int16.Type: result = value.intValue.flatMap { Int16(exactly: $0) }
    case is Int8.Type: result = value.intValue.flatMap { Int8(exactly: $0) }
    case is UInt.Type: result = value.intValue.flatMap { UInt(exactly: $0) }
    case is UInt64.Type: result = value.intValue.flatMap { UInt64(exactly: $0) }
    case is UInt32.Type: result = value.intValue.flatMap { UInt32(exactly: $0) }
    case is UInt16.Type: result = value.intValue.flatMap { UInt16(exactly: $0) }
    case is UInt8.Type: result = value.intValue.flatMap { UInt8(exactly: $0) }
    case is JSONValue.Type: result = value
    default: return try T(from: ValueDecoder(value: value, codingPath: path))
    }
    guard let typed = result as? T else { throw mismatch(type, value, path) }
    return typed
}

private struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "No value for \(key.stringValue)"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeScalar(type, from: member(key), path: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: .object(members), codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

/// An array element's key: its index (rendered `[1]` in error paths).
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        let path = codingPath + [IndexKey(index: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                JSONValue.self, DecodingError.Context(codingPath: path, debugDescription: "Unkeyed container is at end"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next()
        return try decodeScalar(type, from: value, path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let (value, path) = try next()
        return try ValueDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next()
        return try ValueDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next()
        return ValueDecoder(value: value, codingPath: path)
    }
}

private struct SingleValue: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeScalar(type, from: value, path: codingPath)
    }
}
