/// Every key `config.yaml` accepts: the one table the loader walks, `info.config` shows and the tests
/// compare with `config/nfcbridge.example.yaml`, assembled from the rows each section of
/// ``AgentConfiguration`` declares beside its fields (`Config/Settings/`). A key not in this table
/// is an error, so typos never pass silently.
enum ConfigurationSchema {
    static let keys: [ConfigurationKey] = [
        AgentConfiguration.keys, AgentConfiguration.ReaderSettings.keys, AgentConfiguration.MQTTSettings.keys,
        AgentConfiguration.PresenceSettings.keys, AgentConfiguration.DumpSettings.keys, AgentConfiguration.AuthSettings.keys,
        AgentConfiguration.HomeAssistantSettings.keys, AgentConfiguration.LogSettings.keys,
        AgentConfiguration.SpoolSettings.keys, AgentConfiguration.CommandSettings.keys, AccessPolicy.keys,
        AgentConfiguration.FeedbackSettings.keys,
    ].flatMap { $0 }

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
