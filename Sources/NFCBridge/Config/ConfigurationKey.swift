/// One configuration key: one row of ``ConfigurationSchema``. A row holds the key's dotted path,
/// the rule that reads and checks its YAML value (``ConfigurationRule``), the field of
/// ``AgentConfiguration`` it sets (whose declaration, next to the row, holds the default) and how
/// `info` shows it. The loader, the did-you-mean, `info.config` (``PublicConfiguration``) and the
/// check of the example file all walk the rows: a new key is one row (docs/architecture.md,
/// "Configuration keys").
struct ConfigurationKey: Sendable {
    /// How `info.config` (and the start-up log line) shows a key.
    enum Publication: Sendable, Equatable {
        /// The value itself.
        case value
        /// A file holding a secret (the MQTT password, the signing key): its path, never its content.
        case secretFile
    }

    /// Dotted path, e.g. `mqtt.protocol`.
    let path: String
    /// How `info` shows the key.
    let publication: Publication
    /// Reads the value, checks it and stores it.
    let apply: @Sendable (inout AgentConfiguration, ConfigurationValue) throws(ConfigurationError) -> Void
    /// Writes the key's value in `config` as `key` of an `info.config` section.
    let publish:
        @Sendable (AgentConfiguration, inout KeyedEncodingContainer<ConfigurationPathKey>, ConfigurationPathKey) throws ->
            Void
    /// True when the field holds its default: what ``AgentConfiguration/init(id:)`` gives it.
    let isDefault: @Sendable (AgentConfiguration) -> Bool

    /// A key stored in `field`, read by `rule`.
    init<Value: Encodable & Equatable & Sendable>(
        _ path: String, _ field: WritableKeyPath<AgentConfiguration, Value> & Sendable, _ rule: ConfigurationRule<Value>,
        publication: Publication = .value
    ) {
        self.path = path
        self.publication = publication
        apply = { config, value throws(ConfigurationError) in config[keyPath: field] = try rule.read(value, &config) }
        publish = { config, container, key in try container.encode(config[keyPath: field], forKey: key) }
        isDefault = { $0[keyPath: field] == AgentConfiguration(id: $0.id)[keyPath: field] }
    }

    /// A key stored in an optional `field`: nil until the file sets it, shown as `null` in `info`.
    init<Value: Encodable & Equatable & Sendable>(
        _ path: String, _ field: WritableKeyPath<AgentConfiguration, Value?> & Sendable, _ rule: ConfigurationRule<Value>,
        publication: Publication = .value
    ) {
        self.path = path
        self.publication = publication
        apply = { config, value throws(ConfigurationError) in config[keyPath: field] = try rule.read(value, &config) }
        publish = { config, container, key in try container.encode(OrNull(config[keyPath: field]), forKey: key) }
        isDefault = { $0[keyPath: field] == AgentConfiguration(id: $0.id)[keyPath: field] }
    }

    /// A file whose first line is a secret: the path is stored in `file` (and shown in `info`), the
    /// line in `secret` (never shown, logged or published). `minimumBytes`: the shortest secret taken.
    static func secretFile(
        _ path: String, file: WritableKeyPath<AgentConfiguration, String?> & Sendable,
        secret: WritableKeyPath<AgentConfiguration, Secret?> & Sendable, minimumBytes: Int = 1
    ) -> ConfigurationKey {
        let rule = ConfigurationRule<String> { value, config throws(ConfigurationError) in
            let name = try value.readableFile()
            let line = try value.firstLine(ofFile: name)
            guard line.utf8.count >= minimumBytes else {
                throw value.failure(
                    "the key in '\(name)' is \(line.utf8.count) bytes: at least \(minimumBytes) are needed "
                        + "(make one with `openssl rand -hex 32`)")
            }
            config[keyPath: secret] = Secret(line)
            return name
        }
        return ConfigurationKey(path, file, rule, publication: .secretFile)
    }
}

/// A key of an `info.config` section: one level of a dotted path (`mqtt`, `base_topic`).
struct ConfigurationPathKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: some StringProtocol) { stringValue = String(name) }
    init(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { nil }
}
