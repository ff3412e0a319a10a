import NFCCore
import Testing

/// The legacy DESFire Authenticate (0Ah) and its D40 secure messaging: send and receive mode against
/// libfreefare's published DES vectors (test/test_mifare_desfire_des.c, `test_mifare_desfire_des_send`
/// and `_receive`: key 01×8), and a whole authentication as a card answered it with the all-zero key,
/// published on NXP's MIFARE forum ("Desfire Ev1 diverse questions", reply of 16 August 2018,
/// mifare.net/support/forum/reply/28755: `0A 00` → `AF A4 83 00 FB 5E 29 FD 78`, the reader's
/// `AF 8C A6 4D … 6B 6D 00` → `00 8C A6 4D E9 C1 B1 23 A7`).
@Suite struct DESFireLegacyAuthenticationTests {
    static func hex(_ text: String) -> [UInt8] { [UInt8](hex: text) ?? [] }

    /// libfreefare test_mifare_desfire_des.c: D6 59 E1 70 43 A8 40 68 received → 73 0D DF AD A4 D2 07 89,
    /// and that sent → D6 59 E1 70 43 A8 40 68, under the DES key 01 01 01 01 01 01 01 01.
    @Test func sendAndReceiveModeFollowLibfreefare() throws {
        let key = Self.hex("0101010101010101" + "0101010101010101")
        #expect(try DESFireLegacyAuthentication.receiveMode(key: key, data: Self.hex("D659E17043A84068")) == Self.hex("730DDFADA4D20789"))
        #expect(try DESFireLegacyAuthentication.sendMode(key: key, data: Self.hex("730DDFADA4D20789")) == Self.hex("D659E17043A84068"))
        // Send mode chains: the second block is deciphered after XOR with the first result.
        let two = try DESFireLegacyAuthentication.sendMode(key: key, data: Self.hex("730DDFADA4D20789" + "730DDFADA4D20789"))
        let second = zip(Self.hex("730DDFADA4D20789"), Self.hex("D659E17043A84068")).map { $0 ^ $1 }
        #expect(Array(two.suffix(8)) == (try DESFireLegacyAuthentication.sendMode(key: key, data: second)))
    }

    /// The forum's exchange with the all-zero key and RndA 00×8: the reader's proof is byte for byte the
    /// published one, the card's answer is accepted, and the session key is RndA[0..<4] ‖ RndB[0..<4]
    /// (RndB 3BA4A29C8D922F1E, from the card's first answer) twice, the key being single DES.
    @Test func legacyAuthenticationFollowsTheForumExchange() async throws {
        let transport = ScriptedAPDUTransport([
            ("0A00", .bytes("AF" + "A48300FB5E29FD78")),
            ("AF" + "8CA64DE9C1B123A7EDBFCE53486B6D00", .bytes("00" + "8CA64DE9C1B123A7")),
        ])
        let session = try await DESFireLegacyAuthentication.authenticate(
            keyNumber: 0, key: [UInt8](repeating: 0, count: 16), rndA: [UInt8](repeating: 0, count: 8),
            channel: DESFireChannel(transport: transport, framing: .native))
        guard case let .legacy(key) = session.kind else { Issue.record("not a legacy session"); return }
        #expect(key == Self.hex("000000003BA4A29C" + "000000003BA4A29C"))
        transport.verifyAllConsumed()
    }

    /// A card that does not hold the key: AUTHENTICATION_ERROR to the proof, or an RndA' that is not
    /// RndA rotated, is ``NFCError/authenticationFailed``.
    @Test func aWrongKeyIsAuthenticationFailed() async throws {
        let refused = ScriptedAPDUTransport([
            ("0A00", .bytes("AF" + "A48300FB5E29FD78")),
            ("AF" + "8CA64DE9C1B123A7EDBFCE53486B6D00", .bytes("AE")),
        ])
        await #expect(throws: NFCError.authenticationFailed) {
            try await DESFireLegacyAuthentication.authenticate(
                keyNumber: 0, key: [UInt8](repeating: 0, count: 16), rndA: [UInt8](repeating: 0, count: 8),
                channel: DESFireChannel(transport: refused, framing: .native))
        }
        let forged = ScriptedAPDUTransport([
            ("0A00", .bytes("AF" + "A48300FB5E29FD78")),
            ("AF" + "8CA64DE9C1B123A7EDBFCE53486B6D00", .bytes("00" + "0102030405060708")),
        ])
        await #expect(throws: NFCError.authenticationFailed) {
            try await DESFireLegacyAuthentication.authenticate(
                keyNumber: 0, key: [UInt8](repeating: 0, count: 16), rndA: [UInt8](repeating: 0, count: 8),
                channel: DESFireChannel(transport: forged, framing: .native))
        }
    }

    /// 2K3DES (K1 ≠ K2) session key: RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[4..<8] ‖ RndB[4..<8] (MF3ICD40 §9.2).
    @Test func twoKeySessionKeyInterleavesTheRandomNumbers() {
        let key = Self.hex("00102031405060708090A0B0B0A09080")
        #expect(DESFireLegacyAuthentication.sessionKey(key: key, rndA: Self.hex("0011223344556677"), rndB: Self.hex("8899AABBCCDDEEFF"))
                    == Self.hex("00112233" + "8899AABB" + "44556677" + "CCDDEEFF"))
    }

    /// D40 secure messaging: a MACed answer is data ‖ the first 4 bytes of the last block of the
    /// DES / 3DES CBC encryption (IV 0) of the data zero-padded (MF3ICD40 §8.5.1); a full answer is
    /// E(data ‖ CRC16 ‖ 00…) read in receive mode, CRC16 being ISO/IEC 14443-3's CRC_A of the data.
    @Test func legacyMessagingChecksMACAndCRC() throws {
        let key = Self.hex("000000003BA4A29C" + "000000003BA4A29C")
        let data = Self.hex("C0FFEE0011223344556677")
        let padded = data + [0, 0, 0, 0, 0]
        let mac = Array(try TripleDES.cbc(encrypt: true, key: key, iv: [UInt8](repeating: 0, count: 8), data: padded).suffix(8).prefix(4))
        var session = DESFireSecureSession(.legacy(key: key))
        #expect(try session.command(0xBD, header: [1, 0, 0, 0, 0, 0, 0], mode: .mac) == [1, 0, 0, 0, 0, 0, 0])
        #expect(try session.response(data + mac, mode: .mac, expectedLength: data.count) == data)
        var tampered = data + mac
        tampered[0] ^= 1
        #expect(throws: NFCError.self) { try session.response(tampered, mode: .mac, expectedLength: data.count) }
        // Full: the card enciphers data ‖ CRC_A(data) ‖ 00… in CBC from IV 0; the reader deciphers.
        let plain = data + ISO14443.crcA(data) + [0, 0, 0]
        let cipher = try TripleDES.cbc(encrypt: true, key: key, iv: [UInt8](repeating: 0, count: 8), data: plain)
        #expect(try session.response(cipher, mode: .full, expectedLength: data.count) == data)
        var broken = cipher
        broken[2] ^= 0x10
        #expect(throws: NFCError.self) { try session.response(broken, mode: .full, expectedLength: data.count) }
    }
}
