/// AuthenticateEV2First (71h) with an AES-128 key, and the session keys it yields (NXP AN12196 §3.3
/// "AuthenticateEV2First", AN12343 §6.2; MIFARE DESFire EV2/EV3, DESFire Light, NTAG 424 DNA). All
/// encryption is AES-CBC with a zero IV.
///
/// AuthenticateEV2NonFirst (77h) opens another key inside the same transaction (same TI, the command
/// counter going on). Secure messaging is ``DESFireSecureSession``.
public enum DESFireEV2Authentication {
    /// The session after a successful AuthenticateEV2First.
    public struct Session: Sendable, Hashable {
        /// Transaction identifier (the first 4 bytes of the card's last answer).
        public var transactionIdentifier: [UInt8]
        /// SesAuthENCKey = CMAC(K, SV1).
        public var encryptionKey: [UInt8]
        /// SesAuthMACKey = CMAC(K, SV2).
        public var macKey: [UInt8]
    }

    /// SV1 (`label` A5 5A) or SV2 (5A A5): label ‖ 00 01 00 80 ‖ RndA[0..<2] ‖ (RndA[2..<8] ⊕
    /// RndB[0..<6]) ‖ RndB[6..<16] ‖ RndA[8..<16] (AN12196 §3.3, most significant byte first).
    static func sessionVector(label: [UInt8], rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        let mixed = (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
        return label + [0x00, 0x01, 0x00, 0x80] + rndA[0..<2] + mixed + rndB[6..<16] + rndA[8..<16]
    }

    /// The two session keys of `key` for these random numbers. Throws ``NFCError/invalidArgument(_:)``
    /// unless key, RndA and RndB are 16 bytes each.
    public static func sessionKeys(key: [UInt8], rndA: [UInt8], rndB: [UInt8]) throws(NFCError) -> (encryption: [UInt8], mac: [UInt8]) {
        guard rndA.count == 16, rndB.count == 16 else { throw NFCError.invalidArgument("RndA and RndB are 16 bytes each") }
        return (try AES.cmac(key: key, message: sessionVector(label: [0xA5, 0x5A], rndA: rndA, rndB: rndB)),
                try AES.cmac(key: key, message: sessionVector(label: [0x5A, 0xA5], rndA: rndA, rndB: rndB)))
    }

    /// Runs AuthenticateEV2First with key `keyNumber` of the selected application, wrapped: `90 71 00
    /// 00 02 kk 00 00` → E(K, RndB) `91 AF`; then `90 AF 00 00 20` E(K, RndA ‖ RndB<<<8) `00` → E(K, TI ‖
    /// RndA<<<8 ‖ PDcap2 ‖ PCDcap2) `91 00`. `rndA` is the 16 random bytes of the reader (injected, so a
    /// test can pin them). Throws ``NFCError/desfireError(status:)`` for a refusal,
    /// ``NFCError/authenticationFailed`` when the card's RndA' is wrong (the card does not hold `key`),
    /// ``NFCError/invalidResponse(_:)`` for answers of the wrong length.
    public static func authenticate(keyNumber: UInt8, key: [UInt8], rndA: [UInt8], transport: any APDUTransport)
        async throws -> Session
    {
        let (rndB, second) = try await exchange(0x71, [keyNumber, 0x00], key: key, rndA: rndA, transport: transport)
        guard second.count == 32 else { throw NFCError.invalidResponse(second) }
        let answer = try AES.cbc(encrypt: false, key: key, data: second)
        guard Array(answer[4..<20]) == Array(rndA[1...]) + [rndA[0]] else { throw NFCError.authenticationFailed }
        let keys = try sessionKeys(key: key, rndA: rndA, rndB: rndB)
        return Session(transactionIdentifier: Array(answer[0..<4]), encryptionKey: keys.encryption, macKey: keys.mac)
    }

    /// Runs AuthenticateEV2NonFirst (77h; AN12343, "AuthenticateEV2NonFirst") with key `keyNumber` inside the EV2
    /// session whose transaction identifier is `transactionIdentifier`: `90 77 00 00 01 kk 00` → E(K, RndB)
    /// `91 AF`; `90 AF 00 00 20` E(K, RndA ‖ RndB<<<8) `00` → E(K, RndA<<<8) `91 00`. The session keys are
    /// made as EV2First's from the new random numbers; TI and the command counter go on (the caller keeps
    /// the counter). Errors as ``authenticate(keyNumber:key:rndA:transport:)``.
    public static func authenticateNonFirst(keyNumber: UInt8, key: [UInt8], rndA: [UInt8], transactionIdentifier: [UInt8],
                                            transport: any APDUTransport) async throws -> Session {
        let (rndB, second) = try await exchange(0x77, [keyNumber], key: key, rndA: rndA, transport: transport)
        guard second.count == 16 else { throw NFCError.invalidResponse(second) }
        guard try AES.cbc(encrypt: false, key: key, data: second) == Array(rndA[1...]) + [rndA[0]] else {
            throw NFCError.authenticationFailed
        }
        let keys = try sessionKeys(key: key, rndA: rndA, rndB: rndB)
        return Session(transactionIdentifier: transactionIdentifier, encryptionKey: keys.encryption, macKey: keys.mac)
    }

    /// The two passes EV2First and NonFirst share, wrapped: `instruction` with `parameters` → E(K, RndB)
    /// `91 AF`; E(K, RndA ‖ RndB<<<8) (zero IV) → the card's last answer (its data, status 00 checked).
    static func exchange(_ instruction: UInt8, _ parameters: [UInt8], key: [UInt8], rndA: [UInt8], transport: any APDUTransport)
        async throws -> (rndB: [UInt8], answer: [UInt8])
    {
        guard rndA.count == 16 else { throw NFCError.invalidArgument("RndA is 16 bytes, not \(rndA.count)") }
        let channel = DESFireChannel(transport: transport, framing: .wrapped)
        let first = try await channel.frame(instruction, parameters)
        guard first.status.isAdditionalFrame else { throw NFCError.desfireError(status: first.status.rawValue) }
        guard first.data.count == 16 else { throw NFCError.invalidResponse(first.data) }
        let rndB = try AES.cbc(encrypt: false, key: key, data: first.data)
        let proof = try AES.cbc(encrypt: true, key: key, data: rndA + rndB[1...] + [rndB[0]])
        let second = try await channel.frame(DESFireInstruction.additionalFrame, proof)
        guard second.status.isOK else {
            if second.status == .authenticationError { throw NFCError.authenticationFailed }
            throw NFCError.desfireError(status: second.status.rawValue)
        }
        return (rndB, second.data)
    }
}
