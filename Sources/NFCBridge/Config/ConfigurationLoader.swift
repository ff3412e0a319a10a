import FoundationEssentials
import Glibc
import MQTTClient
import YAMLDocument

/// What the command line and the environment override in the file.
package struct ConfigurationOverrides: Sendable, Equatable {
    /// `--device C`: the reader connection string.
    package var device: String?
    /// `--broker URL`: the broker URL.
    package var broker: String?
    /// `--state-dir DIR`: the state directory, replaces `state_dir`.
    package var stateDirectory: String?
    /// The environment (`NFCBRIDGE_MQTT_PASSWORD`; `STATE_DIRECTORY`, which systemd sets for
    /// `StateDirectory=`, is the state directory when neither `--state-dir` nor `state_dir` is given).
    package var environment: [String: String]

    /// Creates overrides.
    package init(
        device: String? = nil, broker: String? = nil, stateDirectory: String? = nil, environment: [String: String] = [:]
    ) {
        self.device = device
        self.broker = broker
        self.stateDirectory = stateDirectory
        self.environment = environment
    }
}

/// Reads `config.yaml` into an ``AgentConfiguration``: the YAML is parsed with libyaml, every key
/// is checked against ``ConfigurationSchema``, files named by the configuration must exist, and
/// the overrides are applied. The first problem is thrown as ONE ``ConfigurationError`` naming the
/// key and the line, before anything connects.
package enum ConfigurationLoader {
    /// Where the configuration lives when `--config` is not given.
    package static let defaultPath = "/etc/nfcbridge/config.yaml"

    /// The environment variable that overrides `mqtt.password_file`.
    package static let passwordVariable = "NFCBRIDGE_MQTT_PASSWORD"

    /// The largest configuration file read (1 MiB; the example is 10 KB).
    package static let fileLimit = 1 << 20

    /// The variable systemd sets to the `StateDirectory=` path(s).
    package static let stateDirectoryVariable = "STATE_DIRECTORY"

    /// Loads the configuration. `path` nil means ``defaultPath`` if it exists, else every default;
    /// an explicit `path` that does not exist is an error.
    package static func load(
        path: String?, overrides: ConfigurationOverrides = ConfigurationOverrides(),
        hostName: String = ProcessInfo.processInfo.hostName
    ) throws(ConfigurationError) -> AgentConfiguration {
        let filePath = path ?? defaultPath
        var text = ""
        let data: [UInt8]?
        do throws(BoundedFile.Failure) {
            data = try BoundedFile.read(filePath, limit: fileLimit)
        } catch {
            throw ConfigurationError(source: filePath, detail: "the configuration file: \(error.message)")
        }
        if let data {
            guard let decoded = String(validating: data, as: UTF8.self) else {
                throw ConfigurationError(source: filePath, detail: "the configuration file is not UTF-8 text")
            }
            text = decoded
        } else if path != nil {
            throw ConfigurationError(code: .configNotFound, source: filePath, detail: "the configuration file does not exist")
        }
        var config = try parse(yaml: text, source: filePath, hostName: hostName)
        try apply(overrides, to: &config)
        return config
    }

    /// Parses configuration text (no overrides). `source` names the file in messages.
    package static func parse(yaml: String, source: String, hostName: String = ProcessInfo.processInfo.hostName)
        throws(ConfigurationError) -> AgentConfiguration
    {
        let root: YAMLNode
        do {
            root = try YAMLParser.parse(yaml)
        } catch {
            throw ConfigurationError(source: source, line: error.line, detail: "YAML syntax: \(error.message)")
        }
        var config = AgentConfiguration(id: "")
        var lines: [String: Int] = [:]
        if !root.isNull {
            try walk(root, prefix: "", into: &config, lines: &lines, source: source)
        }
        if config.id.isEmpty { config.id = AgentIdentifier.sanitize(hostName: hostName) }
        if let line = lines["state_dir"] { config.stateDirectorySource = "\(source):\(line): state_dir" }
        try checkTLS(config, lines: lines, source: source)
        try checkCredentials(config, line: lines["mqtt.password_file"], key: "mqtt.password_file", source: source)
        if config.commands.requireSignature, config.commands.signatureKey == nil {
            throw ConfigurationError(
                source: source, line: lines["commands.require_signature"], key: "commands.require_signature",
                detail: "signed requests need a key: set commands.signature_key_file as well")
        }
        if config.mqtt.tlsInsecure, !config.mqtt.usesTLS {
            throw ConfigurationError(
                source: source, line: lines["mqtt.tls_insecure"], key: "mqtt.tls_insecure",
                detail: "TLS settings need an mqtts:// broker URL (mqtt.url is \(config.mqtt.url))")
        }
        if config.mqtt.recycleAfterSeconds < config.mqtt.stallAfterSeconds {
            throw ConfigurationError(
                source: source, line: lines["mqtt.recycle_after_s"] ?? lines["mqtt.stall_after_s"],
                key: lines["mqtt.recycle_after_s"] != nil ? "mqtt.recycle_after_s" : "mqtt.stall_after_s",
                detail: "mqtt.recycle_after_s (\(config.mqtt.recycleAfterSeconds)) must not be shorter than mqtt.stall_after_s (\(config.mqtt.stallAfterSeconds))")
        }
        return config
    }

    /// Applies the command line and the environment.
    package static func apply(_ overrides: ConfigurationOverrides, to config: inout AgentConfiguration)
        throws(ConfigurationError)
    {
        if let device = overrides.device {
            guard !device.isEmpty else { throw ConfigurationError(source: "--device", detail: "must not be empty") }
            config.reader.device = device
        }
        if let broker = overrides.broker {
            do throws(MQTTClientError) {
                config.mqtt.usesTLS = try MQTTBrokerAddress(url: broker).usesTLS
                config.mqtt.url = broker
            } catch {
                throw ConfigurationError(source: "--broker", detail: brokerURLProblem(error))
            }
            try checkTLS(config, lines: [:], source: "--broker")
        }
        if let directory = overrides.stateDirectory {
            guard !directory.isEmpty else { throw ConfigurationError(source: "--state-dir", detail: "must not be empty") }
            config.stateDirectory = directory
            config.stateDirectorySource = "--state-dir"
        } else if config.stateDirectorySource == nil,
            let directory = overrides.environment[stateDirectoryVariable]?.split(separator: ":").first
        {
            // systemd joins several StateDirectory= paths with ':'; the first is ours.
            config.stateDirectory = String(directory)
            config.stateDirectorySource = stateDirectoryVariable
        }
        if let password = overrides.environment[passwordVariable] {
            guard !password.isEmpty else {
                throw ConfigurationError(source: passwordVariable, detail: "is set but empty")
            }
            config.mqtt.password = Secret(password)
        }
    }

    /// A password needs a user name (MQTT 3.1.1 §3.1.2.9): found here, as `invalid_config` naming
    /// the key, rather than by the MQTT client when it is created.
    /// Only `mqtt.password_file` is checked here; `NFCBRIDGE_MQTT_PASSWORD` alone is left to the MQTT
    /// client, which refuses it with its own `invalid_configuration`.
    private static func checkCredentials(_ config: AgentConfiguration, line: Int?, key: String?, source: String)
        throws(ConfigurationError)
    {
        guard config.mqtt.username == nil, config.mqtt.passwordFile != nil else { return }
        throw ConfigurationError(
            source: source, line: line, key: key, detail: "a password needs a user name: set mqtt.username as well")
    }

    /// Why a broker URL was refused, without echoing the URL (it may hold credentials).
    static func brokerURLProblem(_ error: MQTTClientError) -> String {
        if case let .invalidURL(_, reason) = error {
            return "not a broker URL (mqtt://host[:port] or mqtts://host[:port]): \(reason)"
        }
        return error.message
    }

    private static func walk(
        _ node: YAMLNode, prefix: String, into config: inout AgentConfiguration, lines: inout [String: Int],
        source: String
    ) throws(ConfigurationError) {
        guard case let .mapping(entries, _) = node else {
            throw ConfigurationError(
                source: source, line: node.line, key: prefix.isEmpty ? nil : prefix,
                detail: "expected a mapping of keys, found \(node.kindDescription)")
        }
        for entry in entries {
            let path = prefix.isEmpty ? entry.key : "\(prefix).\(entry.key)"
            if let key = ConfigurationSchema.byPath[path] {
                if entry.value.isNull { continue }  // null = keep the default
                lines[path] = entry.line
                try key.apply(&config, ConfigurationValue(node: entry.value, key: path, source: source))
            } else if ConfigurationSchema.isSection(path) {
                if entry.value.isNull { continue }
                try walk(entry.value, prefix: path, into: &config, lines: &lines, source: source)
            } else {
                let hint = ConfigurationSchema.suggestion(for: path).map { " (did you mean '\($0)'?)" } ?? ""
                throw ConfigurationError(source: source, line: entry.line, key: path, detail: "unknown key\(hint)")
            }
        }
    }

    /// TLS files only make sense with TLS, and a client certificate needs its key.
    private static func checkTLS(_ config: AgentConfiguration, lines: [String: Int], source: String)
        throws(ConfigurationError)
    {
        let mqtt = config.mqtt
        if !mqtt.usesTLS {
            for (key, value) in [("mqtt.ca_file", mqtt.caFile), ("mqtt.cert_file", mqtt.certFile), ("mqtt.key_file", mqtt.keyFile)]
            where value != nil {
                throw ConfigurationError(
                    source: source, line: lines[key], key: key,
                    detail: "TLS files need an mqtts:// broker URL (mqtt.url is \(mqtt.url))")
            }
        }
        if (mqtt.certFile == nil) != (mqtt.keyFile == nil) {
            let key = mqtt.certFile == nil ? "mqtt.key_file" : "mqtt.cert_file"
            throw ConfigurationError(
                source: source, line: lines[key], key: key,
                detail: "a client certificate needs both mqtt.cert_file and mqtt.key_file")
        }
    }
}
