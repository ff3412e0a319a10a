/// The Type 2 secrets a dump may use (the agent's `auth.keys_file`, kinds `ultralight_c` and
/// `ntag_password`): Ultralight C 3DES keys and NTAG21x / Ultralight EV1 passwords with their expected
/// PACK. The names are what facts show; the bytes (``SecretBytes``) never leave the authentication.
public struct Type2Keys: FamilyDumpOption {
    /// None: protected pages stay unread.
    public static let standard = Type2Keys()

    /// Ultralight C keys, tried in file order.
    public var ultralightC: [UltralightCKey]
    /// NTAG21x / Ultralight EV1 passwords, tried in file order.
    public var passwords: [Type2Password]

    public init(ultralightC: [UltralightCKey] = [], passwords: [Type2Password] = []) {
        self.ultralightC = ultralightC
        self.passwords = passwords
    }
}

/// An Ultralight C key: the 16-byte 2-key 3DES cipher key (``UltralightCAuthentication``, MF0ICU2 §7.5.5).
public struct UltralightCKey: Sendable, Hashable {
    /// The name in the keys file.
    public var name: String
    /// The cipher key Key1 ‖ Key2 (16 bytes).
    public var key: SecretBytes

    public init(name: String, key: SecretBytes) {
        self.name = name
        self.key = key
    }
}

/// An NTAG21x / Ultralight EV1 password (PWD_AUTH 1Bh, NTAG213/215/216 §10.7) and the PACK the genuine
/// tag answers with: a tag that accepts the password but answers another PACK, or accepts any password,
/// is not the tag it claims to be.
public struct Type2Password: Sendable, Hashable {
    /// The name in the keys file.
    public var name: String
    /// PWD (4 bytes).
    public var password: SecretBytes
    /// The expected PACK (2 bytes).
    public var pack: [UInt8]

    public init(name: String, password: SecretBytes, pack: [UInt8]) {
        self.name = name
        self.password = password
        self.pack = pack
    }
}

extension FamilyDumpOptions {
    /// The Ultralight C keys and NTAG passwords a Type 2 dump uses (default none).
    public var type2Keys: Type2Keys {
        get { self[Type2Keys.self] }
        set { self[Type2Keys.self] = newValue }
    }
}
