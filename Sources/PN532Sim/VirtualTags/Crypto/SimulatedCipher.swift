import CCrypto

/// The simulator's own block cipher calls: AES-128 in ECB (one block at a time), on which its CBC
/// and CMAC are built below from their definitions (NIST SP 800-38A §6.2 CBC; RFC 4493 §2.3–2.4 CMAC).
/// libcrypto gives the AES block function only; nothing here comes from NFCCore (the simulator is the
/// agent's second opinion, docs/simulator.md).
enum SimulatedCipher {
    static let block = 16

    /// AES-128 of one 16-byte block (encrypt, or decrypt), nil when libcrypto fails.
    static func aesBlock(_ key: [UInt8], _ input: [UInt8], decrypt: Bool = false) -> [UInt8]? {
        guard key.count == block else { return nil }
        return ecbBlock(EVP_aes_128_ecb(), key, input, size: block, decrypt: decrypt)
    }

    /// One `size`-byte block through libcrypto's ECB `cipher` (no padding), nil when it fails.
    static func ecbBlock(_ cipher: OpaquePointer?, _ key: [UInt8], _ input: [UInt8], size: Int, decrypt: Bool) -> [UInt8]? {
        guard input.count == size, let cipher, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, cipher, nil, key, nil, decrypt ? 0 : 1) == 1,
            EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else { return nil }
        var output = [UInt8](repeating: 0, count: 2 * size)
        var written: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { EVP_CipherUpdate(context, $0.baseAddress, &written, input, Int32(size)) }
        guard ok == 1, written == Int32(size) else { return nil }
        return Array(output.prefix(size))
    }

    static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { zip(a, b).map { $0 ^ $1 } }

    /// One block function: a block in, enciphered (or deciphered with `decrypt`), nil on failure.
    typealias BlockCipher = (_ input: [UInt8], _ decrypt: Bool) -> [UInt8]?

    /// CBC encryption from `iv` (SP 800-38A §6.2: C_i = E(P_i ⊕ C_{i-1})); `data` whole blocks of `size`.
    static func cbcEncrypt(size: Int, _ cipher: BlockCipher, iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        guard data.count % size == 0 else { return nil }
        var previous = iv
        var out: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: size) {
            guard let encrypted = cipher(xor(Array(data[start..<start + size]), previous), false) else { return nil }
            out += encrypted
            previous = encrypted
        }
        return out
    }

    /// CBC decryption from `iv` (P_i = D(C_i) ⊕ C_{i-1}).
    static func cbcDecrypt(size: Int, _ cipher: BlockCipher, iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        guard data.count % size == 0 else { return nil }
        var previous = iv
        var out: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: size) {
            let encrypted = Array(data[start..<start + size])
            guard let plain = cipher(encrypted, true) else { return nil }
            out += xor(plain, previous)
            previous = encrypted
        }
        return out
    }

    /// The CMAC subkey step (RFC 4493 §2.3; SP 800-38B §6.1): shift left one bit, XOR `constant` (87h
    /// for 128-bit blocks, 1Bh for 64-bit ones) into the last byte when the top bit fell off.
    static func shifted(_ value: [UInt8], constant: UInt8 = 0x87) -> [UInt8] {
        var out = value.enumerated().map { index, byte in
            byte << 1 | (index + 1 < value.count ? value[index + 1] >> 7 : 0)
        }
        if value[0] >= 0x80 { out[out.count - 1] ^= constant }
        return out
    }

    /// CMAC (RFC 4493 §2.4; SP 800-38B §6.2) over blocks of `size`, its CBC started from `iv` (zero for
    /// the standards; DESFire EV1 chains its CMACs through the session IV, MF3ICD(Q)81 §9.1.2).
    static func cmac(size: Int, constant: UInt8, _ cipher: BlockCipher, _ message: [UInt8], iv: [UInt8]) -> [UInt8]? {
        guard let l = cipher([UInt8](repeating: 0, count: size), false) else { return nil }
        let k1 = shifted(l, constant: constant)
        let k2 = shifted(k1, constant: constant)
        let blocks = max(1, (message.count + size - 1) / size)
        let complete = !message.isEmpty && message.count % size == 0
        var last = Array(message[((blocks - 1) * size)...])
        if !complete { last += [0x80] + [UInt8](repeating: 0, count: size - last.count - 1) }
        let prepared = Array(message[..<((blocks - 1) * size)]) + xor(last, complete ? k1 : k2)
        guard let chain = cbcEncrypt(size: size, cipher, iv: iv, prepared) else { return nil }
        return Array(chain.suffix(size))
    }

    /// AES-CBC encryption from `iv`.
    static func cbcEncrypt(_ key: [UInt8], iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        cbcEncrypt(size: block, { aesBlock(key, $0, decrypt: $1) }, iv: iv, data)
    }

    /// AES-CBC decryption from `iv`.
    static func cbcDecrypt(_ key: [UInt8], iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        cbcDecrypt(size: block, { aesBlock(key, $0, decrypt: $1) }, iv: iv, data)
    }

    /// AES-CMAC (RFC 4493 §2.4) from `iv`.
    static func cmac(_ key: [UInt8], _ message: [UInt8], iv: [UInt8] = [UInt8](repeating: 0, count: 16)) -> [UInt8]? {
        cmac(size: block, constant: 0x87, { aesBlock(key, $0, decrypt: $1) }, message, iv: iv)
    }
}
