extension TripleDES {
    /// CMAC over 3DES (NIST SP 800-38B §6.2 with the 64-bit block: subkeys from L = E(K, 0⁶⁴), Rb =
    /// 1Bh), its CBC started from `iv` (zero unless given): DESFire EV1 secure messaging after
    /// AuthenticateISO (MIFARE DESFire EV1 MF3ICD(Q)81 §9.1.2), where the CMACs chain through the IV.
    public static func cmac(key: [UInt8], message: [UInt8], iv: [UInt8]? = nil) throws(NFCError) -> [UInt8] {
        let zero = [UInt8](repeating: 0, count: blockSize)
        let l = try cbc(encrypt: true, key: key, iv: zero, data: zero)
        let k1 = doubled64(l)
        let k2 = doubled64(k1)
        let complete = !message.isEmpty && message.count % blockSize == 0
        var padded = message
        if !complete {
            padded.append(0x80)
            padded += [UInt8](repeating: 0, count: (blockSize - padded.count % blockSize) % blockSize)
        }
        let subkey = complete ? k1 : k2
        for index in 0..<blockSize { padded[padded.count - blockSize + index] ^= subkey[index] }
        return Array(try cbc(encrypt: true, key: key, iv: iv ?? zero, data: padded).suffix(blockSize))
    }

    /// The 64-bit block shifted left by one bit, XORed with Rb = 1Bh when the top bit was set (SP 800-38B §5.3).
    static func doubled64(_ block: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: block.count)
        for index in 0..<block.count {
            out[index] = block[index] << 1 | (index + 1 < block.count ? block[index + 1] >> 7 : 0)
        }
        if block[0] & 0x80 != 0 { out[block.count - 1] ^= 0x1B }
        return out
    }
}
