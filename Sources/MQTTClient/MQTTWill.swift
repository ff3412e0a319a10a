/// The Last Will and Testament: the broker publishes it when this client's connection ends without
/// a DISCONNECT (crash, network loss, keepalive timeout) — MQTT 5.0 §3.1.2.5 / 3.1.1 §3.1.2.5.
/// Typical use: a retained `offline` on the availability topic.
public struct MQTTWill: Sendable, Hashable {
    /// The topic the broker publishes the will on.
    public var topic: String
    /// The will payload.
    public var payload: [UInt8]
    /// The will QoS.
    public var qos: MQTTQoS
    /// Whether the broker stores the will as the retained message of `topic`.
    public var retain: Bool
    /// MQTT v5 will properties (content type, message expiry, user properties, …); ignored — and
    /// rejected with `not_supported` when non-empty — on MQTT 3.1.1.
    public var properties: MQTTPublishProperties

    /// Creates a will message.
    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true,
                properties: MQTTPublishProperties = MQTTPublishProperties()) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.properties = properties
    }

    /// Creates a will message with a UTF-8 text payload (e.g. `offline`).
    public init(topic: String, text: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = true,
                properties: MQTTPublishProperties = MQTTPublishProperties()) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain, properties: properties)
    }
}
