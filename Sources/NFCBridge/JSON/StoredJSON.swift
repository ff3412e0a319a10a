/// A JSON object the agent wrote to its own state earlier and writes back unchanged (a result in
/// `command-results.json`, replayed for a repeated request id): opaque, never read as data.
package struct StoredJSON: Sendable, Hashable, Codable {
    private let value: JSONValue

    /// True when the stored value is an object (the only form a response's `data` takes).
    package var isObject: Bool { value.objectValue != nil }

    /// Reads any JSON value.
    package init(from decoder: any Decoder) throws {
        value = try JSONValue(from: decoder)
    }

    /// Writes the value as it was read.
    package func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}
