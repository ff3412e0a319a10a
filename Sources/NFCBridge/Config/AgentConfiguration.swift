import NFCCore

/// Everything the agent is configured with: `config.yaml` read by ``ConfigurationLoader``, then
/// the environment and command-line overrides. Every field has the default the example file
/// (`config/nfcbridge.example.yaml`) documents. Each section (`Settings/`) declares its fields
/// with their defaults and, beside them, its rows of ``ConfigurationSchema``: one row per key.
public struct AgentConfiguration: Sendable, Equatable {
    /// The agent id used in topics (`<base>/<id>/…`) and as the Home Assistant device id:
    /// `[a-z0-9_-]`, default the host name sanitised by ``AgentIdentifier``.
    public var id: String
    /// The reader and how it polls.
    public var reader = ReaderSettings()
    /// The broker connection.
    public var mqtt = MQTTSettings()
    /// When a tag counts as scanned / removed.
    public var presence = PresenceSettings()
    /// Dumps published on scan.
    public var dump = DumpSettings()
    /// Home Assistant MQTT discovery.
    public var homeAssistant = HomeAssistantSettings()
    /// Log level.
    public var log = LogSettings()
    /// Seconds between two `<base>/<id>/health` publications.
    public var healthIntervalSeconds = 60
    /// Where the spool and the event sequence number live (systemd `StateDirectory=`).
    public var stateDirectory = "/var/lib/nfcbridge"
    /// Where ``stateDirectory`` was set, for messages: `config.yaml:12: state_dir`, `--state-dir` or
    /// `STATE_DIRECTORY` (systemd's `StateDirectory=`); nil for the default.
    public var stateDirectorySource: String?
    /// Bounds of the offline spool.
    public var spool = SpoolSettings()
    /// Which remote commands are allowed (used by the command router).
    public var commands = CommandSettings()

    /// A configuration with every default and the given id.
    public init(id: String) {
        self.id = id
    }

    /// The keys at the top level of the file.
    static let keys: [ConfigurationKey] = [
        ConfigurationKey("id", \.id, .agentID),
        ConfigurationKey("health_interval_s", \.healthIntervalSeconds, .int(in: 5...86_400)),
        ConfigurationKey("state_dir", \.stateDirectory, .text),
    ]

    /// Every topic of this agent: the base topic, the id and the discovery prefix.
    public var topics: TopicMap {
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
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself: hand it to the MQTT client and nowhere else.
    public let value: String

    /// Wraps `value`.
    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}
