import NFCCore

/// Everything the agent is configured with: `config.yaml` read by ``ConfigurationLoader``, then
/// the environment and command-line overrides. Every field has the default the example file
/// (`config/nfcbridge.example.yaml`) documents. Each section (`Settings/`) declares its fields
/// with their defaults and, beside them, its rows of ``ConfigurationSchema``: one row per key.
package struct AgentConfiguration: Sendable, Equatable {
    /// The agent id used in topics (`<base>/<id>/…`) and as the Home Assistant device id:
    /// `[a-z0-9_-]`, default the host name sanitised by ``AgentIdentifier``.
    package var id: String
    /// The reader and how it polls.
    package var reader = ReaderSettings()
    /// The broker connection.
    package var mqtt = MQTTSettings()
    /// When a tag counts as scanned / removed.
    package var presence = PresenceSettings()
    /// Dumps published on scan.
    package var dump = DumpSettings()
    /// Keys for authenticated reads.
    package var auth = AuthSettings()
    /// Home Assistant MQTT discovery.
    package var homeAssistant = HomeAssistantSettings()
    /// Log level.
    package var log = LogSettings()
    /// Seconds between two `<base>/<id>/health` publications.
    package var healthIntervalSeconds = 60
    /// Where the spool and the event sequence number live (systemd `StateDirectory=`).
    package var stateDirectory = "/var/lib/nfcbridge"
    /// Where ``stateDirectory`` was set, for messages: `config.yaml:12: state_dir`, `--state-dir` or
    /// `STATE_DIRECTORY` (systemd's `StateDirectory=`); nil for the default.
    package var stateDirectorySource: String?
    /// Bounds of the offline spool.
    package var spool = SpoolSettings()
    /// Which remote commands are allowed (used by the command router).
    package var commands = CommandSettings()
    /// The access checks at every tap (`access`, docs/access-control.md).
    package var access = AccessPolicy()
    /// Feedback to the person at the reader (`feedback`).
    package var feedback = FeedbackSettings()

    /// A configuration with every default and the given id.
    package init(id: String) {
        self.id = id
    }

    /// The keys at the top level of the file.
    static let keys: [ConfigurationKey] = [
        ConfigurationKey("id", \.id, .agentID),
        ConfigurationKey("health_interval_s", \.healthIntervalSeconds, .int(in: 5...86_400)),
        ConfigurationKey("state_dir", \.stateDirectory, .text),
    ]

    /// Every topic of this agent: the base topic, the id and the discovery prefix.
    package var topics: TopicMap {
        TopicMap(base: mqtt.baseTopic, id: id, homeAssistantPrefix: homeAssistant.prefix)
    }
}

extension ConfigurationRule where Value == String {
    /// An agent id ``AgentIdentifier`` takes.
    static var agentID: Self {
        Self { value, _ throws(ConfigurationError) in
            let id = try value.nonEmptyString()
            guard AgentIdentifier.isValid(id) else {
                throw value.failure("must be 1-64 characters of a-z, 0-9, '_' and '-', got \(ConfigurationError.quoted(id))")
            }
            return id
        }
    }
}

/// A secret string (the MQTT password) that never shows up in logs, descriptions or dumps.
package struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself: hand it to the MQTT client and nowhere else.
    package let value: String

    /// Wraps `value`.
    package init(_ value: String) {
        self.value = value
    }

    package var description: String { "<redacted>" }
    package var debugDescription: String { "<redacted>" }
}
