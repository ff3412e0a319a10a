extension TripleDES {
    /// CMAC over 3DES (NIST SP 800-38B §6.2 with the 64-bit block: Rb = 1Bh), its CBC started from `iv`
    /// (zero unless given): DESFire EV1 secure messaging after AuthenticateISO (MIFARE DESFire EV1
    /// MF3ICD(Q)81 §9.1.2), where the CMACs chain through the IV.
    public static func cmac(key: [UInt8], message: [UInt8], iv: [UInt8]? = nil) throws(NFCError) -> [UInt8] {
        try CMAC.compute(message: message, iv: iv, blockSize: blockSize, rb: 0x1B) { iv, data throws(NFCError) in
            try cbc(encrypt: true, key: key, iv: iv, data: data)
        }
    }
}

/// CMAC (NIST SP 800-38B §6.2; RFC 4493 for AES) over any block cipher's CBC encryption.
enum CMAC {
    /// The CMAC of `message`: subkeys K1/K2 from L = E(K, 0) (SP 800-38B §6.1), the last block XORed with
    /// K1 when complete, else padded 80 00… and XORed with K2; CBC from `iv` (zero unless given).
    /// `cbcEncrypt(iv, data)` is the cipher's CBC encryption under the key.
    static func compute(message: [UInt8], iv: [UInt8]?, blockSize: Int, rb: UInt8,
                        cbcEncrypt: ([UInt8], [UInt8]) throws(NFCError) -> [UInt8]) throws(NFCError) -> [UInt8] {
        let zero = [UInt8](repeating: 0, count: blockSize)
        let k1 = doubled(try cbcEncrypt(zero, zero), rb: rb)
        let k2 = doubled(k1, rb: rb)
        let complete = !message.isEmpty && message.count % blockSize == 0
        var padded = message
        if !complete {
            padded.append(0x80)
            padded += [UInt8](repeating: 0, count: (blockSize - padded.count % blockSize) % blockSize)
        }
        let subkey = complete ? k1 : k2
        for index in 0..<blockSize { padded[padded.count - blockSize + index] ^= subkey[index] }
        return Array(try cbcEncrypt(iv ?? zero, padded).suffix(blockSize))
    }

    /// The block shifted left by one bit, XORed with `rb` when the top bit was set (SP 800-38B §5.3).
    static func doubled(_ block: [UInt8], rb: UInt8) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: block.count)
        for index in 0..<block.count {
            out[index] = block[index] << 1 | (index + 1 < block.count ? block[index + 1] >> 7 : 0)
        }
        if block[0] & 0x80 != 0 { out[block.count - 1] ^= rb }
        return out
    }
}
