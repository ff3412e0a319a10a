/// Encodes any `Encodable` straight into a ``JSONValue``, with no JSON text in between: how the
/// agent's `Codable` payload models become their wire bytes (``JSONWire``) and the values the spool
/// stores. `nil` optionals are left out (as `JSONEncoder` does) unless a model encodes
/// `null` explicitly; every integer becomes ``JSONValue/int(_:)``, every floating-point number
/// ``JSONValue/double(_:)``, so the bytes ``JSONValue/jsonData`` writes are those `JSONEncoder`
/// would write for the model.
package struct JSONValueEncoder {
    /// Creates an encoder.
    package init() {}

    /// The members of a model that encodes as an object (tests read an outcome's); empty for anything
    /// else. This encoder has no failure of its own (it throws nowhere): only a model whose own
    /// `encode(to:)` throws could end up here as `{}`, and none of the agent's payload models does —
    /// their `encode(to:)` only forwards to the containers.
    package static func members(of model: some Encodable) -> [String: JSONValue] {
        (try? JSONValueEncoder().encode(model))?.objectValue ?? [:]
    }

    /// The value of `value`.
    package func encode(_ value: some Encodable) throws -> JSONValue {
        if let json = value as? JSONValue { return json }
        let node = Node()
        try value.encode(to: NodeEncoder(node: node, codingPath: []))
        return node.value
    }

    /// One value under construction: a single value, an object or an array.
    final class Node {
        var single: JSONValue?
        var members: [String: Node]?
        var elements: [Node]?

        var value: JSONValue {
            if let single { return single }
            if let elements { return .array(elements.map(\.value)) }
            // An object, or a value that encoded nothing: `{}`, as JSONEncoder writes it.
            return .object((members ?? [:]).mapValues(\.value))
        }

        func member(_ key: String) -> Node {
            let node = Node()
            if members == nil { members = [:] }
            members?[key] = node
            return node
        }

        func appendElement() -> Node {
            let node = Node()
            if elements == nil { elements = [] }
            elements?.append(node)
            return node
        }

        /// Encodes `value` into this node.
        func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
            if let json = value as? JSONValue {
                single = json
            } else {
                try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
            }
        }
    }

    struct IndexKey: CodingKey {
        var stringValue: String { "\(intValue ?? 0)" }
        var intValue: Int?
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    static func number(_ value: some BinaryInteger) -> JSONValue {
        Int64(exactly: value).map(JSONValue.int) ?? .double(Double(value))
    }

    struct NodeEncoder: Encoder {
        let node: Node
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            // A second keyed container on the same encoder adds to the same object (envelopes
            // merge their fields with the body's this way).
            if case let .object(members)? = node.single {
                // A JSONValue object encoded first (a scan report as the body): its members join.
                node.members = members.mapValues { value in
                    let member = Node()
                    member.single = value
                    return member
                }
                node.single = nil
            }
            if node.members == nil { node.members = [:] }
            return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if node.elements == nil { node.elements = [] }
            return UnkeyedContainer(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleContainer(node: node, codingPath: codingPath)
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        private func set(_ value: JSONValue, _ key: Key) { node.member(key.stringValue).single = value }

        mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { set(.double(Double(value)), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { set(JSONValueEncoder.number(value), key) }
        mutating func encode(_ value: some Encodable, forKey key: Key) throws {
            try node.member(key.stringValue).encode(value, codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            NodeEncoder(node: node.member("super"), codingPath: codingPath)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int { node.elements?.count ?? 0 }

        private func append(_ value: JSONValue) { node.appendElement().single = value }

        mutating func encodeNil() throws { append(.null) }
        mutating func encode(_ value: Bool) throws { append(.bool(value)) }
        mutating func encode(_ value: String) throws { append(.string(value)) }
        mutating func encode(_ value: Double) throws { append(.double(value)) }
        mutating func encode(_ value: Float) throws { append(.double(Double(value))) }
        mutating func encode(_ value: Int) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: Int8) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: Int16) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: Int32) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: Int64) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: UInt) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: UInt8) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: UInt16) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: UInt32) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: UInt64) throws { append(JSONValueEncoder.number(value)) }
        mutating func encode(_ value: some Encodable) throws {
            let index = count
            try node.appendElement().encode(value, codingPath: codingPath + [IndexKey(index)])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let index = count
            return NodeEncoder(node: node.appendElement(), codingPath: codingPath + [IndexKey(index)]).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let index = count
            return NodeEncoder(node: node.appendElement(), codingPath: codingPath + [IndexKey(index)]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let index = count
            return NodeEncoder(node: node.appendElement(), codingPath: codingPath + [IndexKey(index)])
        }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.single = .null }
        mutating func encode(_ value: Bool) throws { node.single = .bool(value) }
        mutating func encode(_ value: String) throws { node.single = .string(value) }
        mutating func encode(_ value: Double) throws { node.single = .double(value) }
        mutating func encode(_ value: Float) throws { node.single = .double(Double(value)) }
        mutating func encode(_ value: Int) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: Int8) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: Int16) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: Int32) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: Int64) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: UInt) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: UInt8) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: UInt16) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: UInt32) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: UInt64) throws { node.single = JSONValueEncoder.number(value) }
        mutating func encode(_ value: some Encodable) throws { try node.encode(value, codingPath: codingPath) }
    }
}
