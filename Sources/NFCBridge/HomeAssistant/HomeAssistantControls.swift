import NFCCore

/// The components that act from Home Assistant (docs/home-assistant.md, "Writing tags and running
/// jobs from Home Assistant"): each publishes a request on the agent's own command topics
/// (`request/write`, `request/job`, `request/feedback`), built by its `command_template` the way an
/// MQTT client would send it, so a refusal in Home Assistant is the same refusal as over MQTT; the
/// results come back from the responses (`response/<command>`), the retained `job` and `event/job`.
///
/// The values a request needs (the content to write, the job's template, first serial and count)
/// are `text` and `number` entities whose state Home Assistant keeps, retained, on
/// `<base>/<id>/ha/<name>` (``TopicMap/homeAssistantInput(_:)``); the agent never reads them. The
/// buttons' templates read them with `states()` by entity id, which `default_entity_id` fixes
/// (`text.nfcbridge_<id>_write_content`, ``inputEntityID(_:_:)``): Home Assistant 2026.4 and later
/// ignore the `object_id` that fixed it before (deprecated since 2025.10), which is still sent for
/// the older ones.
///
/// Request ids start `ha-` (`ha-write-…`, `ha-job-…`, `ha-signal-…`, then the press time in ms), so
/// the result sensors show only the answers to Home Assistant's own requests; a response to another
/// client leaves them as they were (`this.state`).
extension HomeAssistantDiscovery {
    /// The names of the retained input topics and of their entities' `object_id`s.
    enum Input: String, CaseIterable {
        case writeContent = "write_content"
        case jobTemplate = "job_template"
        case jobFirstSerial = "job_first_serial"
        case jobCount = "job_count"
    }

    /// The `object_id` of an entity, which fixes its entity id (`<component>.<object_id>`): the agent
    /// id with `-` as `_` (Home Assistant's slug of it: agent ids are `a-z 0-9 _ -`).
    func objectID(_ name: String) -> String {
        "nfcbridge_\(String(topics.id.map { $0 == "-" ? "_" : $0 }))_\(name)"
    }

    /// The entity id of an input (`text.nfcbridge_door1_write_content`).
    func inputEntityID(_ component: String, _ input: Input) -> String { "\(component).\(objectID(input.rawValue))" }

    /// Jinja for a fresh request id: `ha-<kind>-<milliseconds since the epoch>`.
    static func requestID(_ kind: String) -> String { "'ha-\(kind)-' ~ (now().timestamp() * 1000) | int" }

    /// Jinja for the records of `text` (a Jinja expression): one URI record when it is a URI (a scheme,
    /// `:`, no space: `https://…`, `tel:+49…`, `mailto:…`), else one Text record in English; none when
    /// the entity has no value yet (the agent answers `invalid_request`).
    static func records(of text: String) -> String {
        "([] if \(text) in ['', 'unknown', 'unavailable'] else [{'uri': \(text)}] if \(text) is match('[A-Za-z][A-Za-z0-9+.-]*:[^ ]+$')"
            + " else [{'text': \(text), 'lang': 'en'}])"
    }

    /// `request/write` of the Write content, waiting up to 60 s for a tag.
    var writeTemplate: String {
        let content = "states('\(inputEntityID("text", .writeContent))')"
        return "{{ {'id': \(Self.requestID("write")), 'records': \(Self.records(of: content)), 'wait_for_tag_s': 60} | tojson }}"
    }

    /// `request/job` `start` of a new job (id `ha-<date>-<time>`) from the Job template, first serial
    /// and count; steps and policy are the defaults (write + verify; blank tags only, retry).
    var jobStartTemplate: String {
        let template = "states('\(inputEntityID("text", .jobTemplate))')"
        let first = "states('\(inputEntityID("number", .jobFirstSerial))') | float(0) | int"
        let count = "states('\(inputEntityID("number", .jobCount))') | float(0) | int"
        return "{{ {'id': \(Self.requestID("job")), 'action': 'start', 'job': now().strftime('ha-%Y%m%d-%H%M%S'),"
            + " 'template': \(Self.records(of: template)), 'serials': {'start': \(first), 'count': \(count)}} | tojson }}"
    }

    /// `request/job` `action` (pause, resume, cancel) of the running job.
    func jobActionTemplate(_ action: String) -> String {
        "{{ {'id': \(Self.requestID("job")), 'action': '\(action)'} | tojson }}"
    }

    /// `request/feedback` with `light` and `beeps`.
    func signalTemplate(light: IndicatorSignal.Light, beeps: Int) -> String {
        "{{ {'id': \(Self.requestID("signal")), 'light': '\(light.rawValue)', 'beeps': \(beeps)} | tojson }}"
    }

    /// The state of a result sensor: `waiting`, `ok` or the error code of a response to one of Home
    /// Assistant's requests whose id starts with `prefix`; the state it had for any other response.
    static func resultTemplate(prefix: String) -> String {
        "{{ (value_json.error.code if value_json.status == 'error' else value_json.status)"
            + " if value_json.id is string and value_json.id.startswith('\(prefix)') else this.state }}"
    }

