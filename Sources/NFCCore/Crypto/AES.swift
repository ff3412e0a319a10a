/// AES-128 over OpenSSL libcrypto (``LibCrypto``): CBC without padding, and AES-CMAC (RFC 4493) built on it — the
/// ciphers of DESFire EV2/EV3/Light AuthenticateEV2First and its session keys (NXP AN12196 §3, AN12343).
public enum AES {
    /// The AES block size in bytes.
    public static let blockSize = 16

    /// Encrypts (`encrypt: true`) or decrypts `data` with the 16-byte `key` in CBC mode from `iv`.
    ///
    /// Throws ``NFCError/invalidArgument(_:)`` for a key or IV that is not 16 bytes or data that is not a
    /// multiple of 16 bytes; ``NFCError/cryptoFailure(_:)`` when libcrypto fails.
    public static func cbc(encrypt: Bool, key: [UInt8], iv: [UInt8] = [UInt8](repeating: 0, count: 16), data: [UInt8])
        throws(NFCError) -> [UInt8]
    {
        guard key.count == 16 else { throw NFCError.invalidArgument("An AES-128 key is 16 bytes, not \(key.count)") }
        guard iv.count == blockSize else { throw NFCError.invalidArgument("An AES IV is 16 bytes, not \(iv.count)") }
        guard data.count % blockSize == 0 else {
            throw NFCError.invalidArgument("AES data must be a multiple of 16 bytes, not \(data.count)")
        }
        guard !data.isEmpty else { return [] }
        let lib = try LibCrypto.load()
        guard let cipher = lib.EVP_aes_128_cbc(), let context = lib.EVP_CIPHER_CTX_new() else { throw OpenSSLError.failure("AES context", lib) }
        defer { lib.EVP_CIPHER_CTX_free(context) }
        guard lib.EVP_CipherInit_ex(context, cipher, nil, key, iv, encrypt ? 1 : 0) == 1, lib.EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else { throw OpenSSLError.failure("AES init", lib) }
        var output = [UInt8](repeating: 0, count: data.count + blockSize)
        var written: Int32 = 0
        let updated = output.withUnsafeMutableBufferPointer { buffer in
            lib.EVP_CipherUpdate(context, buffer.baseAddress, &written, data, Int32(data.count))
        }
        guard updated == 1 else { throw OpenSSLError.failure("AES update", lib) }
        return Array(output.prefix(Int(written)))
    }

    /// AES-CMAC of `message` with the 16-byte `key` (RFC 4493 §2.4): subkeys K1/K2 from L = AES(K, 0¹²⁸)
    /// (§2.3), the last block XORed with K1 when complete, else padded 80 00… and XORed with K2.
    ///
    /// `iv` is RFC 4493's zero block unless given: DESFire EV1 secure messaging chains its CMACs, each
    /// starting from the session IV the previous one left (MIFARE DESFire EV1 datasheet §9.1.2 / §9.4).
    public static func cmac(key: [UInt8], message: [UInt8], iv: [UInt8]? = nil) throws(NFCError) -> [UInt8] {
        try CMAC.compute(message: message, iv: iv, blockSize: blockSize, rb: 0x87) { iv, data throws(NFCError) in
            try cbc(encrypt: true, key: key, iv: iv, data: data)
        }
    }

    /// The block shifted left by one bit, XORed with Rb = 87h when the top bit was set (RFC 4493 §2.3).
    static func doubled(_ block: [UInt8]) -> [UInt8] { CMAC.doubled(block, rb: 0x87) }
}
