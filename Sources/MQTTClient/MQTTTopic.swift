/// Topic checks done before anything reaches libmosquitto, so a bad topic is reported as
/// `invalid_topic` with a reason instead of libmosquitto's generic `MOSQ_ERR_INVAL`.
/// Rules: MQTT 5.0 §4.7 (topic names and filters), §1.5.4 (UTF-8 strings, at most 65535 bytes, no U+0000);
/// the same checks as libmosquitto's `mosquitto_pub_topic_check2` / `_sub_topic_check2` and
/// `mosquitto_validate_utf8` (which `mosquitto_publish_v5` / `_subscribe_v5` run), done here so a
/// configuration can be checked without loading libmosquitto. `MQTTTopicLibraryTests` compares the
/// verdicts on a table of tricky topics; only the empty topic differs: libmosquitto leaves it to the
/// broker, which refuses it (§4.7.3).
enum MQTTTopic {
    private static let plus = UInt8(ascii: "+")
    private static let hash = UInt8(ascii: "#")

    /// Checks a topic *name* (what you publish to): no wildcards.
    static func validateName(_ topic: String) throws(MQTTClientError) {
        try validateString(topic)
        guard !topic.utf8.contains(where: { $0 == plus || $0 == hash }) else {
            throw .invalidTopic(topic: topic, reason: "a topic name cannot contain the wildcards + or #")
        }
    }

    /// Checks a topic *filter* (what you subscribe to): `+` only as a whole level, `#` only last.
    static func validateFilter(_ filter: String) throws(MQTTClientError) {
        try validateString(filter)
        // §4.7.1.2–3: a wildcard is a whole level, and # only the last one.
        let levels = filter.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let wildcardsInPlace = levels.indices.allSatisfy { index in
            let level = levels[index]
            guard level.contains(where: { $0 == plus || $0 == hash }) else { return true }
            return level.count == 1 && (level.first == plus || index == levels.count - 1)
        }
        guard wildcardsInPlace else {
            throw .invalidTopic(topic: filter, reason: "+ must fill a whole level and # must be the last level")
        }
    }

    private static func validateString(_ topic: String) throws(MQTTClientError) {
        guard !topic.isEmpty else { throw .invalidTopic(topic: topic, reason: "empty") }
        guard topic.utf8.count <= Int(UInt16.max) else {
            throw .invalidTopic(topic: String(topic.prefix(64)), reason: "longer than 65535 bytes")
        }
        guard !topic.utf8.contains(0) else { throw .invalidTopic(topic: topic, reason: "contains U+0000") }
        // §1.5.4: control characters and non-characters should not appear; libmosquitto refuses them
        // (`mosquitto_validate_utf8`: MOSQ_ERR_MALFORMED_UTF8).
        if let scalar = topic.unicodeScalars.first(where: isRefused) {
            let code = String(scalar.value, radix: 16, uppercase: true)
            throw .invalidTopic(topic: topic, reason: "contains U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code), "
                + "a control character or Unicode non-character (MQTT 5.0 §1.5.4)")
        }
    }

    /// One range of code points a topic may not hold, with where the rule comes from.
    struct RefusedRange: Sendable {
        /// The code points (Unicode scalar values).
        var scalars: ClosedRange<UInt32>
        /// The specification and section that name them.
        var source: String
    }

    /// The code points refused in topics: MQTT 5.0 §1.5.4 and 3.1.1 §1.5.3 ("UTF-8 Encoded String") say
    /// the data SHOULD NOT hold control characters or non-characters; libmosquitto's
    /// `mosquitto_validate_utf8` refuses them (MOSQ_ERR_MALFORMED_UTF8), so a topic holding one is
    /// refused here first. U+0000 (MUST NOT, [MQTT-1.5.4-2]) has its own check and message above.
    static let refusedRanges: [RefusedRange] = [
        RefusedRange(scalars: 0x0001...0x001F,
                     source: "MQTT 5.0 §1.5.4, 3.1.1 §1.5.3: U+0001..U+001F control characters (C0)"),
        RefusedRange(scalars: 0x007F...0x009F,
                     source: "MQTT 5.0 §1.5.4, 3.1.1 §1.5.3: U+007F..U+009F control characters (DEL, C1)"),
        RefusedRange(scalars: 0xFDD0...0xFDEF,
                     source: "The Unicode Standard §23.7 Noncharacters: U+FDD0..U+FDEF"),
    ] + (0...0x10 as ClosedRange<UInt32>).map { plane in
        RefusedRange(scalars: (plane << 16 | 0xFFFE)...(plane << 16 | 0xFFFF),
                     source: "The Unicode Standard §23.7 Noncharacters: the last two code points of plane \(plane)")
    }

    /// Whether `scalar` lies in one of ``refusedRanges``. Printable ASCII, nearly every topic's every
    /// character, is answered before the table.
    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if (0x20...0x7E).contains(value) { return false }
        return refusedRanges.contains { $0.scalars.contains(value) }
    }
}
