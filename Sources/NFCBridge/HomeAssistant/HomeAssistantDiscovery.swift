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
        /// The component's discovery topic (object id `<id>_<suffix>`, or `<id>` alone) and document.
        func row(_ component: String, _ suffix: String?, _ document: some Encodable & Sendable)
            -> (topic: String, document: any Encodable & Sendable)
        {
            (topics.discovery(component: component, objectID: suffix.map { "\(id)_\($0)" } ?? id), document)
        }
        return [
            row("tag", nil, tagScanner(device)),
            row("event", "nfc", eventEntity(device)),
            row("binary_sensor", "tag_present", tagPresentSensor(device)),
            row("sensor", "last_uid", lastUIDSensor(device)),
            row("device_automation", "tag_scanned", scannedTrigger(device)),
            row("device_automation", "tag_removed", removedTrigger(device)),
            row("binary_sensor", "agent", agentSensor(device)),
            row("sensor", "reader_state", readerStateSensor(device)),
            row("sensor", "scans", scansSensor(device)),
            row("sensor", "spool_depth", spoolDepthSensor(device)),
            row("sensor", "dropped_events", droppedSensor(device)),
            row("sensor", "mqtt_reconnects", reconnectsSensor(device)),
            row("sensor", "mqtt_stalls", stallsSensor(device)),
            row("sensor", "buffered_events", bufferedEventsSensor(device)),
            row("sensor", "version", versionSensor(device)),
        ] + controls(device)
    }

    /// The components that act (``HomeAssistantControls``) and the job's sensors, in a fixed order.
    func controls(_ device: Device) -> [(topic: String, document: any Encodable & Sendable)] {
        let id = topics.id
        func row(_ component: String, _ suffix: String, _ document: some Encodable & Sendable)
            -> (topic: String, document: any Encodable & Sendable)
        {
            (topics.discovery(component: component, objectID: "\(id)_\(suffix)"), document)
        }
        return [
            row("text", "write_content", writeContentText(device)),
            row("button", "write_tag", writeTagButton(device)),
            row("sensor", "write_result", writeResultSensor(device)),
            row("text", "job_template", jobTemplateText(device)),
            row("number", "job_first_serial", jobFirstSerialNumber(device)),
            row("number", "job_count", jobCountNumber(device)),
            row("button", "job_start", jobStartButton(device)),
            row("button", "job_pause", jobActionButton(device, "pause", "Pause job", icon: "mdi:pause")),
            row("button", "job_resume", jobActionButton(device, "resume", "Resume job", icon: "mdi:play-pause")),
            row("button", "job_cancel", jobActionButton(device, "cancel", "Cancel job", icon: "mdi:stop")),
            row("sensor", "job_state", jobStateSensor(device)),
            row("sensor", "job_done", jobCountSensor(device, "done", name: "Job done", icon: "mdi:check-all")),
            row("sensor", "job_failed", jobCountSensor(device, "failed", name: "Job failed", icon: "mdi:close-octagon")),
            row("sensor", "job_remaining", jobCountSensor(device, "remaining", name: "Job remaining", icon: "mdi:progress-clock")),
            row("sensor", "job_tag", jobTagSensor(device)),
            row("button", "signal_ok", signalButton(device, "signal_ok", "Signal OK", .init(light: .green, beeps: 1))),
            row("button", "signal_denied", signalButton(device, "signal_denied", "Signal denied", .init(light: .red, beeps: 2))),
            row("sensor", "command_result", commandResultSensor(device)),
        ]
    }
}
