import NFCCore

extension AgentConfiguration {
    /// Authenticated reads: the keys file.
    package struct AuthSettings: Sendable, Equatable {
        /// The keys file (docs/keys.md): mode 0600 or stricter, owned by the agent's user.
        package var keysFile: String?
        /// The names and kinds of its keys, in file order: what `info` may show (never the keys).
        package var keyNames: [AuthKeyName] = []
        package init() {}

        /// The `auth` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("auth.keys_file", \.auth.keysFile, .authKeysFile),
        ]
    }
}

extension ConfigurationRule where Value == String {
    /// An ``AuthKeysFile``: its keys go into ``AgentConfiguration/DumpSettings/families`` (the families
    /// that read them find them there), its names into ``AgentConfiguration/AuthSettings/keyNames``.
    static var authKeysFile: Self {
        Self { value, config throws(ConfigurationError) in
            let path = try value.readableFile()
            let loaded = try AuthKeysFile.read(path, key: value, into: config.dump.families)
            config.dump.families = loaded.families
            config.auth.keyNames = loaded.names
            return path
        }
    }
}