    /// The attributes of a result sensor: the request id, the tag and the error message; the ones
    /// it had for a response to another client.
    static func resultAttributesTemplate(prefix: String) -> String {
        "{% if value_json.id is string and value_json.id.startswith('\(prefix)') %}"
            + "{{ {'request': value_json.id, 'uid': value_json.data.uid | default(none), 'card_type': value_json.data.cardType | default(none),"
            + " 'message': value_json.error.message if value_json.error is defined else none, 'data': value_json.data} | tojson }}"
            + "{% else %}{{ {'request': this.attributes.request | default(none), 'uid': this.attributes.uid | default(none),"
            + " 'card_type': this.attributes.card_type | default(none), 'message': this.attributes.message | default(none),"
            + " 'data': this.attributes.data | default(none)} | tojson }}{% endif %}"
    }

    /// A text or number entity whose value Home Assistant keeps, retained, on its input topic.
    func input(_ device: Device, _ input: Input, component: String, name: String, icon: String) -> Control {
        let topic = topics.homeAssistantInput(input.rawValue)
        return Control(
            name: name, uniqueID: "\(topics.id)_\(input.rawValue)", objectID: objectID(input.rawValue),
            defaultEntityID: inputEntityID(component, input), commandTopic: topic,
            stateTopic: topic, retain: true, icon: icon, device: device, origin: origin, availability: agentAvailability)
    }

    /// A button that publishes `template`'s request on `request/<command>`.
    func button(_ device: Device, objectID name: String, _ label: String, command: CommandName, template: String, icon: String) -> Control {
        Control(
            name: label, uniqueID: "\(topics.id)_\(name)", objectID: objectID(name), defaultEntityID: "button.\(objectID(name))",
            commandTopic: topics.request(command.rawValue),
            commandTemplate: template, icon: icon, device: device, origin: origin, availability: agentAvailability)
    }

    func writeContentText(_ device: Device) -> Control {
        var text = input(device, .writeContent, component: "text", name: "Write content", icon: "mdi:form-textbox")
        text.mode = "text"
        return text
    }

    func writeTagButton(_ device: Device) -> Control {
        button(device, objectID: "write_tag", "Write tag", command: .write, template: writeTemplate, icon: "mdi:nfc-tap")
    }

    /// The answer to the last Write tag: `waiting`, `ok` or the error code.
    func writeResultSensor(_ device: Device) -> Entity {
        Entity(
            name: "Write result", uniqueID: "\(topics.id)_write_result", stateTopic: topics.response(CommandName.write.rawValue),
            valueTemplate: Self.resultTemplate(prefix: "ha-write-"), jsonAttributesTopic: topics.response(CommandName.write.rawValue),
            jsonAttributesTemplate: Self.resultAttributesTemplate(prefix: "ha-write-"), icon: "mdi:nfc-search-variant",
            device: device, origin: origin, availability: agentAvailability)
    }

    /// The answer to the last job or signal button: `ok` or the error code (`busy`, `invalid_request`, …).
    func commandResultSensor(_ device: Device) -> Entity {
        Entity(
            name: "Command result", uniqueID: "\(topics.id)_command_result", stateTopic: topics.response("+"),
            valueTemplate: Self.resultTemplate(prefix: "ha-"), jsonAttributesTopic: topics.response("+"),
            jsonAttributesTemplate: Self.resultAttributesTemplate(prefix: "ha-"), icon: "mdi:message-reply-text",
            device: device, origin: origin, availability: agentAvailability)
    }

    func jobTemplateText(_ device: Device) -> Control {
        var text = input(device, .jobTemplate, component: "text", name: "Job template", icon: "mdi:code-braces")
        text.mode = "text"
        return text
    }

    func jobFirstSerialNumber(_ device: Device) -> Control {
        var number = input(device, .jobFirstSerial, component: "number", name: "Job first serial", icon: "mdi:numeric")
        (number.min, number.max, number.step, number.mode) = (0, Self.largestFirstSerial, 1, "box")
        return number
    }

    func jobCountNumber(_ device: Device) -> Control {
        var number = input(device, .jobCount, component: "number", name: "Job count", icon: "mdi:counter")
        (number.min, number.max, number.step, number.mode) = (1, SerialSource.maximumCount, 1, "box")
        return number
    }

    /// Home Assistant keeps a number as a float: above 2^53 it would not hold every whole number.
    static let largestFirstSerial = 999_999_999_999

    func jobStartButton(_ device: Device) -> Control {
        button(device, objectID: "job_start", "Start job", command: .job, template: jobStartTemplate, icon: "mdi:play")
    }

    func jobActionButton(_ device: Device, _ action: String, _ label: String, icon: String) -> Control {
        button(device, objectID: "job_\(action)", label, command: .job, template: jobActionTemplate(action), icon: icon)
    }

    /// A feedback button: `signal_ok` (green, one beep), `signal_denied` (red, two beeps).
    func signalButton(_ device: Device, _ name: String, _ label: String, _ signal: IndicatorSignal) -> Control {
        let template = signalTemplate(light: signal.light, beeps: signal.beeps)
        let icon = signal.light == .red ? "mdi:close-circle" : "mdi:check-circle"
        return button(device, objectID: name, label, command: .feedback, template: template, icon: icon)
    }
}
