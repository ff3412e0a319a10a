/// The MQTT v5 PUBLISH properties this client sends and receives (MQTT 5.0 §3.3.2.3).
///
/// With MQTT 3.1.1 there are no properties: publishing non-empty properties on a v3.1.1
/// connection fails with `not_supported`, and received messages carry empty properties.
public struct MQTTPublishProperties: Sendable, Hashable {
    /// Response Topic (0x08): where the receiver should send its answer (request/response).
    public var responseTopic: String?
    /// Correlation Data (0x09): opaque bytes the responder copies into its answer.
    public var correlationData: [UInt8]?
    /// Content Type (0x03), e.g. `application/json`.
    public var contentType: String?
    /// Message Expiry Interval (0x02) in seconds: the broker drops the message when it has not been
    /// delivered in time (and forwards the remaining interval).
    public var messageExpiryInterval: UInt32?
    /// Payload Format Indicator (0x01): `true` declares the payload UTF-8 text.
    public var payloadIsUTF8: Bool?
    /// User Properties (0x26), in order.
    public var userProperties: [MQTTUserProperty]

    /// Creates a property set; every property is absent by default.
    public init(responseTopic: String? = nil, correlationData: [UInt8]? = nil, contentType: String? = nil,
                messageExpiryInterval: UInt32? = nil, payloadIsUTF8: Bool? = nil,
                userProperties: [MQTTUserProperty] = []) {
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.contentType = contentType
        self.messageExpiryInterval = messageExpiryInterval
        self.payloadIsUTF8 = payloadIsUTF8
        self.userProperties = userProperties
    }

    /// `true` when no property is set.
    public var isEmpty: Bool {
        responseTopic == nil && correlationData == nil && contentType == nil && messageExpiryInterval == nil
            && payloadIsUTF8 == nil && userProperties.isEmpty
    }
}
