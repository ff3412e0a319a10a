/// The keys a Classic dump tries, in order: the caller's keys first, then the well-known defaults.
public struct ClassicKeyDictionary: Sendable, Hashable {
    /// libnfc `nfc-mfclassic`'s built-in keys, in its order (utils/nfc-mfclassic.c `keys[]`): factory
    /// FFFFFFFFFFFF, NFC Forum public D3F7D3F7D3F7, MAD A0A1A2A3A4A5, B0B1B2B3B4B5, then common vendor keys.
    public static let defaultKeys: [[UInt8]] = [
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7],
        [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5],
        [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5],
        [0x4D, 0x3A, 0x99, 0xC3, 0x51, 0xDD],
        [0x1A, 0x98, 0x2C, 0x7E, 0x45, 0x9A],
        [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF],
        [0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
        [0xAB, 0xCD, 0xEF, 0x12, 0x34, 0x56],
    ]

    /// The defaults only.
    public static let standard = ClassicKeyDictionary(validatedKeys: defaultKeys)

    /// Keys in the order they are tried, without duplicates.
    public let keys: [[UInt8]]

    private init(validatedKeys: [[UInt8]]) {
        var seen = Set<[UInt8]>()
        keys = validatedKeys.filter { seen.insert($0).inserted }
    }

    /// `userKeys` first, then (unless `includeDefaults` is false) the defaults. Throws
    /// ``NFCError/invalidArgument(_:)`` for a key that is not 6 bytes.
    public init(userKeys: [[UInt8]], includeDefaults: Bool = true) throws(NFCError) {
        for key in userKeys where key.count != 6 {
            throw .invalidArgument("A MIFARE Classic key has 6 bytes, not \(key.count) (\(key.hexString))")
        }
        self.init(validatedKeys: userKeys + (includeDefaults ? Self.defaultKeys : []))
    }

    /// Keys given as hex text ("A0A1A2A3A4A5", spaces and colons allowed), then the defaults.
    public init(hexKeys: [String], includeDefaults: Bool = true) throws(NFCError) {
        var keys: [[UInt8]] = []
        for text in hexKeys {
            guard let key = [UInt8](hex: text) else { throw .invalidArgument("Not a hex key: \(text)") }
            keys.append(key)
        }
        try self.init(userKeys: keys, includeDefaults: includeDefaults)
    }
}
