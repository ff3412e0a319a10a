/// The configuration as published in `info` and logged at start: every setting, NO secrets (the
/// password never appears; file paths do).
extension AgentConfiguration {
    /// The configuration without secrets, as a payload model (keys as in the configuration file).
    public var publicConfiguration: PublicConfiguration { PublicConfiguration(self) }

    /// The configuration without secrets.
    public var publicJSON: JSONValue { (try? JSONValueEncoder().encode(publicConfiguration)) ?? .null }

    /// The remote commands enabled (published in `info`): all of them, `lock` only when enabled.
    public var enabledCommands: [String] {
        CommandName.allCases.filter { $0 != .lock || commands.lockEnabled }.map(\.rawValue)
    }
}

/// A value that is written as `null` when absent (the synthesised `Encodable` leaves a nil optional
/// out; `info.config` shows every key).
public struct OrNull<Wrapped: Encodable & Sendable>: Encodable, Sendable {
    /// The value, if any.
    public var value: Wrapped?

    /// Wraps `value`.
    public init(_ value: Wrapped?) { self.value = value }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

/// `info.config`: every setting of an ``AgentConfiguration`` except the password, with the keys
/// of the configuration file (docs/mqtt.md, "info").
public struct PublicConfiguration: Encodable, Sendable {
    struct Reader: Encodable, Sendable {
        struct Polling: Encodable, Sendable {
            var modulations: [String]
            var intervalMilliseconds: Int
            enum CodingKeys: String, CodingKey { case modulations, intervalMilliseconds = "interval_ms" }
        }
        var device: OrNull<String>
        var polling: Polling
    }
    struct MQTT: Encodable, Sendable {
        var url: String
        var baseTopic: String
        var username: OrNull<String>
        var passwordFile: OrNull<String>
        var caFile: OrNull<String>
        var certFile: OrNull<String>
        var keyFile: OrNull<String>
        var `protocol`: String
        var tlsInsecure: Bool
        var stallAfterSeconds: Int
        var recycleAfterSeconds: Int
        var maxPacketSize: OrNull<Int>
        enum CodingKeys: String, CodingKey {
            case url, baseTopic = "base_topic", username, passwordFile = "password_file", caFile = "ca_file",
                certFile = "cert_file", keyFile = "key_file", `protocol`, tlsInsecure = "tls_insecure"
            case stallAfterSeconds = "stall_after_s", recycleAfterSeconds = "recycle_after_s"
            case maxPacketSize = "max_packet_size"
        }
    }
    struct Presence: Encodable, Sendable {
        var mode: String
        var removalGraceMilliseconds: Int
        var rearmMilliseconds: Int
        var minIntervalMilliseconds: Int
        enum CodingKeys: String, CodingKey {
            case mode, removalGraceMilliseconds = "removal_grace_ms", rearmMilliseconds = "rearm_ms",
                minIntervalMilliseconds = "min_interval_ms"
        }
    }
    struct Dump: Encodable, Sendable {
        var onScan: Bool
        var keysFile: OrNull<String>
        enum CodingKeys: String, CodingKey { case onScan = "on_scan", keysFile = "keys_file" }
    }
    struct HomeAssistant: Encodable, Sendable {
        var enabled: Bool
        var prefix: String
    }
    struct Log: Encodable, Sendable {
        var level: String
    }
    struct Spool: Encodable, Sendable {
        var maxEvents: Int
        var maxBytes: Int
        var maxAgeSeconds: Int
        enum CodingKeys: String, CodingKey { case maxEvents = "max_events", maxBytes = "max_bytes", maxAgeSeconds = "max_age_s" }
    }
    struct Commands: Encodable, Sendable {
        struct Lock: Encodable, Sendable { var enabled: Bool }
        var lock: Lock
        var requireSignature: Bool
        /// The key file's path (the key itself is never shown).
        var signatureKeyFile: OrNull<String>
        var signatureWindowSeconds: Int
        var idempotencyWindowSeconds: Int
        enum CodingKeys: String, CodingKey {
            case lock, requireSignature = "require_signature", signatureKeyFile = "signature_key_file",
                signatureWindowSeconds = "signature_window_s", idempotencyWindowSeconds = "idempotency_window_s"
        }
    }

    var id: String
    var reader: Reader
    var mqtt: MQTT
    var presence: Presence
    var dump: Dump
    var homeassistant: HomeAssistant
    var log: Log
    var healthIntervalSeconds: Int
    var stateDirectory: String
    var spool: Spool
    var commands: Commands

    enum CodingKeys: String, CodingKey {
        case id, reader, mqtt, presence, dump, homeassistant, log, healthIntervalSeconds = "health_interval_s",
            stateDirectory = "state_dir", spool, commands
    }

    /// The public part of `config`.
    public init(_ config: AgentConfiguration) {
        id = config.id
        reader = Reader(
            device: OrNull(config.reader.device),
            polling: .init(
                modulations: config.reader.modulations.map(\.rawValue),
                intervalMilliseconds: config.reader.intervalMilliseconds))
        let mqtt = config.mqtt
        self.mqtt = MQTT(
            url: mqtt.url, baseTopic: mqtt.baseTopic, username: OrNull(mqtt.username),
            passwordFile: OrNull(mqtt.passwordFile), caFile: OrNull(mqtt.caFile), certFile: OrNull(mqtt.certFile),
            keyFile: OrNull(mqtt.keyFile), protocol: mqtt.protocolVersion.rawValue, tlsInsecure: mqtt.tlsInsecure,
            stallAfterSeconds: mqtt.stallAfterSeconds, recycleAfterSeconds: mqtt.recycleAfterSeconds,
            maxPacketSize: OrNull(mqtt.maxPacketSize))
        presence = Presence(
            mode: config.presence.mode.rawValue, removalGraceMilliseconds: config.presence.removalGraceMilliseconds,
            rearmMilliseconds: config.presence.rearmMilliseconds,
            minIntervalMilliseconds: config.presence.minIntervalMilliseconds)
        dump = Dump(onScan: config.dump.onScan, keysFile: OrNull(config.dump.keysFile))
        homeassistant = HomeAssistant(enabled: config.homeAssistant.enabled, prefix: config.homeAssistant.prefix)
        log = Log(level: config.log.level.rawValue)
        healthIntervalSeconds = config.healthIntervalSeconds
        stateDirectory = config.stateDirectory
        spool = Spool(maxEvents: config.spool.maxEvents, maxBytes: config.spool.maxBytes, maxAgeSeconds: config.spool.maxAgeSeconds)
        let commands = config.commands
        self.commands = Commands(
            lock: .init(enabled: commands.lockEnabled), requireSignature: commands.requireSignature,
            signatureKeyFile: OrNull(commands.signatureKeyFile), signatureWindowSeconds: commands.signatureWindowSeconds,
            idempotencyWindowSeconds: commands.idempotencyWindowSeconds)
    }
}
