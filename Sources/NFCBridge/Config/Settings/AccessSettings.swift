import NFCCore

extension AccessPolicy {
    /// The `access` keys (docs/access-control.md).
    static let keys: [ConfigurationKey] = [
        ConfigurationKey("access.signature", \.access.signature, .choice),
        ConfigurationKey("access.credential", \.access.credential, .credentialSource),
        ConfigurationKey("access.credential_hash", \.access.credentialHash, .bool),
        ConfigurationKey("access.probes.uid_structure", \.access.probeUIDStructure, .bool),
        ConfigurationKey("access.probes.version_signature_mismatch", \.access.probeVersionSignatureMismatch, .bool),
        ConfigurationKey("access.probes.gen1a_backdoor", \.access.probeGen1aBackdoor, .bool),
        ConfigurationKey("access.probes.gen4_gtu", \.access.probeGen4GTU, .bool),
        ConfigurationKey("access.originality_keys_file", \.access.originalityKeysFile, .originalityKeysFile),
    ]
}

extension ConfigurationRule where Value == CredentialSource {
    /// `access.credential`: `uid`, `ndef`, `ndef:<n>`, `desfire:<AID>:<file>:<offset>:<length>` or `sun`.
    static var credentialSource: Self {
        Self { value, _ throws(ConfigurationError) in
            switch CredentialSource.parse(try value.nonEmptyString()) {
            case let .success(source): return source
            case let .failure(failure): throw value.failure(failure.message)
            }
        }
    }
}

extension ConfigurationRule where Value == String {
    /// An ``OriginalityKeysFile``; sets ``AccessPolicy/extraKeys`` to its keys.
    static var originalityKeysFile: Self {
        Self { value, config throws(ConfigurationError) in
            let path = try value.readableFile()
            config.access.extraKeys = try OriginalityKeysFile.read(path, key: value)
            return path
        }
    }
}
