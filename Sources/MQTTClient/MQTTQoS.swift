/// MQTT quality of service (MQTT 5.0 §4.3, MQTT 3.1.1 §4.3).
public enum MQTTQoS: Int, Sendable, Hashable, CaseIterable, Codable {
    /// QoS 0: fire and forget; lost if the link is down.
    case atMostOnce = 0
    /// QoS 1: acknowledged with PUBACK; may arrive more than once.
    case atLeastOnce = 1
    /// QoS 2: four-way handshake, exactly once between two hops.
    case exactlyOnce = 2
}
