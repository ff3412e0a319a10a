/// The legacy Authenticate (0Ah) of the first MIFARE DESFire (MF3ICD40, "D40"), kept by EV1 and later
/// for DES and 2K3DES keys (MIFARE DESFire EV1 MF3ICD(Q)81 §9.5.1 "Authenticate"; MF3ICD40 datasheet
/// §9.2 "Authenticate" and §8.5 "DES/3DES operation"). Unlike AuthenticateISO (1Ah), the card only
/// ever ENciphers and the reader only ever DEciphers, each message chained on its own from a zero IV:
///
/// - the reader reads in *receive mode*: X_i = D(Y_i) ⊕ Y_(i-1) (plain CBC decryption);
/// - the reader sends in *send mode*: Y_i = D(X_i ⊕ Y_(i-1)) (CBC with the decipher function).
///
/// ```
/// PCD → 0A kk                                  PICC → AF ‖ ek(RndB)              (8 bytes)
/// PCD → AF ‖ dk(RndA ‖ RndB<<<8) (send mode)   PICC → 00 ‖ ek(RndA<<<8)          (8 bytes)
/// ```
/// Session key (MF3ICD40 §9.2): 2K3DES RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[4..<8] ‖ RndB[4..<8]; a
/// single-DES key (K1 = K2) gets the single-DES session key RndA[0..<4] ‖ RndB[0..<4], written twice.
/// The secure messaging that follows is the D40 one (``DESFireSecureSession/Kind/legacy(key:)``).
public enum DESFireLegacyAuthentication {
    /// Authenticate's command code.
    public static let instruction: UInt8 = 0x0A

    /// `data` in send mode under `key` (8 or 16 bytes): each block XORed with the previous result, then
    /// deciphered, from a zero IV.
    public static func sendMode(key: [UInt8], data: [UInt8]) throws(NFCError) -> [UInt8] {
        guard data.count % TripleDES.blockSize == 0 else { throw NFCError.invalidArgument("send mode takes whole 8-byte blocks") }
        var previous = [UInt8](repeating: 0, count: TripleDES.blockSize)
        var out: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: TripleDES.blockSize) {
            let mixed = zip(data[start..<start + TripleDES.blockSize], previous).map { $0 ^ $1 }
            // One block of ECB decipher: CBC decryption of one block from a zero IV.
            previous = try TripleDES.cbc(encrypt: false, key: key, iv: [UInt8](repeating: 0, count: TripleDES.blockSize), data: mixed)
            out += previous
        }
        return out
    }

    /// `data` in receive mode under `key`: plain CBC decryption from a zero IV.
    public static func receiveMode(key: [UInt8], data: [UInt8]) throws(NFCError) -> [UInt8] {
        try TripleDES.cbc(encrypt: false, key: key, iv: [UInt8](repeating: 0, count: TripleDES.blockSize), data: data)
    }

    /// The session key of these random numbers (8 bytes each) for `key` (16 bytes, K1 = K2 for DES).
    public static func sessionKey(key: [UInt8], rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        let first = Array(rndA[0..<4] + rndB[0..<4])
        if key.count == 16, key[0..<8] == key[8..<16] { return first + first }
        return first + rndA[4..<8] + rndB[4..<8]
    }

    /// Runs Authenticate with key `keyNumber` (a 16-byte DES / 2K3DES `key`) of the selected
    /// application; `rndA` is at least 8 random bytes (the first 8 are used). Errors as
    /// ``DESFireEV1Authentication``.
    public static func authenticate(keyNumber: UInt8, key: [UInt8], rndA fullRndA: [UInt8], channel: DESFireChannel)
        async throws -> DESFireSecureSession
    {
        guard key.count == 16 else { throw NFCError.invalidArgument("The legacy Authenticate takes a 16-byte DES / 2K3DES key, not \(key.count)") }
        guard fullRndA.count >= 8 else { throw NFCError.invalidArgument("RndA is 8 bytes") }
        let rndA = Array(fullRndA.prefix(8))
        let first = try await channel.frame(instruction, [keyNumber])
        guard first.status.isAdditionalFrame else { throw NFCError.desfireError(status: first.status.rawValue) }
        guard first.data.count == 8 else { throw NFCError.invalidResponse(first.data) }
        let rndB = try receiveMode(key: key, data: first.data)
        let proof = try sendMode(key: key, data: rndA + rndB[1...] + [rndB[0]])
        let second = try await channel.frame(DESFireInstruction.additionalFrame, proof)
        guard second.status.isOK else {
            if second.status == .authenticationError { throw NFCError.authenticationFailed }
            throw NFCError.desfireError(status: second.status.rawValue)
        }
        guard second.data.count == 8 else { throw NFCError.invalidResponse(second.data) }
        guard try receiveMode(key: key, data: second.data) == Array(rndA[1...]) + [rndA[0]] else { throw NFCError.authenticationFailed }
        return DESFireSecureSession(.legacy(key: sessionKey(key: key, rndA: rndA, rndB: rndB)))
    }
}
