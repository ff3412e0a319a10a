/// The shapes of the discovery documents: the JSON each Home Assistant component reads (its keys as
/// Home Assistant spells them; nil fields are left out).
extension HomeAssistantDiscovery {
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
        /// The states of an `enum` sensor.
        var options: [String]?
        /// Seconds after the last message on `state_topic` when the entity goes unavailable.
        var expireAfter: Int?

        enum CodingKeys: String, CodingKey {
            case name, uniqueID = "unique_id", stateTopic = "state_topic", eventTypes = "event_types",
                valueTemplate = "value_template", payloadOn = "payload_on", payloadOff = "payload_off",
                jsonAttributesTopic = "json_attributes_topic", jsonAttributesTemplate = "json_attributes_template",
                deviceClass = "device_class", stateClass = "state_class", unit = "unit_of_measurement",
                entityCategory = "entity_category", icon, device, origin, qos, availability,
                availabilityMode = "availability_mode", options, expireAfter = "expire_after"
        }
    }

    /// A component that publishes (`text`, `number`, `button`): the request or value goes to
    /// `command_topic`, built by `command_template`; `default_entity_id` fixes its entity id (Home
    /// Assistant 2025.10 and later; `object_id` for the older ones, which 2026.4 ignores).
    struct Control: Encodable {
        var name: String
        var uniqueID: String
        var objectID: String
        /// `<component>.<objectID>`.
        var defaultEntityID: String
        var commandTopic: String
        var commandTemplate: String?
        var stateTopic: String?
        /// Home Assistant publishes the value retained (inputs: the broker keeps it for the buttons).
        var retain: Bool?
        /// `text`: `text`; `number`: `box`.
        var mode: String?
        var min: Int?
        var max: Int?
        var step: Int?
        var icon: String?
        var device: Device
        var origin: Origin
        var qos = 1
        var availability: [Availability]?

        enum CodingKeys: String, CodingKey {
            case name, uniqueID = "unique_id", objectID = "object_id", defaultEntityID = "default_entity_id",
                commandTopic = "command_topic",
                commandTemplate = "command_template", stateTopic = "state_topic", retain, mode, min, max, step, icon, device,
                origin, qos, availability
        }
    }
}
