import NFCCore

/// Home Assistant MQTT discovery documents for one agent (single-component discovery, which every
/// HA version understands), all on one device per agent (docs/home-assistant.md):
/// - a tag scanner (`tag`) on `event/scanned`, value = ``TagScan/homeAssistantTagID`` (`tag_id`) of
///   live, non-initial scans whose id is not a random UID;
/// - an event entity "Tag" (`event`, types `scanned` / `removed`) on `event/+`;
/// - a tag-present binary sensor (`occupancy`) on the retained `tag` topic;
/// - device triggers (`device_automation`) `tag_scanned` and `tag_removed`;
/// - diagnostic entities: the agent's connectivity (`status`), the reader state (`reader`, with
///   `detail`), last UID (retained `tag`, its `last`), scans, spool depth, dropped events and MQTT
///   reconnects (`health`), and the agent version (`info`).
///
/// Availability: the tag entities need `status` AND `reader` (`availability_mode: all`), so they go
/// unavailable when the agent or its reader is gone; the diagnostic ones need `status` only (they
/// say what the reader does), and the agent connectivity sensor none (it says "disconnected").
///
/// Every template is written for Home Assistant's strict rendering: a key an event does not carry
/// goes through `default`, never straight into `tojson` (an undefined value makes it fail).
/// Replayed events (`buffered: true`) render to an empty value, which HA ignores: a tap buffered
/// during an outage must not open a door minutes later. Initial scans (`initial: true`: the tag
/// was on the reader before the agent restarted) reach the event entity with their flag but not
/// the tag scanner or the `tag_scanned` trigger.
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

    /// The discovery messages, before the reader is known: retained, QoS 1.
    public var messages: [OutboundMessage] { messages(reader: nil) }

    /// The discovery messages with the device's `hw_version` from `reader` (the reader's chip and
    /// firmware, once it was opened): retained, QoS 1.
    public func messages(reader: ReaderInfo?) -> [OutboundMessage] {
        documents(reader: reader).map { topic, document in
            OutboundMessage(topic: topic, payload: document.jsonBytes, qos: .atLeastOnce, retain: true)
        }
    }

    /// Topic and document of every component, in a fixed order.
    public var documents: [(topic: String, document: JSONValue)] { documents(reader: nil) }

    /// Topic and document of every component, in a fixed order, with `reader` as the device's
    /// hardware (nil: not opened yet).
    public func documents(reader: ReaderInfo?) -> [(topic: String, document: JSONValue)] {
        let id = topics.id
        let device = device(reader: reader)
        let encoder = JSONValueEncoder()
        func value(_ component: some Encodable) -> JSONValue { (try? encoder.encode(component)) ?? .null }
        return [
            (topics.discovery(component: "tag", objectID: id), value(tagScanner(device))),
            (topics.discovery(component: "event", objectID: "\(id)_nfc"), value(eventEntity(device))),
            (topics.discovery(component: "binary_sensor", objectID: "\(id)_tag_present"), value(tagPresentSensor(device))),
            (topics.discovery(component: "sensor", objectID: "\(id)_last_uid"), value(lastUIDSensor(device))),
            (topics.discovery(component: "device_automation", objectID: "\(id)_tag_scanned"), value(scannedTrigger(device))),
            (topics.discovery(component: "device_automation", objectID: "\(id)_tag_removed"), value(removedTrigger(device))),
            (topics.discovery(component: "binary_sensor", objectID: "\(id)_agent"), value(agentSensor(device))),
            (topics.discovery(component: "sensor", objectID: "\(id)_reader_state"), value(readerStateSensor(device))),
            (topics.discovery(component: "sensor", objectID: "\(id)_scans"), value(scansSensor(device))),
            (topics.discovery(component: "sensor", objectID: "\(id)_spool_depth"), value(spoolDepthSensor(device))),
            (topics.discovery(component: "sensor", objectID: "\(id)_dropped_events"), value(droppedSensor(device))),
            (topics.discovery(component: "sensor", objectID: "\(id)_mqtt_reconnects"), value(reconnectsSensor(device))),
            (topics.discovery(component: "sensor", objectID: "\(id)_version"), value(versionSensor(device))),
        ]
    }

    /// The device every component belongs to: one per agent, with a stable identifier so
    /// per-reader automations ("same tag, other door") work. No `serial_number` (a PN532 has none,
    /// and libnfc reports none for other readers) and no `configuration_url` (the agent has no web
    /// page: it is configured by its YAML file).
    struct Device: Encodable {
        var identifiers: [String]
        var name: String
        var manufacturer = "NFCBridge"
        var model = "NFCBridge agent"
        var swVersion: String
        /// The reader's chip and firmware (`PN532 v1.6`), once opened.
        var hwVersion: String?
        enum CodingKeys: String, CodingKey {
            case identifiers, name, manufacturer, model, swVersion = "sw_version", hwVersion = "hw_version"
        }
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

    /// The `tag` component (HA's tag integration: the tag registry and the `tag_scanned` event).
    struct TagScanner: Encodable {
        var topic: String
        var valueTemplate: String
        var device: Device
        var origin: Origin
        var qos = 1
        enum CodingKeys: String, CodingKey { case topic, valueTemplate = "value_template", device, origin, qos }
    }

    /// A `device_automation` trigger: fires when `value_template` renders `payload`.
    struct Trigger: Encodable {
        var automationType = "trigger"
        var topic: String
        var type: String
        var subtype: String
        var payload: String
        var valueTemplate: String
        var device: Device
        var origin: Origin
        var qos = 1
        enum CodingKeys: String, CodingKey {
            case automationType = "automation_type", topic, type, subtype, payload, valueTemplate = "value_template",
                device, origin, qos
        }
    }

    /// An entity component (`event`, `binary_sensor`, `sensor`): the fields they share, and those
    /// only some have (left out when nil).
    struct Entity: Encodable {
        var name: String
        var uniqueID: String
        var stateTopic: String
        var eventTypes: [String]?
        var valueTemplate: String?
        var payloadOn: String?
        var payloadOff: String?
        var jsonAttributesTopic: String?
        var jsonAttributesTemplate: String?
        var deviceClass: String?
        var stateClass: String?
        var unit: String?
        var entityCategory: String?
        var icon: String?
        var device: Device
        var origin: Origin
        var qos = 1
        var availability: [Availability]?
        var availabilityMode: String?

        enum CodingKeys: String, CodingKey {
            case name, uniqueID = "unique_id", stateTopic = "state_topic", eventTypes = "event_types",
                valueTemplate = "value_template", payloadOn = "payload_on", payloadOff = "payload_off",
                jsonAttributesTopic = "json_attributes_topic", jsonAttributesTemplate = "json_attributes_template",
                deviceClass = "device_class", stateClass = "state_class", unit = "unit_of_measurement",
                entityCategory = "entity_category", icon, device, origin, qos, availability,
                availabilityMode = "availability_mode"
        }
    }

    func device(reader: ReaderInfo?) -> Device {
        Device(
            identifiers: ["nfcbridge_\(topics.id)"], name: "NFC reader \(topics.id)", swVersion: version,
            hwVersion: reader?.firmware)
    }

    var origin: Origin { Origin(sw: version) }

    /// The tag entities: `status` (plain online/offline) and `reader` (JSON state) must both be up.
    var tagAvailability: [Availability] {
        [
            Availability(topic: topics.topic(.status)),
            Availability(
                topic: topics.topic(.reader), valueTemplate: "{{ 'online' if value_json.state == 'ok' else 'offline' }}"),
        ]
    }

    /// The diagnostic entities: up whenever the agent is, whatever the reader does.
    var agentAvailability: [Availability] { [Availability(topic: topics.topic(.status))] }

    /// The tag id of a live scan, or empty (ignored by HA) for a replayed (`buffered`) or initial
    /// scan, and for a tag whose id would be its random UID: a phone presents a new random UID at
    /// every tap (ISO/IEC 14443-3, "UID contents and cascade levels": a single-size UID whose UID0 is
    /// 08h is a random ID, as ``TagScan/hasRandomUID`` tests), and each
    /// would become a new tag in HA's registry. A random-UID tag that carries an HA tag URI still
    /// has a stable id, and gets through.
    static let tagScannerTemplate =
        "{{ '' if value_json.buffered or value_json.initial | default(false)"
        + " or (value_json.random_uid and value_json.tag_id == value_json.uid) else value_json.tag_id }}"

    /// The event entity's `{"event_type":…}` for live `scanned` and `removed` events, empty for
    /// the rest; keys a `removed` does not carry (`tag_id`, `cardType`, …) go through `default`.
    static let eventTemplate =
        "{% if value_json.type in ['scanned', 'removed'] and not value_json.buffered %}"
        + "{{ {'event_type': value_json.type, 'uid': value_json.uid, 'tag_id': value_json.tag_id | default(none),"
        + " 'card_type': value_json.cardType | default(none), 'random_uid': value_json.random_uid | default(false),"
        + " 'initial': value_json.initial | default(false), 'present_ms': value_json.present_ms | default(none)} | tojson }}"
        + "{% endif %}"

    func tagScanner(_ device: Device) -> TagScanner {
        TagScanner(topic: topics.topic(.scanned), valueTemplate: Self.tagScannerTemplate, device: device, origin: origin)
    }

    func eventEntity(_ device: Device) -> Entity {
        Entity(
            name: "Tag", uniqueID: "\(topics.id)_nfc", stateTopic: topics.allEvents, eventTypes: ["scanned", "removed"],
            valueTemplate: Self.eventTemplate, icon: "mdi:nfc-variant", device: device, origin: origin,
            availability: tagAvailability, availabilityMode: "all")
    }

    func tagPresentSensor(_ device: Device) -> Entity {
        Entity(
            name: "Tag present", uniqueID: "\(topics.id)_tag_present", stateTopic: topics.topic(.tag),
            valueTemplate: "{{ 'ON' if value_json.present else 'OFF' }}", jsonAttributesTopic: topics.topic(.tag),
            jsonAttributesTemplate:
                "{{ {'uid': value_json.uid | default(none), 'cardType': value_json.cardType | default(none),"
                + " 'since': value_json.since | default(none), 'count': value_json.count | default(1 if value_json.present else 0),"
                + " 'initial': value_json.initial | default(false)} | tojson }}",
            deviceClass: "occupancy", icon: "mdi:nfc-tap", device: device, origin: origin, availability: tagAvailability,
            availabilityMode: "all")
    }

    /// The last reported scan, from the retained `tag` topic (`last`): it survives a Home
    /// Assistant restart and never takes a replayed tap. Empty before the first scan ever.
    func lastUIDSensor(_ device: Device) -> Entity {
        Entity(
            name: "Last UID", uniqueID: "\(topics.id)_last_uid", stateTopic: topics.topic(.tag),
            valueTemplate: "{{ value_json.last.uid if value_json.last is defined else '' }}",
            jsonAttributesTopic: topics.topic(.tag),
            jsonAttributesTemplate: "{{ value_json.last | default({}) | tojson }}",
            entityCategory: "diagnostic", icon: "mdi:identifier", device: device, origin: origin,
            availability: agentAvailability)
    }

    func scannedTrigger(_ device: Device) -> Trigger {
        Trigger(
            topic: topics.topic(.scanned), type: "tag_scanned", subtype: "any_tag", payload: "scanned",
            valueTemplate: "{{ '' if value_json.buffered or value_json.initial | default(false) else 'scanned' }}",
            device: device, origin: origin)
    }

    func removedTrigger(_ device: Device) -> Trigger {
        Trigger(
            topic: topics.topic(.removed), type: "tag_removed", subtype: "any_tag", payload: "removed",
            valueTemplate: "{{ '' if value_json.buffered else 'removed' }}", device: device, origin: origin)
    }

    /// The agent itself: connected or not (no availability: it is the availability).
    func agentSensor(_ device: Device) -> Entity {
        Entity(
            name: "Agent", uniqueID: "\(topics.id)_agent", stateTopic: topics.topic(.status), payloadOn: "online",
            payloadOff: "offline", deviceClass: "connectivity", entityCategory: "diagnostic", device: device,
            origin: origin)
    }

    func readerStateSensor(_ device: Device) -> Entity {
        Entity(
            name: "Reader", uniqueID: "\(topics.id)_reader_state", stateTopic: topics.topic(.reader),
            valueTemplate: "{{ value_json.state }}", jsonAttributesTopic: topics.topic(.reader),
            jsonAttributesTemplate:
                "{{ {'detail': value_json.detail | default(none), 'device': value_json.device | default(none),"
                + " 'since': value_json.since | default(none)} | tojson }}",
            entityCategory: "diagnostic", icon: "mdi:nfc-search-variant", device: device, origin: origin,
            availability: agentAvailability)
    }

    /// A counter or gauge of `health`.
    func healthSensor(
        _ device: Device, name: String, objectID: String, path: String, stateClass: String, icon: String
    ) -> Entity {
        Entity(
            name: name, uniqueID: "\(topics.id)_\(objectID)", stateTopic: topics.topic(.health),
            valueTemplate: "{{ value_json.\(path) }}", stateClass: stateClass, entityCategory: "diagnostic", icon: icon,
            device: device, origin: origin, availability: agentAvailability)
    }

    func scansSensor(_ device: Device) -> Entity {
        healthSensor(device, name: "Scans", objectID: "scans", path: "scans.total", stateClass: "total_increasing", icon: "mdi:counter")
    }

    func spoolDepthSensor(_ device: Device) -> Entity {
        healthSensor(
            device, name: "Spool depth", objectID: "spool_depth", path: "spool.depth", stateClass: "measurement",
            icon: "mdi:tray-full")
    }

    func droppedSensor(_ device: Device) -> Entity {
        healthSensor(
            device, name: "Dropped events", objectID: "dropped_events", path: "spool.dropped",
            stateClass: "total_increasing", icon: "mdi:delete-alert")
    }

    func reconnectsSensor(_ device: Device) -> Entity {
        healthSensor(
            device, name: "MQTT reconnects", objectID: "mqtt_reconnects", path: "mqtt.reconnects",
            stateClass: "total_increasing", icon: "mdi:lan-connect")
    }

    func versionSensor(_ device: Device) -> Entity {
        Entity(
            name: "Version", uniqueID: "\(topics.id)_version", stateTopic: topics.topic(.info),
            valueTemplate: "{{ value_json.agent.version }}", entityCategory: "diagnostic", icon: "mdi:information-outline",
            device: device, origin: origin, availability: agentAvailability)
    }
}
