import NFCCore

/// The components of the discovery set, one builder each: topics, templates and availability.
extension HomeAssistantDiscovery {
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

    /// True (in Jinja) when the event reached Home Assistant within `mqtt.live_window_s` of its
    /// `ts`: a tap that a stalled broker held back (the TCP connection open, nothing forwarded)
    /// arrives late with `buffered: false`, since the agent handed it over in time; only Home
    /// Assistant can tell that it came late. A `ts` ahead of Home Assistant's clock passes.
    /// Both clocks must be synchronized (`health.clock.synchronized`, docs/home-assistant.md).
    var liveTest: String {
        "(as_timestamp(now()) - as_timestamp(value_json.ts, 0)) <= \(liveWindowSeconds)"
    }

    /// `homeassistant.trusted_only`: the clause that drops a tap whose `trust.verdict` is not
    /// `trusted` (or that has no `trust`); empty otherwise.
    var untrustedTest: String {
        trustedOnly ? " or (value_json.trust.verdict if value_json.trust is defined else '') != 'trusted'" : ""
    }

    /// The tag id of a live scan, or empty (ignored by HA) for a replayed (`buffered`), late or
    /// initial scan (and, with `trusted_only`, an untrusted one), and for a tag whose id would be its
    /// random UID: a phone presents a new random UID at every tap (ISO/IEC 14443-3, "UID contents and
    /// cascade levels": a single-size UID whose UID0 is 08h is a random ID, as
    /// ``TagScan/hasRandomUID`` tests), and each would become a new tag in HA's registry. A
    /// random-UID tag that carries an HA tag URI still has a stable id, and gets through.
    var tagScannerTemplate: String {
        "{{ '' if value_json.buffered or value_json.initial | default(false) or not (\(liveTest))"
            + " or (value_json.random_uid and value_json.tag_id == value_json.uid)\(untrustedTest) else value_json.tag_id }}"
    }

    /// The `tag_scanned` trigger's template: `scanned` for a live, non-initial tap that arrives in
    /// time (and, with `trusted_only`, a trusted one).
    var scannedTriggerTemplate: String {
        "{{ '' if value_json.buffered or value_json.initial | default(false) or not (\(liveTest))\(untrustedTest) else 'scanned' }}"
    }

    /// The event entity's `{"event_type":…}` for live `scanned` and `removed` events that arrive in
    /// time, empty for the rest; keys a `removed` does not carry (`tag_id`, `trust`, …) go through
    /// `default`.
    var eventTemplate: String {
        "{% if value_json.type in ['scanned', 'removed'] and not value_json.buffered and \(liveTest) %}"
            + "{{ {'event_type': value_json.type, 'uid': value_json.uid, 'tag_id': value_json.tag_id | default(none),"
            + " 'card_type': value_json.cardType | default(none), 'random_uid': value_json.random_uid | default(false),"
            + " 'initial': value_json.initial | default(false), 'after_restart': value_json.after_restart | default(false),"
            + " 'present_ms': value_json.present_ms | default(none),"
            + " 'trust': value_json.trust.verdict if value_json.trust is defined else none,"
            + " 'trust_reason': value_json.trust.reason | default(none) if value_json.trust is defined else none,"
            + " 'signature': value_json.trust.signature.verdict | default(none) if value_json.trust is defined and value_json.trust.signature is defined else none,"
            + " 'clone_probes': value_json.trust.clone_probes if value_json.trust is defined else none} | tojson }}"
            + "{% endif %}"
    }

    func tagScanner(_ device: Device) -> TagScanner {
        TagScanner(topic: topics.topic(.scanned), valueTemplate: tagScannerTemplate, device: device, origin: origin)
    }

    func eventEntity(_ device: Device) -> Entity {
        Entity(
            name: "Tag", uniqueID: "\(topics.id)_nfc", stateTopic: topics.allEvents, eventTypes: ["scanned", "removed"],
            valueTemplate: eventTemplate, icon: "mdi:nfc-variant", device: device, origin: origin,
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
            valueTemplate: scannedTriggerTemplate, device: device, origin: origin)
    }

    func removedTrigger(_ device: Device) -> Trigger {
        Trigger(
            topic: topics.topic(.removed), type: "tag_removed", subtype: "any_tag", payload: "removed",
            valueTemplate: "{{ '' if value_json.buffered or not (\(liveTest)) else 'removed' }}", device: device,
            origin: origin)
    }

    /// The agent itself: connected or not (no availability: it is the availability). The agent
    /// republishes `status` with every `health`; when nothing has come for two health intervals
    /// (+10 s), the broker stopped forwarding (stalled, or the agent's link is gone without its
    /// will yet) and the sensor goes unavailable.
    func agentSensor(_ device: Device) -> Entity {
        Entity(
            name: "Agent", uniqueID: "\(topics.id)_agent", stateTopic: topics.topic(.status), payloadOn: "online",
            payloadOff: "offline", deviceClass: "connectivity", entityCategory: "diagnostic", device: device,
            origin: origin, expireAfter: 2 * healthIntervalSeconds + 10)
    }

    /// The reader's state as an `enum` sensor: its options are ``ReaderStatus/State``'s cases.
    func readerStateSensor(_ device: Device) -> Entity {
        Entity(
            name: "Reader", uniqueID: "\(topics.id)_reader_state", stateTopic: topics.topic(.reader),
            valueTemplate: "{{ value_json.state }}", jsonAttributesTopic: topics.topic(.reader),
            jsonAttributesTemplate:
                "{{ {'detail': value_json.detail | default(none), 'device': value_json.device | default(none),"
                + " 'since': value_json.since | default(none)} | tojson }}",
            deviceClass: "enum", entityCategory: "diagnostic", icon: "mdi:nfc-search-variant", device: device,
            origin: origin, availability: agentAvailability, options: ReaderStatus.State.allCases.map(\.rawValue))
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

    /// Times the broker stopped acknowledging (`health.mqtt.stalls`).
    func stallsSensor(_ device: Device) -> Entity {
        healthSensor(
            device, name: "MQTT stalls", objectID: "mqtt_stalls", path: "mqtt.stalls", stateClass: "total_increasing",
            icon: "mdi:timer-sand-paused")
    }

    /// Events that reached the broker late, from the spool (`health.spool.replayed`): taps made
    /// during an outage, which fired nothing in Home Assistant.
    func bufferedEventsSensor(_ device: Device) -> Entity {
        healthSensor(
            device, name: "Buffered events", objectID: "buffered_events", path: "spool.replayed",
            stateClass: "total_increasing", icon: "mdi:tray-arrow-up")
    }

    func versionSensor(_ device: Device) -> Entity {
        Entity(
            name: "Version", uniqueID: "\(topics.id)_version", stateTopic: topics.topic(.info),
            valueTemplate: "{{ value_json.agent.version }}", entityCategory: "diagnostic", icon: "mdi:information-outline",
            device: device, origin: origin, availability: agentAvailability)
    }
}
