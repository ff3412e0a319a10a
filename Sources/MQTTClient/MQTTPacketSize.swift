/// The size on the wire of a PUBLISH packet, as a broker's packet limit counts it: the fixed
/// header (one byte and the Remaining Length) and everything after it (MQTT 5.0 §2.1, §3.3;
/// MQTT 3.1.1 §2.2, §3.3). Used to refuse a publish the broker would refuse, before sending it.
/// mosquitto counts a little less (its broker the Remaining Length and one byte, libmosquitto the
/// Remaining Length and its length bytes), so this count refuses at most 4 bytes early, never late.
public enum MQTTPacketSize {
    /// Bytes of a PUBLISH of `payloadCount` bytes to `topic` at `qos`, with `properties` under v5
    /// (v3.1.1 has no property section). Saturates at `Int.max` rather than overflow.
    public static func publish(
        topic: String, payloadCount: Int, qos: MQTTQoS, properties: MQTTPublishProperties, isV5: Bool
    ) -> Int {
        // Variable header: Topic Name (2-byte length + UTF-8), Packet Identifier at QoS > 0 (§3.3.2).
        var remaining = 2 + topic.utf8.count + (qos == .atMostOnce ? 0 : 2)
        if isV5 {
            let propertyBytes = Self.properties(properties)
            remaining = add(remaining, add(variableByteIntegerLength(propertyBytes), propertyBytes))
        }
        remaining = add(remaining, max(0, payloadCount))
        return add(1 + variableByteIntegerLength(remaining), remaining)
    }

    /// The property section's length (without its own length field), MQTT 5.0 §3.3.2.3: each
    /// property is its identifier byte and its value (a byte, a four-byte integer, a UTF-8 string
    /// or binary data with a two-byte length, a string pair).
    static func properties(_ p: MQTTPublishProperties) -> Int {
        var bytes = 0
        if p.payloadIsUTF8 != nil { bytes += 1 + 1 }
        if p.messageExpiryInterval != nil { bytes += 1 + 4 }
        if let contentType = p.contentType { bytes = add(bytes, 1 + 2 + contentType.utf8.count) }
        if let responseTopic = p.responseTopic { bytes = add(bytes, 1 + 2 + responseTopic.utf8.count) }
        if let correlation = p.correlationData { bytes = add(bytes, 1 + 2 + correlation.count) }
        for property in p.userProperties {
            bytes = add(bytes, 1 + 2 + property.name.utf8.count + 2 + property.value.utf8.count)
        }
        return bytes
    }

    /// Bytes of a Variable Byte Integer holding `value` (MQTT 5.0 §1.5.5: 7 bits a byte; four bytes
    /// reach 268,435,455, a larger value is counted as if a fifth byte followed).
    static func variableByteIntegerLength(_ value: Int) -> Int {
        switch value {
        case ..<128: 1
        case ..<16_384: 2
        case ..<2_097_152: 3
        case ..<268_435_456: 4
        default: 5
        }
    }

    private static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }
}
