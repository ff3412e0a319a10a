import CCrypto

/// The simulator's own block cipher calls: AES-128 in ECB (one block at a time), on which its CBC
/// and CMAC are built below from their definitions (NIST SP 800-38A §6.2 CBC; RFC 4493 §2.3–2.4 CMAC).
/// libcrypto gives the AES block function only; nothing here comes from NFCCore (the simulator is the
/// agent's second opinion, docs/simulator.md).
enum SimulatedCipher {
    static let block = 16

    /// AES-128 of one 16-byte block (encrypt, or decrypt), nil when libcrypto fails.
    static func aesBlock(_ key: [UInt8], _ input: [UInt8], decrypt: Bool = false) -> [UInt8]? {
        guard key.count == block, input.count == block, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, EVP_aes_128_ecb(), nil, key, nil, decrypt ? 0 : 1) == 1,
            EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else { return nil }
        var output = [UInt8](repeating: 0, count: 2 * block)
        var written: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { EVP_CipherUpdate(context, $0.baseAddress, &written, input, Int32(block)) }
        guard ok == 1, written == Int32(block) else { return nil }
        return Array(output.prefix(block))
    }

    static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { zip(a, b).map { $0 ^ $1 } }

    /// CBC encryption from `iv` (SP 800-38A §6.2: C_i = E(P_i ⊕ C_{i-1})); `data` whole blocks.
    static func cbcEncrypt(_ key: [UInt8], iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        guard data.count % block == 0 else { return nil }
        var previous = iv
        var out: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: block) {
            guard let cipher = aesBlock(key, xor(Array(data[start..<start + block]), previous)) else { return nil }
            out += cipher
            previous = cipher
        }
        return out
    }

    /// CBC decryption from `iv` (P_i = D(C_i) ⊕ C_{i-1}).
    static func cbcDecrypt(_ key: [UInt8], iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        guard data.count % block == 0 else { return nil }
        var previous = iv
        var out: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: block) {
            let cipher = Array(data[start..<start + block])
            guard let plain = aesBlock(key, cipher, decrypt: true) else { return nil }
            out += xor(plain, previous)
            previous = cipher
        }
        return out
    }

    /// RFC 4493 §2.3 subkey step: shift left one bit, XOR 87h into the last byte when the top bit fell off.
    static func shifted(_ value: [UInt8]) -> [UInt8] {
        var out = value.enumerated().map { index, byte in
            byte << 1 | (index + 1 < value.count ? value[index + 1] >> 7 : 0)
        }
        if value[0] >= 0x80 { out[out.count - 1] ^= 0x87 }
        return out
    }

    /// RFC 4493 §2.4 CMAC, its CBC started from `iv` (zero for RFC 4493; the session IV for DESFire
    /// EV1, MF3ICD(Q)81 §9.1.2, whose CMACs chain).
    static func cmac(_ key: [UInt8], _ message: [UInt8], iv: [UInt8] = [UInt8](repeating: 0, count: 16)) -> [UInt8]? {
        guard let l = aesBlock(key, [UInt8](repeating: 0, count: block)) else { return nil }
        let k1 = shifted(l)
        let k2 = shifted(k1)
        let blocks = max(1, (message.count + block - 1) / block)
        let complete = !message.isEmpty && message.count % block == 0
        var last = Array(message[((blocks - 1) * block)...])
        if !complete { last += [0x80] + [UInt8](repeating: 0, count: block - last.count - 1) }
        let prepared = Array(message[..<((blocks - 1) * block)]) + xor(last, complete ? k1 : k2)
        guard let chain = cbcEncrypt(key, iv: iv, prepared) else { return nil }
        return Array(chain.suffix(block))
    }
}
