import Foundation
import Testing

@testable import NFCBridge

@Suite struct EnvelopeTests {
    @Test func timestampsAreUTCWithMilliseconds() {
        #expect(Timestamp.string(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.string(Date(timeIntervalSince1970: 1_767_225_600.123)) == "2026-01-01T00:00:00.123Z")
    }

    @Test func eventIDsAreSortableULIDs() {
        struct Zero: RandomNumberGenerator { mutating func next() -> UInt64 { 0 } }
        var zero = Zero()
        let id = EventID.make(at: Date(timeIntervalSince1970: 0), using: &zero)
        #expect(id == String(repeating: "0", count: 26))
        let earlier = EventID.make(at: Date(timeIntervalSince1970: 1_767_225_600))
        let later = EventID.make(at: Date(timeIntervalSince1970: 1_767_225_601))
        #expect(earlier.count == 26 && later.count == 26)
        #expect(earlier < later)
        // 1 ms after the epoch: the time part ends in 1
        let oneMs = EventID.make(at: Date(timeIntervalSince1970: 0.001), using: &zero)
        #expect(oneMs.prefix(10) == "0000000001")
    }

    @Test func jsonIsCompactSortedAndRoundTrips() throws {
        let value: JSONValue = ["b": 1, "a": ["x/y", true, nil], "c": .double(1.5)]
        #expect(value.jsonString == #"{"a":["x/y",true,null],"b":1,"c":1.5}"#)
        #expect(try JSONValue(parsing: value.jsonData) == value)
    }
}

@Suite struct JSONValueEncoderTests {
    struct Sample: Encodable {
        var name = "a/b"
        var count: Int = 3
        var ratio = 2.5
        var whole = 30.0
        var missing: String? = nil
        var nothing = OrNull<String>(nil)
        var list: [UInt32?] = [1, nil]
        var nested = ["x": true]
    }

    @Test func encodesWhatJSONEncoderWouldWrite() throws {
        let value = try JSONValueEncoder().encode(Sample())
        #expect(value == ["name": "a/b", "count": 3, "ratio": .double(2.5), "whole": .double(30), "nothing": nil,
                          "list": [1, nil], "nested": ["x": true]])
        #expect(value.jsonString == #"{"count":3,"list":[1,null],"name":"a/b","nested":{"x":true},"nothing":null,"ratio":2.5,"whole":30}"#)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(value.jsonString == String(decoding: try encoder.encode(Sample()), as: UTF8.self))
    }

    @Test func anEnvelopeAddsItsKeysToTheBodyAndWins() throws {
        let body: JSONValue = ["uid": "04", "type": "mine"]
        let envelope = EventEnvelope(
            body: body, eventID: "E", seq: 9, date: Date(timeIntervalSince1970: 0), reader: "r", type: .removed, buffered: false)
        let value = try JSONValueEncoder().encode(envelope)
        #expect(value.jsonString == #"{"buffered":false,"event_id":"E","reader":"r","seq":9,"ts":"1970-01-01T00:00:00.000Z","type":"removed","uid":"04"}"#)
    }
}

@Suite struct TopicTests {
    @Test func topicsFollowTheLayout() {
        let topics = TopicMap(base: "nfc", id: "hall")
        #expect(topics.topic(.status) == "nfc/hall/status")
        #expect(topics.topic(.tag) == "nfc/hall/tag")
        #expect(topics.topic(.scanned) == "nfc/hall/event/scanned")
        #expect(topics.topic(.error) == "nfc/hall/event/error")
        #expect(topics.allEvents == "nfc/hall/event/+")
        #expect(topics.homeAssistantStatus == "homeassistant/status")
        #expect(topics.will == OutboundMessage(topic: "nfc/hall/status", payload: Array("offline".utf8), qos: .atLeastOnce, retain: true))
    }

