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
}
