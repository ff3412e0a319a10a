import NFCCore

/// One kind of entry a keys file (``AuthKeysFile``) holds: its `kind:` name, the fields it takes
/// besides `kind`, and how it reads them into the families' dump settings. A new kind is one row of
/// ``table`` (docs/keys.md lists them); the loader does not change.
package struct AuthKeyKind: Sendable {
    /// The `kind:` value.
    package let name: String
    /// The fields the entry may have besides `kind` (others are refused, with a did-you-mean).
    package let fields: [String]
    /// Reads the entry and adds its key to the settings.
    package let read: @Sendable (AuthKeyEntry, inout FamilyDumpOptions) throws(ConfigurationError) -> Void

    package init(name: String, fields: [String],
                 read: @escaping @Sendable (AuthKeyEntry, inout FamilyDumpOptions) throws(ConfigurationError) -> Void) {
        self.name = name
        self.fields = fields
        self.read = read
    }

    /// Every kind, one row each.
    package static let table: [AuthKeyKind] = [desfire, ultralightC, ntagPassword, ntag424SDM]

    /// A DESFire EV1/EV2/EV3/Light application key: `application` (the AID as NXP writes it, most
    /// significant byte first, as `access.credential` does: ``DESFireAIDNotation``; for a Light or NTAG
    /// 424 DNA the DF name), `key_number` (0-13, EV1 datasheet §9.5.1), `cipher` (aes, 2k3des, 3k3des), `key` (hex),
    /// optional `diversification: {system_identifier: hex}` (AN10922 §2.2, AES keys only).
    static let desfire = AuthKeyKind(
        name: "desfire", fields: ["application", "key_number", "cipher", "key", "diversification"]
    ) { entry, families throws(ConfigurationError) in
        // An AID (3 bytes), or the DF name a DESFire Light / NTAG 424 DNA application is keyed by (5-16).
        let application = DESFireAIDNotation.cardOrder(written: try entry.hex("application", lengths: 3...16))
        let keyNumber = try entry.int("key_number", in: 0...13)
        let cipher = try entry.choice("cipher", DESFireKey.Cipher.self)
        let key = try entry.secret("key", length: cipher.keyLength, what: "a DESFire \(cipher.rawValue) key")
        var diversification: DESFireKey.Diversification?
        if let nested = try entry.nested("diversification", allowed: ["system_identifier"]) {
            guard cipher == .aes else {
                throw entry.failure("AN10922 diversification is supported for aes keys only", field: "diversification", line: nested.line)
            }
            // AN10922 §2.2: M = UID (7) ‖ AID (3) ‖ system identifier, at most 31 bytes.
            diversification = .init(systemIdentifier: try nested.hex("system_identifier", lengths: 1...21))
        }
        families.desfireKeys.keys.append(
            DESFireKey(name: entry.name, application: application, keyNumber: UInt8(keyNumber), cipher: cipher, key: key,
                       diversification: diversification))
        // Where the key was given, for the AID-order warning (DESFireKeyOrderWarning): file and line only.
        families[DESFireKeyOrigins.self].lines[entry.name] = "\(entry.path):\(entry.node("application")?.line ?? entry.line)"
    }

    /// A MIFARE Ultralight C key: `key`, the 16-byte 2-key 3DES cipher key (MF0ICU2 §7.5.5; the
    /// factory key is 49454D4B41455242214E4143554F5946).
    static let ultralightC = AuthKeyKind(name: "ultralight_c", fields: ["key"]) { entry, families throws(ConfigurationError) in
        let key = try entry.secret("key", length: 16, what: "an Ultralight C key")
        families.type2Keys.ultralightC.append(UltralightCKey(name: entry.name, key: key))
    }

    /// An NTAG21x / Ultralight EV1 password: `password` (4 bytes hex, PWD_AUTH, NTAG213/215/216 §10.7)
    /// and `pack`, the 2 bytes the genuine tag answers.
    static let ntagPassword = AuthKeyKind(name: "ntag_password", fields: ["password", "pack"]) { entry, families throws(ConfigurationError) in
        let password = try entry.secret("password", length: 4, what: "an NTAG password")
        let pack = try entry.hex("pack", lengths: 2...2)
        families.type2Keys.passwords.append(Type2Password(name: entry.name, password: password, pack: pack))
    }

    /// NTAG 424 DNA SUN keys (NT4H2421Gx §9.3): `file_read_key`, the SDMFileRead AES-128 key the SDMMAC
    /// session key comes from, and `meta_read_key`, the SDMMetaRead key PICCData is encrypted with (left
    /// out for tags that mirror UID and counter in plain). Several entries are tried in file order.
    static let ntag424SDM = AuthKeyKind(name: "ntag424_sdm", fields: ["meta_read_key", "file_read_key"]) {
        entry, families throws(ConfigurationError) in
        let metaRead = try entry.node("meta_read_key") == nil
            ? nil : entry.secret("meta_read_key", length: 16, what: "an SDMMetaRead AES-128 key")
        let fileRead = try entry.secret("file_read_key", length: 16, what: "an SDMFileRead AES-128 key")
        families[NTAG424SUNOptions.self].keySets.append(SUNKeys(name: entry.name, metaRead: metaRead, fileRead: fileRead))
    }
}
