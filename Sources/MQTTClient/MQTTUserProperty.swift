/// One MQTT v5 user property: a UTF-8 name/value pair (MQTT 5.0 §3.3.2.3.7). Names may repeat and
/// order is kept, which is why this is a list element and not a dictionary entry.
public struct MQTTUserProperty: Sendable, Hashable, Codable {
    /// The property name.
    public var name: String
    /// The property value.
    public var value: String

    /// Creates a user property.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
