/// Triple DES in CBC mode without padding, over OpenSSL libcrypto (the Ultralight C and DESFire
/// "legacy" ciphers).
///
/// Key lengths:
/// - 16 bytes: 2-key 3DES (K1‖K2, encrypt-decrypt-encrypt with K1, K2, K1) — MF0ICU2 §7.5.5.
/// - 24 bytes: 3-key 3DES (K1‖K2‖K3).
/// - 8 bytes: single DES. OpenSSL 3 keeps plain DES in the *legacy* provider, which is not loaded by
///   default; 3DES with K1 = K2 = K3 gives the same result and lives in the default provider.
///
/// The data must be a whole number of 8-byte blocks: protocols that use 3DES pad on their own.
public enum TripleDES {
    /// The DES block size in bytes.
    public static let blockSize = 8

    /// Encrypts (`encrypt: true`) or decrypts `data` with `key` in CBC mode starting from `iv`.
    ///
    /// Throws ``NFCError/invalidArgument(_:)`` for a key that is not 8, 16 or 24 bytes, an IV that is not
    /// 8 bytes, or data that is not a multiple of 8 bytes; ``NFCError/cryptoFailure(_:)`` when libcrypto fails.
    public static func cbc(encrypt: Bool, key: [UInt8], iv: [UInt8], data: [UInt8]) throws(NFCError) -> [UInt8] {
        let cipherKey: [UInt8]
        let cipher: OpaquePointer?
        let lib = try LibCrypto.load()
        switch key.count {
        case 8:
            cipherKey = key + key + key
            cipher = lib.EVP_des_ede3_cbc()
        case 16:
            cipherKey = key
            cipher = lib.EVP_des_ede_cbc()
        case 24:
            cipherKey = key
            cipher = lib.EVP_des_ede3_cbc()
        default:
            throw NFCError.invalidArgument("A 3DES key is 8, 16 or 24 bytes, not \(key.count)")
        }
        guard iv.count == blockSize else {
            throw NFCError.invalidArgument("A 3DES IV is \(blockSize) bytes, not \(iv.count)")
        }
        guard data.count % blockSize == 0 else {
            throw NFCError.invalidArgument("3DES data must be a multiple of \(blockSize) bytes, not \(data.count)")
        }
        guard !data.isEmpty else { return [] }
        guard let cipher, let context = lib.EVP_CIPHER_CTX_new() else {
            throw OpenSSLError.failure("3DES context", lib)
        }
        defer { lib.EVP_CIPHER_CTX_free(context) }

        guard lib.EVP_CipherInit_ex(context, cipher, nil, cipherKey, iv, encrypt ? 1 : 0) == 1,
            lib.EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else { throw OpenSSLError.failure("3DES init", lib) }

        var output = [UInt8](repeating: 0, count: data.count + blockSize)
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let updated = output.withUnsafeMutableBufferPointer { buffer in
            lib.EVP_CipherUpdate(context, buffer.baseAddress, &written, data, Int32(data.count))
        }
        guard updated == 1 else { throw OpenSSLError.failure("3DES update", lib) }
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            lib.EVP_CipherFinal_ex(context, buffer.baseAddress.map { $0 + Int(written) }, &finalWritten)
        }
        guard finished == 1 else { throw OpenSSLError.failure("3DES final", lib) }
        return Array(output.prefix(Int(written + finalWritten)))
    }
}
