/// Home Assistant MQTT discovery documents for one agent (single-component discovery, which every
/// HA version understands): one device per agent with
/// - a tag scanner (`tag`) on `event/scanned`, value = ``TagScan/homeAssistantTagID`` (`tag_id`);
/// - an event entity (`event`, types `scanned` / `removed`) on `event/+`;
/// - a tag-present binary sensor on the retained `tag` topic;
/// - a last-UID sensor (diagnostic) on `event/scanned`.
///
/// Availability is `status` AND `reader` (`availability_mode: all`), so the entities go
/// unavailable when the agent or its reader is gone. Replayed events (`buffered: true`) render to
/// an empty value, which HA ignores: a tap buffered during an outage must not open a door minutes
/// later.
public struct HomeAssistantDiscovery: Sendable {
    /// The topics.
    public let topics: TopicMap
    /// The agent version (device `sw_version`, origin `sw`).
    public let version: String

    /// Creates the documents' builder.
    public init(topics: TopicMap, version: String) {
        self.topics = topics
        self.version = version
    }

    /// The discovery messages: retained, QoS 1.
    public var messages: [OutboundMessage] {
        documents.map { topic, document in
            OutboundMessage(topic: topic, payload: document.jsonBytes, qos: .atLeastOnce, retain: true)
        }
    }

    /// Topic and document of every component, in a fixed order.
    public var documents: [(topic: String, document: JSONValue)] {
        let id = topics.id
        return [
            (topics.discovery(component: "tag", objectID: id), tagScanner),
            (topics.discovery(component: "event", objectID: "\(id)_nfc"), eventEntity),
            (topics.discovery(component: "binary_sensor", objectID: "\(id)_tag_present"), tagPresentSensor),
            (topics.discovery(component: "sensor", objectID: "\(id)_last_uid"), lastUIDSensor),
        ]
    }

    /// The device every component belongs to: one per agent, with a stable identifier so
    /// per-reader automations ("same tag, other door") work.
    var device: JSONValue {
        [
            "identifiers": [.string("nfcbridge_\(topics.id)")],
            "name": .string("NFC reader \(topics.id)"),
            "manufacturer": "NFCBridge",
            "model": "NFCBridge agent",
            "sw_version": .string(version),
        ]
    }

    var origin: JSONValue { ["name": "NFCBridge", "sw": .string(version)] }

    /// `status` (plain online/offline) and `reader` (JSON state) must both be up.
    var availability: [String: JSONValue] {
        [
            "availability": [
                ["topic": .string(topics.topic(.status))],
                [
                    "topic": .string(topics.topic(.reader)),
                    "value_template": "{{ 'online' if value_json.state == 'ok' else 'offline' }}",
                ],
            ],
            "availability_mode": "all",
        ]
    }

    var tagScanner: JSONValue {
        [
            "topic": .string(topics.topic(.scanned)),
            "value_template": "{{ '' if value_json.buffered else value_json.tag_id }}",
            "device": device,
            "qos": 1,
        ]
    }

    var eventEntity: JSONValue {
        JSONValue.object([
            "name": "NFC",
            "unique_id": .string("\(topics.id)_nfc"),
            "state_topic": .string(topics.allEvents),
            "event_types": ["scanned", "removed"],
            "value_template": .string(
                "{% if value_json.type in ['scanned', 'removed'] and not value_json.buffered %}"
                    + "{{ {'event_type': value_json.type, 'uid': value_json.uid, 'tag_id': value_json.tag_id} | tojson }}"
                    + "{% endif %}"),
            "icon": "mdi:nfc-variant",
            "device": device,
            "origin": origin,
            "qos": 1,
        ]).merging(availability)
    }

    var tagPresentSensor: JSONValue {
        JSONValue.object([
            "name": "Tag present",
            "unique_id": .string("\(topics.id)_tag_present"),
            "state_topic": .string(topics.topic(.tag)),
            "value_template": "{{ 'ON' if value_json.present else 'OFF' }}",
            "json_attributes_topic": .string(topics.topic(.tag)),
            "icon": "mdi:nfc-tap",
            "device": device,
            "origin": origin,
            "qos": 1,
        ]).merging(availability)
    }

    var lastUIDSensor: JSONValue {
        JSONValue.object([
            "name": "Last UID",
            "unique_id": .string("\(topics.id)_last_uid"),
            "state_topic": .string(topics.topic(.scanned)),
            "value_template": "{{ value_json.uid }}",
            "json_attributes_topic": .string(topics.topic(.scanned)),
            "json_attributes_template":
                "{{ {'cardType': value_json.cardType, 'ts': value_json.ts, 'random_uid': value_json.random_uid, 'buffered': value_json.buffered} | tojson }}",
            "entity_category": "diagnostic",
            "icon": "mdi:identifier",
            "device": device,
            "origin": origin,
            "qos": 1,
        ]).merging(availability)
    }
}
