import FoundationEssentials
import Glibc
import MQTTClient
import NFCCore

/// One configuration key: its dotted path and how a YAML value is applied to the configuration.
struct ConfigurationKey: Sendable {
    /// Dotted path, e.g. `mqtt.protocol`.
    let path: String
    /// Reads the value and stores it.
    let apply: @Sendable (inout AgentConfiguration, ConfigurationValue) throws(ConfigurationError) -> Void
}

/// Every key `config.yaml` accepts: the one table the loader walks and the tests compare with
/// `config/nfcbridge.example.yaml`. A key not in this table is an error, so typos never pass silently.
enum ConfigurationSchema {
    static let keys: [ConfigurationKey] = [
        ConfigurationKey(path: "id") { config, value throws(ConfigurationError) in
            let id = try value.nonEmptyString()
            guard AgentIdentifier.isValid(id) else {
                throw value.failure("must be 1-64 characters of a-z, 0-9, '_' and '-', got \(ConfigurationError.quoted(id))")
            }
            config.id = id
        },
        ConfigurationKey(path: "reader.device") { config, value throws(ConfigurationError) in
            config.reader.device = try value.nonEmptyString()
        },
        ConfigurationKey(path: "reader.backend") { config, value throws(ConfigurationError) in
            config.reader.backend = try value.choice(AgentConfiguration.ReaderBackend.self)
        },
        ConfigurationKey(path: "reader.pcsc_share_mode") { config, value throws(ConfigurationError) in
            config.reader.pcscShareMode = try value.choice(AgentConfiguration.PCSCShareMode.self)
        },
        ConfigurationKey(path: "reader.polling.modulations") { config, value throws(ConfigurationError) in
            config.reader.modulations = try value.choices(Modulation.self)
        },
        ConfigurationKey(path: "reader.polling.interval_ms") { config, value throws(ConfigurationError) in
            config.reader.intervalMilliseconds = try value.int(in: 10...10_000)
        },
        ConfigurationKey(path: "mqtt.url") { config, value throws(ConfigurationError) in
            let url = try value.nonEmptyString()
            do throws(MQTTClientError) {
                config.mqtt.usesTLS = try MQTTBrokerAddress(url: url).usesTLS
                config.mqtt.url = url
            } catch {
                throw value.failure(ConfigurationLoader.brokerURLProblem(error))
            }
        },
        ConfigurationKey(path: "mqtt.base_topic") { config, value throws(ConfigurationError) in
            config.mqtt.baseTopic = try value.topicPrefix()
        },
        ConfigurationKey(path: "mqtt.username") { config, value throws(ConfigurationError) in
            config.mqtt.username = try value.nonEmptyString()
        },
        ConfigurationKey(path: "mqtt.password_file") { config, value throws(ConfigurationError) in
            let path = try value.readableFile()
            let firstLine = try value.firstLine(ofFile: path)
            config.mqtt.passwordFile = path
            config.mqtt.password = Secret(firstLine)
        },
        ConfigurationKey(path: "mqtt.ca_file") { config, value throws(ConfigurationError) in
            config.mqtt.caFile = try value.readableFile()
        },
        ConfigurationKey(path: "mqtt.cert_file") { config, value throws(ConfigurationError) in
            config.mqtt.certFile = try value.readableFile()
        },
        ConfigurationKey(path: "mqtt.key_file") { config, value throws(ConfigurationError) in
            config.mqtt.keyFile = try value.readableFile()
        },
        ConfigurationKey(path: "mqtt.tls_insecure") { config, value throws(ConfigurationError) in
            config.mqtt.tlsInsecure = try value.bool()
        },
        ConfigurationKey(path: "mqtt.protocol") { config, value throws(ConfigurationError) in
            config.mqtt.protocolVersion = try value.choice(AgentConfiguration.MQTTProtocolVersion.self)
        },
        ConfigurationKey(path: "mqtt.stall_after_s") { config, value throws(ConfigurationError) in
            config.mqtt.stallAfterSeconds = try value.int(in: 1...3600)
        },
        ConfigurationKey(path: "mqtt.recycle_after_s") { config, value throws(ConfigurationError) in
            config.mqtt.recycleAfterSeconds = try value.int(in: 1...86_400)
        },
        ConfigurationKey(path: "mqtt.max_packet_size") { config, value throws(ConfigurationError) in
            // 1 KiB holds any error event; MQTT's largest packet is 268,435,455 bytes and its header.
            config.mqtt.maxPacketSize = try value.int(in: 1024...268_435_460)
        },
        ConfigurationKey(path: "presence.mode") { config, value throws(ConfigurationError) in
            config.presence.mode = try value.choice(AgentConfiguration.PresenceMode.self)
        },
        ConfigurationKey(path: "presence.removal_grace_ms") { config, value throws(ConfigurationError) in
            config.presence.removalGraceMilliseconds = try value.int(in: 0...60_000)
        },
        ConfigurationKey(path: "presence.rearm_ms") { config, value throws(ConfigurationError) in
            config.presence.rearmMilliseconds = try value.int(in: 100...86_400_000)
        },
        ConfigurationKey(path: "presence.min_interval_ms") { config, value throws(ConfigurationError) in
            config.presence.minIntervalMilliseconds = try value.int(in: 0...86_400_000)
        },
        ConfigurationKey(path: "dump.on_scan") { config, value throws(ConfigurationError) in
            config.dump.onScan = try value.bool()
        },
        ConfigurationKey(path: "dump.keys_file") { config, value throws(ConfigurationError) in
            let path = try value.readableFile()
            config.dump.keysFile = path
            config.dump.classicKeys = try ClassicKeysFile.read(path, key: value)
        },
        ConfigurationKey(path: "homeassistant.enabled") { config, value throws(ConfigurationError) in
            config.homeAssistant.enabled = try value.bool()
        },
        ConfigurationKey(path: "homeassistant.prefix") { config, value throws(ConfigurationError) in
            config.homeAssistant.prefix = try value.topicPrefix()
        },
        ConfigurationKey(path: "log.level") { config, value throws(ConfigurationError) in
            config.log.level = try value.choice(LogLevel.self)
        },
        ConfigurationKey(path: "health_interval_s") { config, value throws(ConfigurationError) in
            config.healthIntervalSeconds = try value.int(in: 5...86_400)
        },
        ConfigurationKey(path: "state_dir") { config, value throws(ConfigurationError) in
            config.stateDirectory = try value.nonEmptyString()
        },
        ConfigurationKey(path: "spool.max_events") { config, value throws(ConfigurationError) in
            config.spool.maxEvents = try value.int(in: 1...1_000_000)
        },
        ConfigurationKey(path: "spool.max_bytes") { config, value throws(ConfigurationError) in
            config.spool.maxBytes = try value.int(in: 65_536...1_073_741_824)
        },
        ConfigurationKey(path: "spool.max_age_s") { config, value throws(ConfigurationError) in
            config.spool.maxAgeSeconds = try value.int(in: 60...31_536_000)
        },
        ConfigurationKey(path: "commands.lock.enabled") { config, value throws(ConfigurationError) in
            config.commands.lockEnabled = try value.bool()
        },
        ConfigurationKey(path: "commands.require_signature") { config, value throws(ConfigurationError) in
            config.commands.requireSignature = try value.bool()
        },
        ConfigurationKey(path: "commands.signature_key_file") { config, value throws(ConfigurationError) in
            let path = try value.readableFile()
            let key = try value.firstLine(ofFile: path)
            guard key.utf8.count >= RequestSignature.minimumKeyBytes else {
                throw value.failure(
                    "the key in '\(path)' is \(key.utf8.count) bytes: at least \(RequestSignature.minimumKeyBytes) are needed "
                        + "(make one with `openssl rand -hex 32`)")
            }
            config.commands.signatureKeyFile = path
            config.commands.signatureKey = Secret(key)
        },
        ConfigurationKey(path: "commands.signature_window_s") { config, value throws(ConfigurationError) in
            config.commands.signatureWindowSeconds = try value.int(in: 10...3600)
        },
        ConfigurationKey(path: "commands.idempotency_window_s") { config, value throws(ConfigurationError) in
            config.commands.idempotencyWindowSeconds = try value.int(in: 60...2_592_000)
        },
    ]

    /// The keys by path.
    static let byPath: [String: ConfigurationKey] = Dictionary(keys.map { ($0.path, $0) }) { first, _ in first }

    /// True when `path` is a section (`mqtt`, `reader.polling`) holding keys.
    static func isSection(_ path: String) -> Bool {
        sections.contains(path)
    }

    /// Every section path (`mqtt`, `reader`, `reader.polling`, …).
    static let sections: Set<String> = Set(
        keys.flatMap { key -> [String] in
            let parts = key.path.split(separator: ".")
            return (1..<max(1, parts.count)).map { parts.prefix($0).joined(separator: ".") }
        })

    /// The known key or section closest to a misspelt `path`, if one is close enough to be a
    /// likely typo (a misspelt section, `presense:`, gets its section suggested).
    static func suggestion(for path: String) -> String? {
        Spelling.closest(to: path, among: keys.map(\.path) + sections.sorted())
    }
}
