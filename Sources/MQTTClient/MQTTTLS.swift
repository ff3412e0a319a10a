/// Whether the connection uses TLS.
///
/// An `mqtts://` URL always uses TLS: with `.disabled` it falls back to `MQTTTLSConfiguration()`
/// (operating-system CAs, hostname verification on). `.enabled` on an `mqtt://` URL also turns TLS on.
public enum MQTTTLS: Sendable, Hashable {
    /// Plain TCP (unless the URL says `mqtts://`).
    case disabled
    /// TLS with these settings.
    case enabled(MQTTTLSConfiguration)
}
