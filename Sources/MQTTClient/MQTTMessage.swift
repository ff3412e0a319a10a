/// A message the broker delivered to one of this client's subscriptions.
public struct MQTTMessage: Sendable, Hashable {
    /// The topic it was published on.
    public var topic: String
    /// The payload bytes (copied out of libmosquitto before the callback returned).
    public var payload: [UInt8]
    /// The QoS it was delivered with (the lower of the publish QoS and the subscription QoS).
    public var qos: MQTTQoS
    /// `true` when the broker sent a stored retained message (typically right after SUBSCRIBE).
    public var retain: Bool
    /// MQTT v5 properties (response topic, correlation data, …); empty with MQTT 3.1.1.
    public var properties: MQTTPublishProperties

    /// Creates a message value.
    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                properties: MQTTPublishProperties = MQTTPublishProperties()) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.properties = properties
    }

    /// The payload as UTF-8 text, or `nil` when it is not valid UTF-8.
    public var payloadString: String? {
        String(validating: payload, as: UTF8.self)
    }
}
