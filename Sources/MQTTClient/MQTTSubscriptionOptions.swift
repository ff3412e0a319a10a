import CMosquitto

/// MQTT v5 subscription options (MQTT 5.0 §3.8.3.1). Ignored with MQTT 3.1.1, which has none.
public struct MQTTSubscriptionOptions: Sendable, Hashable {
    /// When the broker sends the retained messages of a matching topic.
    public enum RetainHandling: Sendable, Hashable {
        /// At every SUBSCRIBE (the MQTT default) — also at every automatic re-subscribe.
        case sendAtSubscribe
        /// Only when the subscription did not exist yet.
        case sendIfNewSubscription
        /// Never: use it for command topics, so a stray retained command is not replayed.
        case doNotSend
    }

    /// Do not receive this client's own publishes.
    public var noLocal: Bool
    /// Keep the RETAIN flag as the publisher set it (for bridges).
    public var retainAsPublished: Bool
    /// When retained messages are sent.
    public var retainHandling: RetainHandling

    /// Creates subscription options; the defaults are MQTT's defaults.
    public init(noLocal: Bool = false, retainAsPublished: Bool = false,
                retainHandling: RetainHandling = .sendAtSubscribe) {
        self.noLocal = noLocal
        self.retainAsPublished = retainAsPublished
        self.retainHandling = retainHandling
    }

    /// The option bits for `mosquitto_subscribe_v5` (`MQTT_SUB_OPT_*`).
    var mosquittoBits: Int32 {
        var bits: UInt32 = 0
        if noLocal { bits |= MQTT_SUB_OPT_NO_LOCAL.rawValue }
        if retainAsPublished { bits |= MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue }
        switch retainHandling {
        case .sendAtSubscribe: bits |= MQTT_SUB_OPT_SEND_RETAIN_ALWAYS.rawValue
        case .sendIfNewSubscription: bits |= MQTT_SUB_OPT_SEND_RETAIN_NEW.rawValue
        case .doNotSend: bits |= MQTT_SUB_OPT_SEND_RETAIN_NEVER.rawValue
        }
        return Int32(bits)
    }
}
