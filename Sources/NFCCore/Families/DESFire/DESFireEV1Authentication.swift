/// AuthenticateAES (AAh) of MIFARE DESFire EV1/EV2/EV3 with an AES-128 key (MIFARE DESFire EV1
/// MF3ICD(Q)81 §9.1.2 / §9.5.2 "Authenticate AES"): three passes in one CBC chain under the key.
///
/// ```
/// PCD → AA kk                          PICC → AF ‖ E(K, RndB)                 (IV = 0)
/// PCD → AF ‖ E(K, RndA ‖ RndB<<<8)     (IV = E(K, RndB))
///                                      PICC → 00 ‖ E(K, RndA<<<8)             (IV = last block sent)
/// ```
/// The session key is RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[12..<16] ‖ RndB[12..<16], its IV zero
/// (``DESFireSecureSession/ev1(sessionKey:)``).
public enum DESFireEV1Authentication {
    /// AuthenticateAES's command code.
    public static let instruction: UInt8 = 0xAA

    /// The EV1 AES session key of these random numbers (16 bytes each).
    public static func sessionKey(rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        Array(rndA[0..<4] + rndB[0..<4] + rndA[12..<16] + rndB[12..<16])
    }

    /// Runs AuthenticateAES with key `keyNumber` of the selected application through `channel`; `rndA`
    /// is the reader's 16 random bytes (injected, so a test can pin them). Returns the secure session.
    /// Throws ``NFCError/authenticationFailed`` when the card refuses the proof (AUTHENTICATION_ERROR)
    /// or its RndA' is wrong (it does not hold `key`), ``NFCError/desfireError(status:)`` for another
    /// refusal (NO_SUCH_KEY, a key of another type), ``NFCError/invalidResponse(_:)`` for an answer of
    /// the wrong length.
    public static func authenticate(keyNumber: UInt8, key: [UInt8], rndA: [UInt8], channel: DESFireChannel)
        async throws -> DESFireSecureSession
    {
        guard rndA.count == 16, key.count == 16 else { throw NFCError.invalidArgument("AES keys and RndA are 16 bytes") }
        let first = try await channel.frame(instruction, [keyNumber])
        guard first.status.isAdditionalFrame else { throw NFCError.desfireError(status: first.status.rawValue) }
        guard first.data.count == 16 else { throw NFCError.invalidResponse(first.data) }
        let rndB = try AES.cbc(encrypt: false, key: key, data: first.data)
        let proof = try AES.cbc(encrypt: true, key: key, iv: first.data, data: rndA + rndB[1...] + [rndB[0]])
        let second = try await channel.frame(DESFireInstruction.additionalFrame, proof)
        guard second.status.isOK else {
            if second.status == .authenticationError { throw NFCError.authenticationFailed }
            throw NFCError.desfireError(status: second.status.rawValue)
        }
        guard second.data.count == 16 else { throw NFCError.invalidResponse(second.data) }
        let answer = try AES.cbc(encrypt: false, key: key, iv: Array(proof.suffix(16)), data: second.data)
        guard answer == Array(rndA[1...]) + [rndA[0]] else { throw NFCError.authenticationFailed }
        return .ev1(sessionKey: sessionKey(rndA: rndA, rndB: rndB))
    }
}
