import NFCCore

extension AgentConfiguration {
    /// Dumps on scan.
    package struct DumpSettings: Sendable, Equatable {
        /// Publish `event/dump` after every `scanned`.
        package var onScan = false
        /// Key dictionary file for MIFARE Classic dumps.
        package var keysFile: String?
        /// The keys a Classic dump tries: those of ``keysFile`` first, then the well-known defaults.
        package var classicKeys: ClassicKeyDictionary = .standard
        package init() {}

        /// The `dump` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("dump.on_scan", \.dump.onScan, .bool),
            ConfigurationKey("dump.keys_file", \.dump.keysFile, .classicKeysFile),
        ]
    }
}

extension ConfigurationRule where Value == String {
    /// A ``ClassicKeysFile``; sets ``AgentConfiguration/DumpSettings/classicKeys`` to its keys.
    static var classicKeysFile: Self {
        Self { value, config throws(ConfigurationError) in
            let path = try value.readableFile()
            config.dump.classicKeys = try ClassicKeysFile.read(path, key: value)
            return path
        }
    }
}
