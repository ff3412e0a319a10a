import CCrypto

/// The simulator's own AES-128 steps for the NTAG 424 DNA's Secure Dynamic Messaging, straight on
/// libcrypto (nothing from NFCCore's crypto): one block encrypted (ECB = CBC from a zero IV over one
/// block, which PICCData is, NT4H2421Gx §9.3.4.1) and AES-CMAC by OpenSSL's own `EVP_MAC` "CMAC" (NIST SP
/// 800-38B, the MAC the datasheet names, §9.3.8.1 and §9.3.9.1) — a second opinion on the agent's
/// hand-written RFC 4493 one. Nil when libcrypto fails or a key is not 16 bytes.
enum SimAES {
    /// E(key, block) for one 16-byte block.
    static func encryptBlock(key: [UInt8], _ block: [UInt8]) -> [UInt8]? {
        guard key.count == 16, block.count == 16, let cipher = EVP_aes_128_ecb(), let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, cipher, nil, key, nil) == 1, EVP_CIPHER_CTX_set_padding(context, 0) == 1 else { return nil }
        var out = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        let status = out.withUnsafeMutableBufferPointer { EVP_EncryptUpdate(context, $0.baseAddress, &written, block, 16) }
        guard status == 1, written == 16 else { return nil }
        return Array(out.prefix(16))
    }

    /// AES-CMAC of `message` under `key` (16 bytes).
    static func cmac(key: [UInt8], _ message: [UInt8]) -> [UInt8]? {
        guard key.count == 16, let mac = EVP_MAC_fetch(nil, "CMAC", nil) else { return nil }
        defer { EVP_MAC_free(mac) }
        guard let context = EVP_MAC_CTX_new(mac) else { return nil }
        defer { EVP_MAC_CTX_free(context) }
        var cipherName = Array("AES-128-CBC".utf8CString)
        let initialised = OSSL_MAC_PARAM_CIPHER.withCString { cipherKey in
            cipherName.withUnsafeMutableBufferPointer { name in
                var params = [OSSL_PARAM_construct_utf8_string(cipherKey, name.baseAddress, 0), OSSL_PARAM_construct_end()]
                return EVP_MAC_init(context, key, key.count, &params)
            }
        }
        guard initialised == 1, EVP_MAC_update(context, message, message.count) == 1 else { return nil }
        var out = [UInt8](repeating: 0, count: 16)
        var length = 0
        let finished = out.withUnsafeMutableBufferPointer { EVP_MAC_final(context, $0.baseAddress, &length, 16) }
        guard finished == 1, length == 16 else { return nil }
        return out
    }
}