    @Test func requestAndResponseTopicsAreBuiltAndParsedByTheMap() {
        let topics = TopicMap(base: "site/nfc", id: "hall")
        #expect(topics.request("write") == "site/nfc/hall/request/write")
        #expect(topics.requestFilter == "site/nfc/hall/request/+")
        #expect(topics.response("dump") == "site/nfc/hall/response/dump")
        #expect(topics.command(inRequestTopic: "site/nfc/hall/request/lock") == "lock")
        #expect(topics.command(inRequestTopic: topics.request("cancel")) == "cancel")
        #expect(topics.command(inRequestTopic: "site/nfc/hall/request/") == "")
        #expect(topics.command(inRequestTopic: "site/nfc/hall/request/a/b") == nil)
        #expect(topics.command(inRequestTopic: "site/nfc/door/request/write") == nil)
        #expect(topics.command(inRequestTopic: "site/nfc/hall/response/write") == nil)
    }

    @Test func prefixesAreValidated() {
        #expect(TopicMap.problem(inPrefix: "site/nfc") == nil)
        #expect(TopicMap.problem(inPrefix: "nfc/+") != nil)
        #expect(TopicMap.problem(inPrefix: "/nfc") != nil)
        #expect(TopicMap.problem(inPrefix: "a//b") != nil)
        #expect(TopicMap.problem(inPrefix: "") != nil)
    }
}

@Suite struct HomeAssistantDiscoveryTests {
    let discovery = HomeAssistantDiscovery(topics: TopicMap(base: "nfc", id: "hall"), version: "1.2.3")

    @Test func oneDeviceWithFourComponents() throws {
        let topics = discovery.messages.map(\.topic)
        #expect(
            topics == [
                "homeassistant/tag/hall/config", "homeassistant/event/hall_nfc/config",
                "homeassistant/binary_sensor/hall_tag_present/config", "homeassistant/sensor/hall_last_uid/config",
            ])
        #expect(discovery.messages.allSatisfy { $0.retain && $0.qos == .atLeastOnce })
        let devices = discovery.documents.compactMap { $0.document["device"] }
        #expect(devices.count == 4)
        #expect(Set(devices).count == 1)
        #expect(devices[0]["identifiers"] == ["nfcbridge_hall"])
    }

    @Test func tagScannerReadsTheTagIDOfLiveScans() throws {
        let tag = try #require(discovery.documents.first { $0.topic.contains("/tag/") }?.document)
        #expect(tag["topic"] == "nfc/hall/event/scanned")
        #expect(tag["value_template"] == "{{ '' if value_json.buffered else value_json.tag_id }}")
    }

    @Test func entitiesNeedAgentAndReader() throws {
        let event = try #require(discovery.documents.first { $0.topic.contains("/event/") }?.document)
        #expect(event["event_types"] == ["scanned", "removed"])
        #expect(event["state_topic"] == "nfc/hall/event/+")
        #expect(event["availability_mode"] == "all")
        let availability = try #require(event["availability"]?.arrayValue)
        #expect(availability.compactMap { $0["topic"]?.stringValue } == ["nfc/hall/status", "nfc/hall/reader"])
        let sensor = try #require(discovery.documents.first { $0.topic.contains("binary_sensor") }?.document)
        #expect(sensor["state_topic"] == "nfc/hall/tag")
    }

    @Test func homeAssistantTagIDComesFromNDEF() {
        let report: JSONValue = [
            "ndef": ["records": [["tnf": 1, "type": "U", "uri": "https://www.home-assistant.io/tag/5f0ba733-172f-430d-a7f8-e4ad940c88d7"]]],
        ]
        let scan = TagScan(uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06], cardType: "NTAG215", report: report)
        #expect(scan.homeAssistantTagID == "5f0ba733-172f-430d-a7f8-e4ad940c88d7")
        let plain = TagScan(uid: [0x08, 0x01, 0x02, 0x03], cardType: "x", report: [:])
        #expect(plain.homeAssistantTagID == "08010203")
        #expect(plain.hasRandomUID)
    }
}
