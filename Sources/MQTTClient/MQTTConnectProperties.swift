/// MQTT v5 CONNECT properties (MQTT 5.0 §3.1.2.11). libmosquitto keeps them and sends them again on
/// every reconnect.
public struct MQTTConnectProperties: Sendable, Hashable {
    /// Session Expiry Interval (0x11) in seconds: how long the broker keeps the session (subscriptions,
    /// queued QoS ≥ 1 messages) after the connection ends. `nil`/0 = the session ends with the connection.
    /// A long session means stale commands can be delivered after an outage: pair it with message expiry.
    public var sessionExpiryInterval: UInt32?
    /// User Properties (0x26) sent with CONNECT.
    public var userProperties: [MQTTUserProperty]
    /// Maximum Packet Size (0x27, MQTT 5.0 §3.1.2.11.4): the largest packet this client accepts; the
    /// broker does not send it larger ones (it drops them for this client). `nil`: the protocol's limit.
    public var maximumPacketSize: UInt32?

    /// Creates CONNECT properties; none are sent by default.
    public init(sessionExpiryInterval: UInt32? = nil, userProperties: [MQTTUserProperty] = [], maximumPacketSize: UInt32? = nil) {
        self.sessionExpiryInterval = sessionExpiryInterval
        self.userProperties = userProperties
        self.maximumPacketSize = maximumPacketSize
    }
}
