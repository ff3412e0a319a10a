/// AuthenticateISO (1Ah) of MIFARE DESFire EV1/EV2/EV3 with a 2-key or 3-key triple DES key (MIFARE
/// DESFire EV1 MF3ICD(Q)81 §9.5.1 "Authenticate ISO"): the AuthenticateAES exchange with 3DES in CBC,
/// random numbers of 8 (2K3DES) or 16 (3K3DES) bytes.
///
/// ```
/// PCD → 1A kk                          PICC → AF ‖ E(K, RndB)                 (IV = 0)
/// PCD → AF ‖ E(K, RndA ‖ RndB<<<8)     (IV = E(K, RndB))
///                                      PICC → 00 ‖ E(K, RndA<<<8)             (IV = last block sent)
/// ```
/// Session key, bit 0 of every byte cleared (the DES key-version bits): DES (a 16-byte key with K1 = K2)
/// RndA[0..<4] ‖ RndB[0..<4]; 2K3DES RndA[0..<4] ‖ RndB[0..<4]
/// ‖ RndA[4..<8] ‖ RndB[4..<8]; 3K3DES RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[6..<10] ‖ RndB[6..<10] ‖
/// RndA[12..<16] ‖ RndB[12..<16]. Secure messaging then uses 3DES CMACs (``DESFireSecureSession/Kind/iso(key:iv:)``).
public enum DESFireISOAuthentication {
    /// AuthenticateISO's command code.
    public static let instruction: UInt8 = 0x1A

    /// The session key of these random numbers (8 bytes each for a 16-byte key, 16 for a 24-byte one).
    public static func sessionKey(rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        let ranges: [Range<Int>] = rndA.count == 8 ? [0..<4, 4..<8] : [0..<4, 6..<10, 12..<16]
        var bytes: [UInt8] = []
        for range in ranges {
            bytes += rndA[range]
            bytes += rndB[range]
        }
        return bytes.map { $0 & 0xFE }
    }

    /// The session key for `key`: a single-DES key (16 bytes, K1 = K2) gets the 8-byte DES session key
    /// RndA[0..<4] ‖ RndB[0..<4] (version bits cleared), as the card makes it; others
    /// ``sessionKey(rndA:rndB:)``.
    public static func sessionKey(key: [UInt8], rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        if key.count == 16, key[0..<8] == key[8..<16], rndA.count == 8, rndB.count == 8 {
            return (Array(rndA[0..<4]) + Array(rndB[0..<4])).map { $0 & 0xFE }
        }
        return sessionKey(rndA: rndA, rndB: rndB)
    }

    /// Runs AuthenticateISO with key `keyNumber` (a 16-byte 2K3DES or 24-byte 3K3DES `key`) of the selected
    /// application; `rndA` is 8 or 16 random bytes to match. Errors as ``DESFireEV1Authentication``.
    public static func authenticate(keyNumber: UInt8, key: [UInt8], rndA fullRndA: [UInt8], channel: DESFireChannel)
        async throws -> DESFireSecureSession
    {
        guard key.count == 16 || key.count == 24 else { throw NFCError.invalidArgument("A 3DES key is 16 or 24 bytes, not \(key.count)") }
        let length = key.count == 16 ? 8 : 16
        guard fullRndA.count >= length else { throw NFCError.invalidArgument("RndA is \(length) bytes") }
        let rndA = Array(fullRndA.prefix(length))
        let zero = [UInt8](repeating: 0, count: TripleDES.blockSize)
        let first = try await channel.frame(instruction, [keyNumber])
        guard first.status.isAdditionalFrame else { throw NFCError.desfireError(status: first.status.rawValue) }
        guard first.data.count == length else { throw NFCError.invalidResponse(first.data) }
        let rndB = try TripleDES.cbc(encrypt: false, key: key, iv: zero, data: first.data)
        let proof = try TripleDES.cbc(encrypt: true, key: key, iv: Array(first.data.suffix(TripleDES.blockSize)),
                                      data: rndA + rndB[1...] + [rndB[0]])
        let second = try await channel.frame(DESFireInstruction.additionalFrame, proof)
        guard second.status.isOK else {
            if second.status == .authenticationError { throw NFCError.authenticationFailed }
            throw NFCError.desfireError(status: second.status.rawValue)
        }
        guard second.data.count == length else { throw NFCError.invalidResponse(second.data) }
        let answer = try TripleDES.cbc(encrypt: false, key: key, iv: Array(proof.suffix(TripleDES.blockSize)), data: second.data)
        guard answer == Array(rndA[1...]) + [rndA[0]] else { throw NFCError.authenticationFailed }
        return DESFireSecureSession(.iso(key: sessionKey(key: key, rndA: rndA, rndB: rndB), iv: zero))
    }
}
