/// The DESFire keys a dump may authenticate with (the agent's `auth.keys_file`, kind `desfire`): per
/// application and key number, with their names. The name is what facts and events show; the key
/// bytes (``SecretBytes``) never leave the authentication step.
public struct DESFireKeys: FamilyDumpOption {
    /// No keys: a dump reads only the free files.
    public static let standard = DESFireKeys()

    /// The keys, in the order the file lists them.
    public var keys: [DESFireKey]

    /// The given keys.
    public init(_ keys: [DESFireKey] = []) {
        self.keys = keys
    }

    /// The keys for application `aid` (3 bytes, as the card lists it), in file order.
    public func keys(forApplication aid: [UInt8]) -> [DESFireKey] {
        keys.filter { $0.application == aid }
    }
}

/// One DESFire key: which application and key number it opens, its cipher and bytes, and its optional
/// AN10922 diversification.
public struct DESFireKey: Sendable, Hashable {
    /// The key ciphers of DESFire EV1/EV2/EV3 (MIFARE DESFire EV1 datasheet §9.5.1 "Key settings":
    /// DES/2K3DES, 3K3DES, AES-128), each with its key length.
    public enum Cipher: String, Sendable, Hashable, CaseIterable {
        /// AES-128: AuthenticateAES (AAh) or AuthenticateEV2First (71h).
        case aes
        /// 2-key triple DES (16 bytes; a single-DES key is K1 = K2): AuthenticateISO (1Ah) or legacy (0Ah).
        case tdes2k = "2k3des"
        /// 3-key triple DES (24 bytes): AuthenticateISO (1Ah).
        case tdes3k = "3k3des"

        /// Bytes in a key of this cipher.
        public var keyLength: Int {
            switch self {
            case .aes, .tdes2k: 16
            case .tdes3k: 24
            }
        }
    }

    /// AN10922 key diversification: the card key is derived from this master key, the card's UID, the
    /// application's AID and a system identifier (AN10922 §2.2 "AES-128 key diversification").
    public struct Diversification: Sendable, Hashable {
        /// The system identifier (up to 21 bytes: the diversification input M is at most 31 bytes, §2.2).
        public var systemIdentifier: [UInt8]

        public init(systemIdentifier: [UInt8]) {
            self.systemIdentifier = systemIdentifier
        }
    }

    /// The key's name in the keys file: what facts and events show.
    public var name: String
    /// The application: its AID (3 bytes, least significant byte first as GetApplicationIDs lists it),
    /// or for a DESFire Light / NTAG 424 DNA the DF name the dump keys it by.
    public var application: [UInt8]
    /// The key number in the application (0–13).
    public var keyNumber: UInt8
    /// The cipher.
    public var cipher: Cipher
    /// The key bytes (``Cipher/keyLength`` of them).
    public var key: SecretBytes
    /// Diversification, when the card holds a diversified key.
    public var diversification: Diversification?

    public init(name: String, application: [UInt8], keyNumber: UInt8, cipher: Cipher, key: SecretBytes,
                diversification: Diversification? = nil) {
        self.name = name
        self.application = application
        self.keyNumber = keyNumber
        self.cipher = cipher
        self.key = key
        self.diversification = diversification
    }
}

extension FamilyDumpOptions {
    /// The keys a DESFire dump authenticates with (default none).
    public var desfireKeys: DESFireKeys {
        get { self[DESFireKeys.self] }
        set { self[DESFireKeys.self] = newValue }
    }
}
