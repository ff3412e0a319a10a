import CCrypto

/// The simulator's own DES / triple-DES calls for the virtual DESFire's 3DES keys: one 8-byte block
/// at a time from libcrypto (2-key EDE for a 16-byte key, 3-key EDE for a 24-byte one; a DES key is a
/// 16-byte one with K1 = K2, NIST SP 800-67 §3.2), with CBC and the CMAC built here from their
/// definitions (SP 800-38A §6.2 CBC; SP 800-38B §6.1–6.2 CMAC, whose 64-bit constant R64 is 1Bh).
/// Nothing comes from NFCCore.
enum SimulatedTripleDES {
    static let block = 8

    /// One block enciphered (or deciphered); nil for a key that is not 16 or 24 bytes, or when libcrypto fails.
    static func block(_ key: [UInt8], _ input: [UInt8], decrypt: Bool = false) -> [UInt8]? {
        guard key.count == 16 || key.count == 24 else { return nil }
        return SimulatedCipher.ecbBlock(key.count == 16 ? EVP_des_ede_ecb() : EVP_des_ede3_ecb(), key, input, size: block, decrypt: decrypt)
    }

    /// CBC encryption from `iv`: C_i = E(P_i ⊕ C_(i-1)).
    static func cbcEncrypt(_ key: [UInt8], iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        SimulatedCipher.cbcEncrypt(size: block, { self.block(key, $0, decrypt: $1) }, iv: iv, data)
    }

    /// CBC decryption from `iv`: P_i = D(C_i) ⊕ C_(i-1).
    static func cbcDecrypt(_ key: [UInt8], iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        SimulatedCipher.cbcDecrypt(size: block, { self.block(key, $0, decrypt: $1) }, iv: iv, data)
    }

    /// The 8-byte 3DES CMAC (SP 800-38B, R64 = 1Bh) of `message`, its CBC started from `iv` (DESFire EV1
    /// chains them after AuthenticateISO, MF3ICD(Q)81 §9.1.2).
    static func cmac(_ key: [UInt8], _ message: [UInt8], iv: [UInt8] = [UInt8](repeating: 0, count: 8)) -> [UInt8]? {
        SimulatedCipher.cmac(size: block, constant: 0x1B, { self.block(key, $0, decrypt: $1) }, message, iv: iv)
    }
}
