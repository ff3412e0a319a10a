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
        let encoder = JSONValueEncoder()
        func value(_ component: some Encodable) -> JSONValue { (try? encoder.encode(component)) ?? .null }
        return [
            (topics.discovery(component: "tag", objectID: id), value(tagScanner)),
            (topics.discovery(component: "event", objectID: "\(id)_nfc"), value(eventEntity)),
            (topics.discovery(component: "binary_sensor", objectID: "\(id)_tag_present"), value(tagPresentSensor)),
            (topics.discovery(component: "sensor", objectID: "\(id)_last_uid"), value(lastUIDSensor)),
        ]
    }

    /// The device every component belongs to: one per agent, with a stable identifier so
    /// per-reader automations ("same tag, other door") work.
    struct Device: Encodable {
        var identifiers: [String]
        var name: String
        var manufacturer = "NFCBridge"
        var model = "NFCBridge agent"
        var swVersion: String
        enum CodingKeys: String, CodingKey { case identifiers, name, manufacturer, model, swVersion = "sw_version" }
    }

    struct Origin: Encodable {
        var name = "NFCBridge"
        var sw: String
    }

    struct Availability: Encodable {
        var topic: String
        var valueTemplate: String?
        enum CodingKeys: String, CodingKey { case topic, valueTemplate = "value_template" }
    }

    /// The `tag` component (device trigger of HA's tag integration).
    struct TagScanner: Encodable {
        var topic: String
        var valueTemplate: String
        var device: Device
        var qos = 1
        enum CodingKeys: String, CodingKey { case topic, valueTemplate = "value_template", device, qos }
    }

    /// An entity component (`event`, `binary_sensor`, `sensor`): the fields they share, and those
    /// only some have (left out when nil).
    struct Entity: Encodable {
        var name: String
        var uniqueID: String
        var stateTopic: String
        var eventTypes: [String]?
        var valueTemplate: String
        var jsonAttributesTopic: String?
        var jsonAttributesTemplate: String?
        var entityCategory: String?
        var icon: String
        var device: Device
        var origin: Origin
        var qos = 1
        var availability: [Availability]
        var availabilityMode = "all"

        enum CodingKeys: String, CodingKey {
            case name, uniqueID = "unique_id", stateTopic = "state_topic", eventTypes = "event_types",
                valueTemplate = "value_template", jsonAttributesTopic = "json_attributes_topic",
                jsonAttributesTemplate = "json_attributes_template", entityCategory = "entity_category", icon, device,
                origin, qos, availability, availabilityMode = "availability_mode"
        }
    }

    var device: Device {
        Device(identifiers: ["nfcbridge_\(topics.id)"], name: "NFC reader \(topics.id)", swVersion: version)
    }

    var origin: Origin { Origin(sw: version) }

    /// `status` (plain online/offline) and `reader` (JSON state) must both be up.
    var availability: [Availability] {
        [
            Availability(topic: topics.topic(.status)),
            Availability(
                topic: topics.topic(.reader), valueTemplate: "{{ 'online' if value_json.state == 'ok' else 'offline' }}"),
        ]
    }

    var tagScanner: TagScanner {
        TagScanner(
            topic: topics.topic(.scanned), valueTemplate: "{{ '' if value_json.buffered else value_json.tag_id }}",
            device: device)
    }

    var eventEntity: Entity {
        Entity(
            name: "NFC", uniqueID: "\(topics.id)_nfc", stateTopic: topics.allEvents, eventTypes: ["scanned", "removed"],
            valueTemplate: "{% if value_json.type in ['scanned', 'removed'] and not value_json.buffered %}"
                + "{{ {'event_type': value_json.type, 'uid': value_json.uid, 'tag_id': value_json.tag_id} | tojson }}"
                + "{% endif %}",
            icon: "mdi:nfc-variant", device: device, origin: origin, availability: availability)
    }

    var tagPresentSensor: Entity {
        Entity(
            name: "Tag present", uniqueID: "\(topics.id)_tag_present", stateTopic: topics.topic(.tag),
            valueTemplate: "{{ 'ON' if value_json.present else 'OFF' }}", jsonAttributesTopic: topics.topic(.tag),
            icon: "mdi:nfc-tap", device: device, origin: origin, availability: availability)
    }

    var lastUIDSensor: Entity {
        Entity(
            name: "Last UID", uniqueID: "\(topics.id)_last_uid", stateTopic: topics.topic(.scanned),
            valueTemplate: "{{ value_json.uid }}", jsonAttributesTopic: topics.topic(.scanned),
            jsonAttributesTemplate:
                "{{ {'cardType': value_json.cardType, 'ts': value_json.ts, 'random_uid': value_json.random_uid, 'buffered': value_json.buffered} | tojson }}",
            entityCategory: "diagnostic", icon: "mdi:identifier", device: device, origin: origin,
            availability: availability)
    }
}
