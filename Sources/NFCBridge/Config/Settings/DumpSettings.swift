import NFCCore

extension AgentConfiguration {
    /// Dumps on scan.
    package struct DumpSettings: Sendable, Equatable {
        /// Publish `event/dump` after every `scanned`.
        package var onScan = false
        /// Key dictionary file for MIFARE Classic dumps.
        package var keysFile: String?
        /// The families' dump settings, built once from the configuration and handed to every dump
        /// (``NFCCoreScanner``, ``TagCommandExecutor``) without naming a family: MIFARE Classic's keys,
        /// those of ``keysFile`` first, then the well-known defaults.
        package var families = FamilyDumpOptions()
        package init() {}

        /// The `dump` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("dump.on_scan", \.dump.onScan, .bool),
            ConfigurationKey("dump.keys_file", \.dump.keysFile, .classicKeysFile),
        ]
    }
}

extension ConfigurationRule where Value == String {
    /// A ``ClassicKeysFile``; sets MIFARE Classic's setting in ``AgentConfiguration/DumpSettings/families``
    /// to its keys (the one place the agent names Classic's keys).
    static var classicKeysFile: Self {
        Self { value, config throws(ConfigurationError) in
            let path = try value.readableFile()
            config.dump.families.classicKeys = try ClassicKeysFile.read(path, key: value)
            return path
        }
    }
}
