/// The configuration as published in `info` and logged at start: every setting, NO secrets (the
/// password never appears; file paths do).
extension AgentConfiguration {
    /// The configuration without secrets, as a payload model (keys as in the configuration file).
    package var publicConfiguration: PublicConfiguration { PublicConfiguration(self) }
}

/// `info.config`: every key of ``ConfigurationSchema`` with its value in a configuration, nested as
/// in the configuration file (docs/mqtt.md, "info"). A secret file's row shows its path, never the
/// secret; a key not set is `null`.
package struct PublicConfiguration: Encodable, Sendable {
    /// The configuration shown.
    let configuration: AgentConfiguration

    /// The public part of `config`.
    package init(_ config: AgentConfiguration) {
        configuration = config
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigurationPathKey.self)
        try encode(ConfigurationSchema.keys.map { ($0.path.split(separator: ".")[...], $0) }, into: &container)
    }

    /// Writes `rows` (each with the rest of its path) into `container`: a one-level path is a value,
    /// a longer one goes into the section named by its first level.
    private func encode(
        _ rows: [(path: ArraySlice<Substring>, key: ConfigurationKey)],
        into container: inout KeyedEncodingContainer<ConfigurationPathKey>
    ) throws {
        var sections: [(name: Substring, rows: [(path: ArraySlice<Substring>, key: ConfigurationKey)])] = []
        for row in rows {
            guard let name = row.path.first else { continue }
            if row.path.count == 1 {
                try row.key.publish(configuration, &container, ConfigurationPathKey(name))
            } else if let index = sections.firstIndex(where: { $0.name == name }) {
                sections[index].rows.append((row.path.dropFirst(), row.key))
            } else {
                sections.append((name, [(row.path.dropFirst(), row.key)]))
            }
        }
        for section in sections {
            var nested = container.nestedContainer(keyedBy: ConfigurationPathKey.self, forKey: ConfigurationPathKey(section.name))
            try encode(section.rows, into: &nested)
        }
    }
}
