import NFCCore

/// Home Assistant MQTT discovery documents for one agent (single-component discovery, which every
/// HA version understands), all on one device per agent (docs/home-assistant.md):
/// - a tag scanner (`tag`) on `event/scanned`, value = ``TagScan/homeAssistantTagID`` (`tag_id`) of
///   live, non-initial scans whose id is not a random UID;
/// - an event entity "Tag" (`event`, types `scanned` / `removed`) on `event/+`;
/// - a tag-present binary sensor (`occupancy`) on the retained `tag` topic;
/// - device triggers (`device_automation`) `tag_scanned` and `tag_removed`;
/// - diagnostic entities: the agent's connectivity (`status`), the reader state (`reader`, with
///   `detail`, an `enum`), last UID (retained `tag`, its `last`), scans, spool depth, dropped and
///   buffered events, MQTT reconnects and stalls (`health`), and the agent version (`info`).
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
package struct HomeAssistantDiscovery: Sendable {
    /// The topics.
    package let topics: TopicMap
    /// The agent version (device `sw_version`, origin `sw`).
    package let version: String
    /// `mqtt.live_window_s`: a scan that reaches Home Assistant later than this after its `ts`
    /// fires nothing (``liveTest``).
    package let liveWindowSeconds: Int
    /// `health_interval_s`: the agent republishes `status` that often, so the Agent sensor can
    /// expire when nothing comes through (a stalled broker).
    package let healthIntervalSeconds: Int
    /// `homeassistant.trusted_only`: only taps whose `trust.verdict` is `trusted` reach the tag
    /// scanner and the `tag_scanned` trigger.
    package let trustedOnly: Bool

    /// Creates the documents' builder.
    package init(
        topics: TopicMap, version: String, liveWindowSeconds: Int = 2, healthIntervalSeconds: Int = 60,
        trustedOnly: Bool = false
    ) {
        (self.topics, self.version, self.trustedOnly) = (topics, version, trustedOnly)
        (self.liveWindowSeconds, self.healthIntervalSeconds) = (liveWindowSeconds, healthIntervalSeconds)
    }

    /// The discovery messages, before the reader is known: retained, QoS 1.
    package var messages: [OutboundMessage] { messages(reader: nil) }

    /// The discovery messages with the device's `hw_version` from `reader` (the reader's chip and
    /// firmware, once it was opened): retained, QoS 1.
    package func messages(reader: ReaderInfo?) -> [OutboundMessage] {
        documents(reader: reader).map { topic, document in
            OutboundMessage(topic: topic, payload: JSONWire.payload(document), qos: .atLeastOnce, retain: true)
        }
    }

    /// Topic and document of every component, in a fixed order.
    package var documents: [(topic: String, document: any Encodable & Sendable)] { documents(reader: nil) }

    /// Topic and document of every component, in a fixed order, with `reader` as the device's
    /// hardware (nil: not opened yet). The documents stay typed until ``messages(reader:)`` encodes them.
    package func documents(reader: ReaderInfo?) -> [(topic: String, document: any Encodable & Sendable)] {
        let id = topics.id
        let device = device(reader: reader)
        func value(_ component: some Encodable & Sendable) -> any Encodable & Sendable { component }
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
            (topics.discovery(component: "sensor", objectID: "\(id)_mqtt_stalls"), value(stallsSensor(device))),
            (topics.discovery(component: "sensor", objectID: "\(id)_buffered_events"), value(bufferedEventsSensor(device))),
            (topics.discovery(component: "sensor", objectID: "\(id)_version"), value(versionSensor(device))),
        ]
    }
}
