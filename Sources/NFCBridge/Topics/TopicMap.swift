/// The retained state topics under `<base>/<id>/`. All are published with QoS 1 and retained.
package enum StateTopic: String, Sendable, CaseIterable {
    /// `online` / `offline` (plain text, Home Assistant's default payloads); `offline` is the will.
    case status
    /// Agent version, reader, MQTT protocol, enabled commands, configuration without secrets.
    case info
    /// `{"state":"ok"|"absent"|"error","device":…,"since":…}`.
    case reader
    /// `{"present":true,"uid":…,"cardType":…,"since":…}` or `{"present":false}`.
    case tag
    /// Uptime, memory, reader, scans, MQTT and spool counters, every `health_interval_s`.
    case health
    /// The encode job's counts (`request/job`): job, state, total, done, failed, torn, remaining.
    case job
}

/// The event topics under `<base>/<id>/event/`. QoS 1, never retained, spooled while offline.
package enum EventKind: String, Sendable, CaseIterable, Codable {
    /// A tag was identified and its NDEF read (before any dump).
    case scanned
    /// A tag left the field.
    case removed
    /// The dump of a scanned tag (when `dump.on_scan`).
    case dump
    /// Something failed: reader, scan, dump, spool.
    case error
    /// The outcome of a `lock` command (the audit trail of an irreversible operation).
    case lock
    /// One tag of an encode job: job, n, serial, uid, result, ms (docs/tagging-station.md).
    case job
}

/// Every topic the agent uses, built from the base topic, the agent id and the Home Assistant
/// discovery prefix — the one place topic strings are made. It takes those three values, not the
/// configuration (``AgentConfiguration/topics`` makes the agent's map), so `Topics/` uses no other folder.
package struct TopicMap: Sendable, Equatable {
    /// The base topic (`nfc`).
    package let base: String
    /// The agent id.
    package let id: String
    /// The Home Assistant discovery prefix (`homeassistant`).
    package let homeAssistantPrefix: String

    /// Creates the map.
    package init(base: String, id: String, homeAssistantPrefix: String = "homeassistant") {
        self.base = base
        self.id = id
        self.homeAssistantPrefix = homeAssistantPrefix
    }

    /// `<base>/<id>`.
    package var root: String { "\(base)/\(id)" }

    /// `<base>/<id>/<state>`.
    package func topic(_ state: StateTopic) -> String { "\(root)/\(state.rawValue)" }

    /// `<base>/<id>/event/<kind>`.
    package func topic(_ event: EventKind) -> String { "\(root)/event/\(event.rawValue)" }

    /// `<base>/<id>/event/+`: every event topic (Home Assistant's event entity listens here).
    package var allEvents: String { "\(root)/event/+" }

    /// `<base>/<id>/request/<command>`: where clients send a command.
    package func request(_ command: String) -> String { "\(root)/request/\(command)" }

    /// `<base>/<id>/request/+`: the filter the agent subscribes to for commands.
    package var requestFilter: String { request("+") }

    /// `<base>/<id>/response/<command>`: where a command is answered (unless the request gave an
    /// MQTT 5 Response Topic).
    package func response(_ command: String) -> String { "\(root)/response/\(command)" }

    /// The `<command>` of a request topic `<base>/<id>/request/<command>` (one topic level, which
    /// `+` lets be empty: the router answers it `unknown_command`), or nil when `topic` is not a
    /// request topic of this agent.
    package func command(inRequestTopic topic: String) -> String? {
        let prefix = request("")
        guard topic.hasPrefix(prefix) else { return nil }
        let name = topic.dropFirst(prefix.count)
        guard !name.contains("/") else { return nil }
        return String(name)
    }

    /// `<base>/<id>/ha/<name>`: a value Home Assistant keeps for its requests (the content to write,
    /// a job's template, first serial and count), retained by Home Assistant; the agent never reads it.
    package func homeAssistantInput(_ name: String) -> String { "\(root)/ha/\(name)" }

    /// Home Assistant's birth / will topic: `<prefix>/status`.
    package var homeAssistantStatus: String { "\(homeAssistantPrefix)/status" }

    /// A discovery topic: `<prefix>/<component>/<objectID>/config`.
    package func discovery(component: String, objectID: String) -> String {
        "\(homeAssistantPrefix)/\(component)/\(objectID)/config"
    }

    /// Why `prefix` cannot start topics, or nil when it can: no `+`/`#` wildcards (a topic with a
    /// wildcard cannot be published), no NUL, no empty level, no leading or trailing slash.
    package static func problem(inPrefix prefix: String) -> String? {
        if prefix.isEmpty { return "must not be empty" }
        if prefix.contains("+") || prefix.contains("#") { return "must not contain the MQTT wildcards + or #" }
        if prefix.contains("\0") { return "must not contain NUL" }
        if prefix.hasPrefix("/") || prefix.hasSuffix("/") { return "must not start or end with '/'" }
        if prefix.contains("//") { return "must not contain an empty level ('//')" }
        if prefix.utf8.count > 200 { return "is too long (at most 200 bytes)" }
        return nil
    }
}
