import FoundationEssentials

/// The one place a value of the agent becomes JSON: an outbound payload, a state file, a quoted id.
/// Through ``JSONValueEncoder``, so every payload has sorted keys, unescaped slashes and the number
/// forms ``JSONValue/jsonData`` writes (the wire the goldens pin).
package enum JSONWire {
    /// The compact JSON bytes of `value`.
    package static func bytes(_ value: some Encodable) throws -> [UInt8] {
        try JSONValueEncoder().encode(value).jsonBytes
    }

    /// The compact JSON bytes of a value whose encoding cannot fail (the agent's payload models only
    /// forward to the containers); `null` should one throw after all.
    package static func payload(_ value: some Encodable) -> [UInt8] {
        ((try? JSONValueEncoder().encode(value)) ?? .null).jsonBytes
    }

    /// The compact JSON text of `value` (see ``payload(_:)``).
    package static func text(_ value: some Encodable) -> String {
        ((try? JSONValueEncoder().encode(value)) ?? .null).jsonString
    }

    /// The JSON object whose members are `members`, in the order given, each value given as JSON
    /// bytes encoded before (a payload put into a record as it is, without being parsed again).
    package static func object(splicing members: KeyValuePairs<String, [UInt8]>) -> [UInt8] {
        var object: [UInt8] = [UInt8(ascii: "{")]
        for (index, member) in members.enumerated() {
            if index > 0 { object.append(UInt8(ascii: ",")) }
            object += payload(member.key) + [UInt8(ascii: ":")] + member.value
        }
        return object + [UInt8(ascii: "}")]
    }

    /// The JSON object `object` (JSON bytes) with the top-level members `flags` set, written as
    /// ``bytes(_:)`` writes (sorted keys); nil when `object` is not a JSON object.
    package static func object(_ object: [UInt8], setting flags: [String: Bool]) -> [UInt8]? {
        guard case var .object(members)? = try? JSONValue(parsing: Data(object)) else { return nil }
        for (key, flag) in flags { members[key] = .bool(flag) }
        return JSONValue.object(members).jsonBytes
    }
}
