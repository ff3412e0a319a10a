/// The virtual DESFire's authentication and secure messaging, written for the simulator from the
/// datasheets and NXP's application notes (never from NFCCore), on ``SimulatedCipher``:
///
/// - AuthenticateAES AAh (MIFARE DESFire EV1 MF3ICD(Q)81 §9.5.2): E(K, RndB) with IV 0, then the
///   reader's E(K, RndA ‖ RndB<<<8) chained on it, answered with E(K, RndA<<<8) chained on that; the
///   session key RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[12..<16] ‖ RndB[12..<16], IV 0 (§9.4).
/// - AuthenticateEV2First 71h (AN12343 §6.2 / AN12196 §3.3): E(K, RndB) (IV 0), the reader's E(K,
///   RndA ‖ RndB<<<8), answered E(K, TI ‖ RndA<<<8 ‖ PDcap2 ‖ PCDcap2), every encryption from IV 0;
///   SesAuthENCKey = CMAC(K, A5 5A ‖ 00 01 00 80 ‖ SV), SesAuthMACKey = CMAC(K, 5A A5 ‖ …), SV = RndA[0..<2]
///   ‖ (RndA[2..<8] ⊕ RndB[0..<6]) ‖ RndB[6..<16] ‖ RndA[8..<16] (AN12196 §3.3 / AN12343 §6.2).
/// - Reads of a file whose right is the authenticated key, by its communication mode: EV1 (§9.1.2,
///   §9.4): the command's CMAC from the IV becomes the IV; plain and MACed answers carry
///   CMAC(data ‖ 00)[0..<8], full ones E(data ‖ CRC32(data ‖ 00) ‖ 00…). EV2 (AN12196 §5.3–5.4, §7.3):
///   MACed and full commands carry MACt(Cmd ‖ CmdCtr ‖ TI ‖ header) — a wrong one is INTEGRITY_ERROR
///   (1Eh) —; answers MACt(00 ‖ CmdCtr+1 ‖ TI ‖ data), full ones E(data ‖ 80 00…) from IV =
///   E(SesAuthENCKey, 5A A5 ‖ TI ‖ CmdCtr+1 ‖ 0⁸). MACt = CMAC bytes 1, 3 … 15.
enum VirtualDESFireSecurity {
    /// An open session.
    enum Session: Sendable, Equatable {
        case ev1(keyNumber: UInt8, key: [UInt8], iv: [UInt8])
        case ev2(keyNumber: UInt8, encryptionKey: [UInt8], macKey: [UInt8], transactionIdentifier: [UInt8], counter: UInt16)
        /// After AuthenticateISO 1Ah: EV1 secure messaging over 3DES (8-byte CMACs, chained IV).
        case iso(keyNumber: UInt8, key: [UInt8], iv: [UInt8])
        /// After the legacy Authenticate 0Ah: D40 secure messaging, nothing chained.
        case legacy(keyNumber: UInt8, key: [UInt8])

        var keyNumber: UInt8 {
            switch self {
            case let .ev1(number, _, _), let .ev2(number, _, _, _, _), let .iso(number, _, _), let .legacy(number, _): number
            }
        }
    }

    /// The authentication commands the virtual card answers.
    enum Method: Sendable, Equatable {
        /// AuthenticateAES AAh.
        case aes
        /// AuthenticateEV2First 71h.
        case ev2First
        /// AuthenticateEV2NonFirst 77h inside the EV2 session of this TI and command counter (kept).
        case ev2NonFirst(transactionIdentifier: [UInt8], counter: UInt16)
        /// AuthenticateISO 1Ah (2K3DES, 3K3DES).
        case iso
        /// Authenticate 0Ah (DES, 2K3DES).
        case legacy
    }

    /// Where an authentication is.
    enum Progress: Sendable, Equatable {
        case none
        /// The first step answered with E(K, RndB); the reader's proof is next.
        case awaitingProof(method: Method, keyNumber: UInt8, key: [UInt8], rndB: [UInt8], chain: [UInt8])
        case authenticated(Session)
    }

    static let zero = [UInt8](repeating: 0, count: 16)

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func rotated(_ bytes: [UInt8]) -> [UInt8] { Array(bytes.dropFirst()) + bytes.prefix(1) }

