import CMosquitto

/// Topic checks done before anything reaches libmosquitto, so a bad topic is reported as
/// `invalid_topic` with a reason instead of libmosquitto's generic `MOSQ_ERR_INVAL`.
/// Rules: MQTT 5.0 §4.7 (topic names and filters), §1.5.4 (UTF-8 strings, at most 65535 bytes, no U+0000).
enum MQTTTopic {
    /// Checks a topic *name* (what you publish to): no wildcards.
    static func validateName(_ topic: String) throws(MQTTClientError) {
        try validateString(topic)
        guard mosquitto_pub_topic_check2(topic, topic.utf8.count) == MOSQ_ERR_SUCCESS.rawValue else {
            throw .invalidTopic(topic: topic, reason: "a topic name cannot contain the wildcards + or #")
        }
    }

    /// Checks a topic *filter* (what you subscribe to): `+` only as a whole level, `#` only last.
    static func validateFilter(_ filter: String) throws(MQTTClientError) {
        try validateString(filter)
        guard mosquitto_sub_topic_check2(filter, filter.utf8.count) == MOSQ_ERR_SUCCESS.rawValue else {
            throw .invalidTopic(topic: filter, reason: "+ must fill a whole level and # must be the last level")
        }
    }

    private static func validateString(_ topic: String) throws(MQTTClientError) {
        guard !topic.isEmpty else { throw .invalidTopic(topic: topic, reason: "empty") }
        guard topic.utf8.count <= Int(UInt16.max) else {
            throw .invalidTopic(topic: String(topic.prefix(64)), reason: "longer than 65535 bytes")
        }
        guard !topic.utf8.contains(0) else { throw .invalidTopic(topic: topic, reason: "contains U+0000") }
    }
}
