/// AN10922 "Symmetric key diversifications" §2.2, AES-128 key diversification: the card's key is
/// a CMAC under the master key K of D = 01h ‖ M, M the diversification input (1–31 bytes; §2.2.1's
/// example: UID ‖ AID ‖ system identifier). D is ALWAYS two blocks: padded with 80 00… to 32 bytes
/// when shorter, its last block then XORed with K2, else with K1 (§2.2 steps 5–9). This differs from
/// RFC 4493's CMAC of D, which pads a D of 16 bytes or less to one block only.
public enum DESFireKeyDiversification {
    /// The diversification constant of AES-128 keys (AN10922 §2.2, step 3: "Div Constant1 = 01h").
    static let aes128Constant: UInt8 = 0x01
    /// The longest M (§2.2: "M … 1 up to 31 bytes").
    public static let maximumInput = 31

    /// The AN10922 §2.2 diversified AES-128 key of `masterKey` for the diversification input `m`.
    /// Throws ``NFCError/invalidArgument(_:)`` for a key that is not 16 bytes or an input that is empty
    /// or longer than 31 bytes.
    public static func aes128(masterKey: [UInt8], input m: [UInt8]) throws(NFCError) -> [UInt8] {
        guard masterKey.count == AES.blockSize else { throw .invalidArgument("An AES-128 master key is 16 bytes, not \(masterKey.count)") }
        guard (1...maximumInput).contains(m.count) else {
            throw .invalidArgument("AN10922 diversification input is 1-31 bytes, not \(m.count)")
        }
        let zero = [UInt8](repeating: 0, count: AES.blockSize)
        let k1 = AES.doubled(try AES.cbc(encrypt: true, key: masterKey, data: zero))
        let k2 = AES.doubled(k1)
        var d = [aes128Constant] + m
        let padded = d.count < 2 * AES.blockSize
        if padded { d += [0x80] + [UInt8](repeating: 0, count: 2 * AES.blockSize - d.count - 1) }
        let subkey = padded ? k2 : k1
        for index in 0..<AES.blockSize { d[AES.blockSize + index] ^= subkey[index] }
        return Array(try AES.cbc(encrypt: true, key: masterKey, data: d).suffix(AES.blockSize))
    }

    /// M for a DESFire application key (AN10922 §2.2.1): UID (7 bytes) ‖ AID (3 bytes, in the order
    /// the card lists it) ‖ system identifier.
    public static func input(uid: [UInt8], aid: [UInt8], systemIdentifier: [UInt8]) -> [UInt8] {
        uid + aid + systemIdentifier
    }
}