    /// First step: E(K, RndB) — 16 bytes for an AES key, 8 (2K3DES) or 16 (3K3DES) for AuthenticateISO
    /// in CBC from IV 0, 8 enciphered alone for the legacy Authenticate.
    static func begin(_ method: Method, keyNumber: UInt8, key: [UInt8]) -> (answer: [UInt8], progress: Progress)? {
        let encrypted: [UInt8]?
        let rndB: [UInt8]
        switch method {
        case .aes, .ev2First, .ev2NonFirst:
            rndB = random(16)
            encrypted = SimulatedCipher.cbcEncrypt(key, iv: zero, rndB)
        case .iso, .legacy:
            rndB = random(key.count == 24 && method == .iso ? 16 : 8)
            encrypted = SimulatedTripleDES.cbcEncrypt(key, iv: zero8, rndB)
        }
        guard let encrypted else { return nil }
        return (encrypted, .awaitingProof(method: method, keyNumber: keyNumber, key: key, rndB: rndB, chain: encrypted))
    }

    static let zero8 = [UInt8](repeating: 0, count: 8)

    /// Second step: checks the reader's proof; nil when it does not hold RndB<<<8 (→ AUTHENTICATION_ERROR).
    static func finish(proof: [UInt8], method: Method, keyNumber: UInt8, key: [UInt8], rndB: [UInt8], chain: [UInt8])
        -> (answer: [UInt8], session: Session)?
    {
        switch method {
        case .iso: return finishISO(proof: proof, keyNumber: keyNumber, key: key, rndB: rndB, chain: chain)
        case .legacy: return finishLegacy(proof: proof, keyNumber: keyNumber, key: key, rndB: rndB)
        case .aes, .ev2First, .ev2NonFirst: break
        }
        let ev2 = method != .aes
        guard proof.count == 32, let plain = SimulatedCipher.cbcDecrypt(key, iv: ev2 ? zero : chain, proof) else { return nil }
        let rndA = Array(plain[0..<16])
        guard Array(plain[16..<32]) == rotated(rndB) else { return nil }
        if !ev2 {
            guard let answer = SimulatedCipher.cbcEncrypt(key, iv: Array(proof.suffix(16)), rotated(rndA)) else { return nil }
            let sessionKey = Array(rndA[0..<4] + rndB[0..<4] + rndA[12..<16] + rndB[12..<16])
            return (answer, .ev1(keyNumber: keyNumber, key: sessionKey, iv: zero))
        }
        let mixed = (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
        let vector = [0x00, 0x01, 0x00, 0x80] + rndA[0..<2] + mixed + rndB[6..<16] + rndA[8..<16]
        guard let encryptionKey = SimulatedCipher.cmac(key, [0xA5, 0x5A] + vector),
            let macKey = SimulatedCipher.cmac(key, [0x5A, 0xA5] + vector)
        else { return nil }
        if case let .ev2NonFirst(ti, counter) = method {
            // AN12343 "AuthenticateEV2NonFirst" AuthenticateEV2NonFirst: the answer is E(K, RndA<<<8) alone; TI and the
            // command counter go on, the session keys are new.
            guard let answer = SimulatedCipher.cbcEncrypt(key, iv: zero, rotated(rndA)) else { return nil }
            return (answer, .ev2(keyNumber: keyNumber, encryptionKey: encryptionKey, macKey: macKey, transactionIdentifier: ti, counter: counter))
        }
        let ti = random(4)
        let capabilities = [UInt8](repeating: 0, count: 12)  // PDcap2 ‖ PCDcap2, none
        guard let answer = SimulatedCipher.cbcEncrypt(key, iv: zero, ti + rotated(rndA) + capabilities) else { return nil }
        return (answer, .ev2(keyNumber: keyNumber, encryptionKey: encryptionKey, macKey: macKey, transactionIdentifier: ti, counter: 0))
    }

    /// AuthenticateISO's second step (MF3ICD(Q)81 §9.5.1): the proof deciphered in CBC from the last
    /// block of E(K, RndB), the answer E(K, RndA<<<8) chained on the proof's last block. Session key:
    /// 3K3DES RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[6..<10] ‖ RndB[6..<10] ‖ RndA[12..<16] ‖ RndB[12..<16];
    /// 2K3DES as the legacy one (``sessionKey(_:rndA:rndB:)``).
    static func finishISO(proof: [UInt8], keyNumber: UInt8, key: [UInt8], rndB: [UInt8], chain: [UInt8]) -> (answer: [UInt8], session: Session)? {
        let length = rndB.count
        guard proof.count == 2 * length, let plain = SimulatedTripleDES.cbcDecrypt(key, iv: Array(chain.suffix(8)), proof) else { return nil }
        let rndA = Array(plain[0..<length])
        guard Array(plain[length...]) == rotated(rndB),
            let answer = SimulatedTripleDES.cbcEncrypt(key, iv: Array(proof.suffix(8)), rotated(rndA))
        else { return nil }
        let sessionKey = length == 16
            ? Array(rndA[0..<4] + rndB[0..<4] + rndA[6..<10] + rndB[6..<10] + rndA[12..<16] + rndB[12..<16])
            : sessionKey(key, rndA: rndA, rndB: rndB)
        return (answer, .iso(keyNumber: keyNumber, key: sessionKey, iv: zero8))
    }

    /// The legacy Authenticate's second step (MF3ICD40 §9.2, §8.5): the reader "sent" RndA ‖ RndB<<<8 by
    /// deciphering (Y_i = D(X_i ⊕ Y_(i-1))), so the card enciphers to undo it (X_i = E(Y_i) ⊕ Y_(i-1));
    /// the answer is E(K, RndA<<<8).
    static func finishLegacy(proof: [UInt8], keyNumber: UInt8, key: [UInt8], rndB: [UInt8]) -> (answer: [UInt8], session: Session)? {
        guard proof.count == 16 else { return nil }
        var plain: [UInt8] = []
        var previous = zero8
        for start in stride(from: 0, to: 16, by: 8) {
            let block = Array(proof[start..<start + 8])
            guard let enciphered = SimulatedTripleDES.block(key, block) else { return nil }
            plain += SimulatedCipher.xor(enciphered, previous)
            previous = block
        }
        let rndA = Array(plain[0..<8])
        guard Array(plain[8..<16]) == rotated(rndB), let answer = SimulatedTripleDES.block(key, rotated(rndA)) else { return nil }
        return (answer, .legacy(keyNumber: keyNumber, key: sessionKey(key, rndA: rndA, rndB: rndB)))
    }

    /// A DES / 2K3DES session key: RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[4..<8] ‖ RndB[4..<8]; a DES key (its
    /// halves equal) gets the DES session key RndA[0..<4] ‖ RndB[0..<4], twice.
    static func sessionKey(_ key: [UInt8], rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        let first = Array(rndA[0..<4] + rndB[0..<4])
        if key.count == 16, key[0..<8] == key[8..<16] { return first + first }
        return first + rndA[4..<8] + rndB[4..<8]
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func truncated(_ mac: [UInt8]) -> [UInt8] { stride(from: 1, to: mac.count, by: 2).map { mac[$0] } }

    /// A secured command's parameters without their MAC (EV2 MACed / full); nil when the MAC is wrong
    /// (→ INTEGRITY_ERROR). EV1 moves the IV on by the command's CMAC. `mode`: 0 plain, 1 MACed, 3 full.
    static func acceptCommand(_ session: inout Session, instruction: UInt8, data: [UInt8], mode: UInt8) -> [UInt8]? {
        switch session {
        case let .ev1(number, key, iv):
            guard let mac = SimulatedCipher.cmac(key, [instruction] + data, iv: iv) else { return nil }
            session = .ev1(keyNumber: number, key: key, iv: mac)
            return data
        case let .iso(number, key, iv):
            guard let mac = SimulatedTripleDES.cmac(key, [instruction] + data, iv: iv) else { return nil }
            session = .iso(keyNumber: number, key: key, iv: mac)
            return data
        case .legacy:
            return data
        case let .ev2(_, _, macKey, ti, counter):
            guard mode != 0x00 else { return data }
            guard data.count >= 8 else { return nil }
            let header = Array(data.dropLast(8))
            guard let mac = SimulatedCipher.cmac(macKey, [instruction] + le16(counter) + ti + header),
                truncated(mac) == Array(data.suffix(8))
            else { return nil }
            return header
        }
    }

    /// EV1 secure messaging of an answer, AES (16-byte blocks) and 3DES (8) alike (MF3ICD(Q)81 §9.2,
    /// AN10922-era EV1 messaging): full mode enciphers data ‖ CRC32(data ‖ status 00) zero-padded to the
    /// block, in CBC from the session IV; MAC mode appends the first 8 bytes of the CMAC over data ‖ 00.
    /// Returns the answer and the next IV (the last cipher block, or the whole CMAC).
    private static func ev1Answer(_ data: [UInt8], mode: UInt8, blockSize: Int, cbc: ([UInt8]) -> [UInt8]?,
                                  cmac: ([UInt8]) -> [UInt8]?) -> (answer: [UInt8], iv: [UInt8])? {
        if mode == 0x03 {
            var plain = data + crc32(data + [0x00])
            plain += [UInt8](repeating: 0, count: (blockSize - plain.count % blockSize) % blockSize)
            guard let cipher = cbc(plain) else { return nil }
            return (cipher, Array(cipher.suffix(blockSize)))
        }
        guard let mac = cmac(data + [0x00]) else { return nil }
        return (data + mac.prefix(8), mac)
    }

    /// The answer's bytes for plain `data` in `mode`, with the session moved on; `corrupt` flips a bit of
    /// the MAC (a scenario's `corrupt_mac`, to test the reader's integrity check).
    static func secureAnswer(_ session: inout Session, data: [UInt8], mode: UInt8, corrupt: Bool) -> [UInt8]? {
        var answer: [UInt8]
        switch session {
        case let .ev1(number, key, iv):
            guard let (body, next) = ev1Answer(data, mode: mode, blockSize: 16,
                                               cbc: { SimulatedCipher.cbcEncrypt(key, iv: iv, $0) },
                                               cmac: { SimulatedCipher.cmac(key, $0, iv: iv) })
            else { return nil }
            session = .ev1(keyNumber: number, key: key, iv: next)
            answer = body
        case let .iso(number, key, iv):
            guard let (body, next) = ev1Answer(data, mode: mode, blockSize: 8,
                                               cbc: { SimulatedTripleDES.cbcEncrypt(key, iv: iv, $0) },
                                               cmac: { SimulatedTripleDES.cmac(key, $0, iv: iv) })
            else { return nil }
            session = .iso(keyNumber: number, key: key, iv: next)
            answer = body
        case let .legacy(_, key):
            // D40 (MF3ICD40 §8.5): MAC = the first 4 bytes of the last block of E(data ‖ 00…) in CBC from
            // IV 0; full = E(data ‖ CRC_A(data) ‖ 00…) in CBC from IV 0. Plain answers carry neither.
            guard mode != 0x00 else { return data }
            if mode == 0x03 {
                var plain = data + AirChecksum.crcA(data)  // D40 full mode's CRC16 is CRC_A (MF3ICD40 §8.5)
                plain += [UInt8](repeating: 0, count: (8 - plain.count % 8) % 8)
                guard let cipher = SimulatedTripleDES.cbcEncrypt(key, iv: zero8, plain) else { return nil }
                answer = cipher
            } else {
                var padded = data + [UInt8](repeating: 0, count: (8 - data.count % 8) % 8)
                if padded.isEmpty { padded = zero8 }
                guard let chain = SimulatedTripleDES.cbcEncrypt(key, iv: zero8, padded) else { return nil }
                answer = data + chain.suffix(8).prefix(4)
            }
        case let .ev2(number, encryptionKey, macKey, ti, counter):
            let next = counter &+ 1
            session = .ev2(keyNumber: number, encryptionKey: encryptionKey, macKey: macKey, transactionIdentifier: ti, counter: next)
            guard mode != 0x00 else { return data }
            var body = data
            if mode == 0x03 {
                let padded = data + [0x80] + [UInt8](repeating: 0, count: 15 - data.count % 16)
                guard let iv = SimulatedCipher.cbcEncrypt(encryptionKey, iv: zero, [0x5A, 0xA5] + ti + le16(next) + [UInt8](repeating: 0, count: 8)),
                    let cipher = SimulatedCipher.cbcEncrypt(encryptionKey, iv: iv, padded)
                else { return nil }
                body = cipher
            }
            guard let mac = SimulatedCipher.cmac(macKey, [0x00] + le16(next) + ti + body) else { return nil }
            answer = body + truncated(mac)
        }
        if corrupt, let last = answer.indices.last { answer[last] ^= 0x01 }
        return answer
    }

    /// EV2 counts every command of the session, answered or not (AN12196 §5.2 "CmdCtr").
    static func counted(_ session: Session) -> Session {
        guard case let .ev2(number, encryptionKey, macKey, ti, counter) = session else { return session }
        return .ev2(keyNumber: number, encryptionKey: encryptionKey, macKey: macKey, transactionIdentifier: ti, counter: counter &+ 1)
    }

    /// DESFire CRC32 (MF3ICD(Q)81 §9.1.3): polynomial 04C11DB7h reflected (EDB88320h), preset all ones,
    /// not complemented at the end; sent least significant byte first.
    static func crc32(_ data: [UInt8]) -> [UInt8] {
        var register: UInt32 = 0xFFFF_FFFF
        for byte in data {
            register ^= UInt32(byte)
            for _ in 0..<8 { register = (register >> 1) ^ (register & 1 == 0 ? 0 : 0xEDB8_8320) }
        }
        return (0..<4).map { UInt8(truncatingIfNeeded: register >> (8 * $0)) }
    }
}
