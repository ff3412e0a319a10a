import Testing

@testable import MQTTClient

/// `MQTTTopic` checks topics in Swift (so a configuration is checked without loading libmosquitto);
/// here its verdicts are compared with libmosquitto's on topics that are easy to get wrong. What
/// libmosquitto refuses before sending: `mosquitto_validate_utf8` (MOSQ_ERR_MALFORMED_UTF8) and
/// `mosquitto_pub_topic_check2` / `mosquitto_sub_topic_check2` (MOSQ_ERR_INVAL), as
/// `mosquitto_publish_v5` / `mosquitto_subscribe_v5` run them. The empty topic, which libmosquitto
/// leaves to the broker (MQTT 5.0 §4.7.3: at least one character), is refused by both sides here.
@Suite struct MQTTTopicLibraryTests {
    static let topics: [String] = [
        "a", "a/b", "/", "//", "a//b", "/a", "a/", "$SYS/broker", "sport/tennis/player1",
        "+", "#", "+/+", "+/#", "a/+/b", "a/#", "/#", "#/", "#/a", "a/#/", "a/#/b", "++", "a+", "+a", "a#", "#a",
        "a/b+/c", "a/+b/c", "sport/tennis#", "sport+", "a/++/b", "a/+/#", "+/tennis/#",
        "a b", " ", "ü/ñ/日本", "a/\u{1F600}", "a\u{FFFD}",
        "a\tb", "a\nb", "a\u{1}", "a\u{1F}", "a\u{7F}", "a\u{80}", "a\u{85}", "a\u{9F}", "a\u{A0}",
        "a\u{FDCF}", "a\u{FDF0}", "a\u{FFFE}", "a\u{FFFF}", "a\u{1FFFE}", "a\u{10FFFF}",
        "a\u{0}b", "",
        String(repeating: "a", count: 65535), String(repeating: "a", count: 65536),
        String(repeating: "+/", count: 1000) + "#",
    ] + [0xFDD0, 0xFDEF].map { "a" + (Unicode.Scalar($0).map(String.init) ?? "") }  // not allowed in a literal

    /// libmosquitto's verdict as a publish or subscribe sees it (`filter`: a subscription).
    static func libmosquittoAccepts(_ topic: String, filter: Bool) throws -> Bool {
        let lib = try MosquittoLibrary.initialise()
        var bytes = Array(topic.utf8)
        let count = bytes.count
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                guard let base = text.baseAddress, count > 0 else { return false }
                let structure = filter ? lib.mosquitto_sub_topic_check2(base, count) : lib.mosquitto_pub_topic_check2(base, count)
                return structure == 0 && lib.mosquitto_validate_utf8(base, Int32(clamping: count)) == 0
            }
        }
    }

    @Test(arguments: topics)
    func namesAndFiltersAgreeWithLibmosquitto(topic: String) throws {
        let shown = topic.count > 40 ? "\(topic.prefix(20))… (\(topic.utf8.count) bytes)" : topic.debugDescription
        let name = (try? MQTTTopic.validateName(topic)) != nil
        #expect(name == (try Self.libmosquittoAccepts(topic, filter: false)), "name \(shown)")
        let filter = (try? MQTTTopic.validateFilter(topic)) != nil
        #expect(filter == (try Self.libmosquittoAccepts(topic, filter: true)), "filter \(shown)")
    }

    /// Every row of `MQTTTopic.refusedRanges` is refused at both ends, and libmosquitto agrees there and
    /// one code point outside each end: a row dropped, cut short or widened shows here.
    @Test func theRefusedRangesAgreeWithLibmosquittoAtTheirEdges() throws {
        #expect(MQTTTopic.refusedRanges.count == 3 + 17)
        for row in MQTTTopic.refusedRanges {
            let edges = [row.scalars.lowerBound, row.scalars.upperBound]
            for value in edges {
                let topic = "a" + (Unicode.Scalar(value).map(String.init) ?? "")
                #expect((try? MQTTTopic.validateName(topic)) == nil, "U+\(String(value, radix: 16)) in \(row.source)")
            }
            for value in edges + [row.scalars.lowerBound - 1, row.scalars.upperBound + 1] {
                guard let scalar = Unicode.Scalar(value) else { continue }  // past U+10FFFF
                let topic = "a" + String(scalar)
                let ours = (try? MQTTTopic.validateName(topic)) != nil
                let theirs = try Self.libmosquittoAccepts(topic, filter: false)
                #expect(ours == theirs, "U+\(String(value, radix: 16))")
            }
        }
    }

    /// The table has both verdicts on each side, so an always-yes or always-no check would fail.
    @Test func theTableHoldsAcceptedAndRefusedTopics() throws {
        let verdicts = try Self.topics.map { try Self.libmosquittoAccepts($0, filter: true) }
        #expect(verdicts.contains(true) && verdicts.contains(false))
        #expect(try Self.libmosquittoAccepts("a/+/b", filter: true) && !Self.libmosquittoAccepts("a/+/b", filter: false))
    }
}
