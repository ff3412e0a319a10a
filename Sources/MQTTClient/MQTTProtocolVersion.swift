/// The MQTT protocol version to speak. v5-only settings live inside the `.v5` case, so a v3.1.1
/// configuration cannot carry them.
public enum MQTTProtocolVersion: Sendable, Hashable {
    /// MQTT 3.1.1 (protocol level 4).
    case v311
    /// MQTT 5.0 (protocol level 5) with the given CONNECT properties.
    case v5(MQTTConnectProperties)

    /// MQTT 5.0 without CONNECT properties (the default).
    public static var v5: MQTTProtocolVersion { .v5(MQTTConnectProperties()) }

    /// `true` for MQTT 5.0.
    public var isV5: Bool {
        if case .v5 = self { return true }
        return false
    }
}
