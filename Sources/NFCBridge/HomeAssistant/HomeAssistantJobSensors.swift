/// The encode job as Home Assistant shows it: the retained `job` (its state and counts) and the
/// last tag's `event/job` (docs/home-assistant.md, "Writing tags and running jobs from Home
/// Assistant"). Before the first job the sensors are unknown (nothing is retained on `job` yet).
extension HomeAssistantDiscovery {
    /// The job's state, an `enum` sensor whose options are ``EncodeJobState/Phase``'s cases, with
    /// the counts and the torn tags as attributes.
    func jobStateSensor(_ device: Device) -> Entity {
        Entity(
            name: "Job", uniqueID: "\(topics.id)_job_state", stateTopic: topics.topic(StateTopic.job), valueTemplate: "{{ value_json.state }}",
            jsonAttributesTopic: topics.topic(StateTopic.job),
            jsonAttributesTemplate:
                "{{ {'job': value_json.job, 'total': value_json.total, 'done': value_json.done, 'failed': value_json.failed,"
                + " 'torn': value_json.torn, 'remaining': value_json.remaining, 'torn_tags': value_json.torn_tags | default([]),"
                + " 'error': value_json.error | default(none)} | tojson }}",
            deviceClass: "enum", icon: "mdi:format-list-numbered", device: device, origin: origin, availability: agentAvailability,
            options: EncodeJobState.Phase.allCases.map(\.rawValue))
    }

    /// One count of the retained `job` (`done`, `failed`, `remaining`).
    func jobCountSensor(_ device: Device, _ count: String, name: String, icon: String) -> Entity {
        Entity(
            name: name, uniqueID: "\(topics.id)_job_\(count)", stateTopic: topics.topic(StateTopic.job), valueTemplate: "{{ value_json.\(count) }}",
            unit: "tags", icon: icon, device: device, origin: origin, availability: agentAvailability)
    }

    /// The last tag of the job (`event/job`): its result (an `enum` of ``EncodeTagResult/Result``),
    /// with the serial, position, UID and error code as attributes.
    func jobTagSensor(_ device: Device) -> Entity {
        Entity(
            name: "Job last tag", uniqueID: "\(topics.id)_job_tag", stateTopic: topics.topic(EventKind.job),
            valueTemplate: "{{ value_json.result }}", jsonAttributesTopic: topics.topic(EventKind.job),
            jsonAttributesTemplate:
                "{{ {'job': value_json.job, 'n': value_json.n, 'serial': value_json.serial, 'uid': value_json.uid,"
                + " 'code': value_json.code, 'message': value_json.message, 'resumed': value_json.resumed, 'ms': value_json.ms} | tojson }}",
            deviceClass: "enum", icon: "mdi:tag-check", device: device, origin: origin, availability: agentAvailability,
            options: EncodeTagResult.Result.allCases.map(\.rawValue))
    }
}
