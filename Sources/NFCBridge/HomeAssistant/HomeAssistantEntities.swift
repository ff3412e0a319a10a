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

    /// The tag id of a live scan, or empty (ignored by HA) for a replayed (`buffered`) or initial
    /// scan, and for a tag whose id would be its random UID: a phone presents a new random UID at
    /// every tap (ISO/IEC 14443-3, "UID contents and cascade levels": a single-size UID whose UID0 is
    /// 08h is a random ID, as ``TagScan/hasRandomUID`` tests), and each
    /// would become a new tag in HA's registry. A random-UID tag that carries an HA tag URI still
    /// has a stable id, and gets through.
    static let tagScannerTemplate =
        "{{ '' if value_json.buffered or value_json.initial | default(false)"
        + " or (value_json.random_uid and value_json.tag_id == value_json.uid) else value_json.tag_id }}"

    /// ``tagScannerTemplate`` that also renders empty for a tap whose `trust.verdict` is not `trusted`
    /// (or that has no `trust`): `homeassistant.trusted_only`.
    static let trustedTagScannerTemplate =
        "{{ '' if value_json.buffered or value_json.initial | default(false)"
        + " or (value_json.random_uid and value_json.tag_id == value_json.uid)"
        + " or (value_json.trust.verdict if value_json.trust is defined else '') != 'trusted' else value_json.tag_id }}"

    /// The `tag_scanned` trigger's template: `scanned` for a live, non-initial tap (and, with
    /// `trusted_only`, a trusted one).
    var scannedTriggerTemplate: String {
        let trusted = trustedOnly ? " or (value_json.trust.verdict if value_json.trust is defined else '') != 'trusted'" : ""
        return "{{ '' if value_json.buffered or value_json.initial | default(false)\(trusted) else 'scanned' }}"
    }

    /// The event entity's `{"event_type":…}` for live `scanned` and `removed` events, empty for
    /// the rest; keys a `removed` does not carry (`tag_id`, `cardType`, …) go through `default`.
    static let eventTemplate =
        "{% if value_json.type in ['scanned', 'removed'] and not value_json.buffered %}"
        + "{{ {'event_type': value_json.type, 'uid': value_json.uid, 'tag_id': value_json.tag_id | default(none),"
        + " 'card_type': value_json.cardType | default(none), 'random_uid': value_json.random_uid | default(false),"
        + " 'initial': value_json.initial | default(false), 'present_ms': value_json.present_ms | default(none),"
        + " 'trust': value_json.trust.verdict if value_json.trust is defined else none,"
        + " 'trust_reason': value_json.trust.reason | default(none) if value_json.trust is defined else none,"
        + " 'signature': value_json.trust.signature.verdict | default(none) if value_json.trust is defined and value_json.trust.signature is defined else none,"
        + " 'clone_probes': value_json.trust.clone_probes if value_json.trust is defined else none} | tojson }}"
        + "{% endif %}"

    func tagScanner(_ device: Device) -> TagScanner {
        TagScanner(
            topic: topics.topic(.scanned), valueTemplate: trustedOnly ? Self.trustedTagScannerTemplate : Self.tagScannerTemplate,
            device: device, origin: origin)
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
            valueTemplate: scannedTriggerTemplate, device: device, origin: origin)
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
