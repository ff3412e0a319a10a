import Foundation
import Testing
import NFCCore

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

    func document(_ topic: String) throws -> JSONValue {
        try #require(discovery.messages.first { $0.topic == topic }?.json, "\(topic)")
    }

    @Test func oneDeviceWithThirtyThreeComponents() throws {
        let topics = discovery.messages.map(\.topic)
        #expect(topics.count == 33)
        #expect(
            topics.prefix(15) == [
                "homeassistant/tag/hall/config", "homeassistant/event/hall_nfc/config",
                "homeassistant/binary_sensor/hall_tag_present/config", "homeassistant/sensor/hall_last_uid/config",
                "homeassistant/device_automation/hall_tag_scanned/config",
                "homeassistant/device_automation/hall_tag_removed/config", "homeassistant/binary_sensor/hall_agent/config",
                "homeassistant/sensor/hall_reader_state/config", "homeassistant/sensor/hall_scans/config",
                "homeassistant/sensor/hall_spool_depth/config", "homeassistant/sensor/hall_dropped_events/config",
                "homeassistant/sensor/hall_mqtt_reconnects/config", "homeassistant/sensor/hall_mqtt_stalls/config",
                "homeassistant/sensor/hall_buffered_events/config", "homeassistant/sensor/hall_version/config",
            ][...])
        #expect(discovery.messages.allSatisfy { $0.retain && $0.qos == .atLeastOnce })
        #expect(discovery.documents.map(\.topic) == topics)
        let devices = discovery.messages.compactMap { $0.json?["device"] }
        #expect(devices.count == 33)
        #expect(Set(devices).count == 1)
        #expect(devices[0]["identifiers"] == ["nfcbridge_hall"])
        #expect(devices[0]["hw_version"] == nil, "the reader is not known yet")
        #expect(discovery.messages.allSatisfy { $0.json?["origin"] == ["name": "NFCBridge", "sw": "1.2.3"] })
        let reader = ReaderInfo(connstring: "pn532_uart:/dev/ttyS0", name: "pn532_uart:/dev/ttyS0", firmware: "PN532 v1.6")
        let withReader = discovery.messages(reader: reader).compactMap { $0.json?["device"] }
        var expected = devices[0].objectValue ?? [:]
        expected["hw_version"] = "PN532 v1.6"
        #expect(Set(withReader) == Set([JSONValue.object(expected)]))
    }

    @Test func tagScannerReadsTheTagIDOfLiveScansWithAStableID() throws {
        let tag = try document("homeassistant/tag/hall/config")
        #expect(tag["topic"] == "nfc/hall/event/scanned")
        #expect(
            tag["value_template"]
                == "{{ '' if value_json.buffered or value_json.initial | default(false) or not ((as_timestamp(now()) - as_timestamp(value_json.ts, 0)) <= 2) or (value_json.random_uid and value_json.tag_id == value_json.uid) else value_json.tag_id }}"
        )
    }

    @Test func theLiveWindowAndTheHealthIntervalComeFromTheConfiguration() throws {
        let discovery = HomeAssistantDiscovery(
            topics: TopicMap(base: "nfc", id: "hall"), version: "1", liveWindowSeconds: 7, healthIntervalSeconds: 30)
        let documents = discovery.messages
        let tag = try #require(documents.first { $0.topic == "homeassistant/tag/hall/config" }?.json)
        #expect(tag["value_template"]?.stringValue?.contains("as_timestamp(value_json.ts, 0)) <= 7") == true, "\(tag)")
        for trigger in ["hall_tag_scanned", "hall_tag_removed"] {
            let document = try #require(documents.first { $0.topic == "homeassistant/device_automation/\(trigger)/config" }?.json)
            #expect(document["value_template"]?.stringValue?.contains("<= 7") == true, "\(trigger)")
        }
        let agent = try #require(documents.first { $0.topic == "homeassistant/binary_sensor/hall_agent/config" }?.json)
        #expect(agent["expire_after"] == 70, "two health intervals + 10 s")
    }

    @Test func tagEntitiesNeedAgentAndReader() throws {
        let event = try document("homeassistant/event/hall_nfc/config")
        #expect(event["name"] == "Tag")
        #expect(event["event_types"] == ["scanned", "removed"])
        #expect(event["state_topic"] == "nfc/hall/event/+")
        for topic in ["homeassistant/event/hall_nfc/config", "homeassistant/binary_sensor/hall_tag_present/config"] {
            let entity = try document(topic)
            #expect(entity["availability_mode"] == "all")
            let availability = try #require(entity["availability"]?.arrayValue)
            #expect(availability.compactMap { $0["topic"]?.stringValue } == ["nfc/hall/status", "nfc/hall/reader"])
        }
        let sensor = try document("homeassistant/binary_sensor/hall_tag_present/config")
        #expect(sensor["state_topic"] == "nfc/hall/tag")
        #expect(sensor["device_class"] == "occupancy")
    }

    @Test func diagnosticEntitiesNeedTheAgentOnly() throws {
        let diagnostics: [(String, String)] = [
            ("sensor/hall_last_uid", "nfc/hall/tag"), ("sensor/hall_reader_state", "nfc/hall/reader"),
            ("sensor/hall_scans", "nfc/hall/health"), ("sensor/hall_spool_depth", "nfc/hall/health"),
            ("sensor/hall_dropped_events", "nfc/hall/health"), ("sensor/hall_mqtt_reconnects", "nfc/hall/health"),
            ("sensor/hall_mqtt_stalls", "nfc/hall/health"), ("sensor/hall_buffered_events", "nfc/hall/health"),
            ("sensor/hall_version", "nfc/hall/info"),
        ]
        for (object, stateTopic) in diagnostics {
            let entity = try document("homeassistant/\(object)/config")
            #expect(entity["entity_category"] == "diagnostic", "\(object)")
            #expect(entity["state_topic"]?.stringValue == stateTopic, "\(object)")
            #expect(entity["availability"] == [["topic": "nfc/hall/status"]], "\(object)")
            #expect(entity["availability_mode"] == nil, "\(object)")
        }
        let reader = try document("homeassistant/sensor/hall_reader_state/config")
        #expect(reader["json_attributes_template"]?.stringValue?.contains("'detail': value_json.detail | default(none)") == true)
        #expect(reader["device_class"] == "enum")
        #expect(reader["options"] == ["starting", "ok", "absent", "error"])
        // The agent's own connectivity has no availability: it reads "disconnected" when the agent is down.
        let agent = try document("homeassistant/binary_sensor/hall_agent/config")
        #expect(agent["state_topic"] == "nfc/hall/status")
        #expect(agent["device_class"] == "connectivity")
        #expect(agent["payload_on"] == "online")
        #expect(agent["payload_off"] == "offline")
        #expect(agent["availability"] == nil)
    }

    @Test func deviceTriggersForScannedAndRemoved() throws {
        let scanned = try document("homeassistant/device_automation/hall_tag_scanned/config")
        #expect(scanned["automation_type"] == "trigger")
        #expect(scanned["type"] == "tag_scanned")
        #expect(scanned["topic"] == "nfc/hall/event/scanned")
        #expect(scanned["payload"] == "scanned")
        let removed = try document("homeassistant/device_automation/hall_tag_removed/config")
        #expect(removed["type"] == "tag_removed")
        #expect(removed["topic"] == "nfc/hall/event/removed")
        #expect(removed["payload"] == "removed")
    }

    @Test func homeAssistantTagIDComesFromNDEF() {
        let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        let scan = TagScan.stub(
            uid: uid, records: [.uri("https://www.home-assistant.io/tag/5f0ba733-172f-430d-a7f8-e4ad940c88d7")])
        #expect(scan.homeAssistantTagID == "5f0ba733-172f-430d-a7f8-e4ad940c88d7")
        let plain = TagScan.stub(uid: [0x08, 0x01, 0x02, 0x03])
        #expect(plain.homeAssistantTagID == "08010203")
        #expect(plain.hasRandomUID)
    }

    @Test func homeAssistantTagIDIsReadFromURIRecordsOnly() {
        let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        let prefix = HomeAssistantTagURI.prefix
        // A Text record that quotes a tag URI is text, not a tag URI.
        let text = TagScan.stub(uid: uid, records: [.text(prefix + "from-text")])
        #expect(text.homeAssistantTagID == "04010203040506")
        // The first tag URI in message order wins; other URIs are passed over; query and path end the id.
        let mixed = TagScan.stub(
            uid: uid,
            records: [.uri("https://example.com/tag/other"), .uri(prefix + "first?x=1"), .uri(prefix + "second")])
        #expect(mixed.homeAssistantTagID == "first")
        // A Smart Poster's URI counts (its records are nested in the report).
        let poster = TagScan.stub(uid: uid, records: [.smartPoster(uri: prefix + "poster/x", title: "door")])
        #expect(poster.homeAssistantTagID == "poster")
        // An empty id is no id.
        let empty = TagScan.stub(uid: uid, records: [.uri(prefix + "?x")])
        #expect(empty.homeAssistantTagID == "04010203040506")
    }
}
