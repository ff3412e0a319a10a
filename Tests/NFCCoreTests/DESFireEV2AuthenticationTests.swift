import NFCCore
import Testing

/// AES-CMAC against RFC 4493 §4, AuthenticateEV2First / NonFirst and their session keys against NXP AN12196 §3.3.
@Suite struct DESFireEV2AuthenticationTests {
    static func hex(_ text: String) -> [UInt8] { [UInt8](hex: text) ?? [] }

    @Test(arguments: [
        ("", "BB1D6929E95937287FA37D129B756746"),
        ("6BC1BEE22E409F96E93D7E117393172A", "070A16B46B4D4144F79BDD9DD04A287C"),
        ("6BC1BEE22E409F96E93D7E117393172AAE2D8A571E03AC9C9EB76FAC45AF8E5130C81C46A35CE411", "DFA66747DE9AE63030CA32611497C827"),
    ])
    func cmacMatchesRFC4493(message: String, mac: String) throws {
        #expect(try AES.cmac(key: Self.hex("2B7E151628AED2A6ABF7158809CF4F3C"), message: Self.hex(message)) == Self.hex(mac))
    }

    /// AN12196 §3.3: key 00…00, RndA 13C5DB8A…, E(K, RndB) A04C1242…; the reader's proof and both
    /// session keys are NXP's numbers. The card's last answer is built here (TI 01020304, zero caps).
    @Test func ev2FirstFollowsAN12196() async throws {
        let key = [UInt8](repeating: 0, count: 16)
        let rndA = Self.hex("13C5DB8A5930439FC3DEF9A4C675360F")
        let card = try AES.cbc(encrypt: true, key: key, data: [0x01, 0x02, 0x03, 0x04] + rndA[1...] + [rndA[0]]
                                   + [UInt8](repeating: 0, count: 12))
        let transport = ScriptedAPDUTransport([
            ("9071000002000000", .bytes("A04C124213C186F22399D33AC2A30215" + "91AF")),
            ("90AF000020" + "35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D" + "00", .bytes(card.hexString + "9100")),
        ])
        let session = try await DESFireEV2Authentication.authenticate(keyNumber: 0, key: key, rndA: rndA, transport: transport)
        #expect(session.transactionIdentifier == [0x01, 0x02, 0x03, 0x04])
        #expect(session.encryptionKey == Self.hex("1309C877509E5A215007FF0ED19CA564"))
        #expect(session.macKey == Self.hex("4C6626F5E72EA694202139295C7A7FC7"))
        transport.verifyAllConsumed()
        let keys = try DESFireEV2Authentication.sessionKeys(key: key, rndA: rndA, rndB: Self.hex("B9E2FC789B64BF237CCCAA20EC7E6E48"))
        #expect(keys.encryption == session.encryptionKey && keys.mac == session.macKey)
    }

    /// The EV2 session keys (SV1 / SV2 through AES-CMAC; the same derivation after EV2First and NonFirst)
    /// against AN12343's worked example, pages 33–34 (key 00…00, RndA B04D0787…, RndB FA659AD0…), as
    /// Proxmark3's `client/src/mifare/desfiretest.c` (`TestEV2SessionKeys`) quotes it: a second published
    /// vector besides AN12196's. AN12343 itself was not at hand here.
    @Test func sessionKeysFollowAN12343() throws {
        let keys = try DESFireEV2Authentication.sessionKeys(
            key: [UInt8](repeating: 0, count: 16), rndA: Self.hex("B04D0787C93EE0CC8CACC8E86F16C6FE"),
            rndB: Self.hex("FA659AD0DCA738DD65DC7DC38612AD81"))
        #expect(keys.encryption == Self.hex("63DC07286289A7A6C0334CA31C314A04"))
        #expect(keys.mac == Self.hex("774F26743ECE6AF5033B6AE8522946F6"))
    }

    /// AuthenticateEV2NonFirst (AN12343 "AuthenticateEV2NonFirst"): its first two passes are EV2First's, so AN12196 §3.3's
    /// numbers hold (key 00…00, RndA 13C5DB8A…, E(K, RndB) A04C1242…, the reader's proof 35C3E05A…);
    /// the card's last answer is E(K, RndA<<<8) alone (built here). The session keys are NXP's, the TI
    /// is the running transaction's.
    ///
    /// No published NonFirst worked example is used: one exists in AN12196 Rev. 2.0 (2025, Table 23, as a
    /// third-party project's notes cite it), but neither that revision, nor AN12343, nor AN12753 could be
    /// read here (searched 2026-12-07: the search corpora hold AN12196 Rev. 1.8 and AN12343's title pages
    /// only; Proxmark3's desfiretest.c quotes AN12343's EV2 session keys, pages 33–34, used above, and no
    /// NonFirst exchange; libfreefare has no EV2; Amperstrand/ntag424-vectors has no NonFirst vector).
    @Test func ev2NonFirstFollowsAN12196() async throws {
        let key = [UInt8](repeating: 0, count: 16)
        let rndA = Self.hex("13C5DB8A5930439FC3DEF9A4C675360F")
        let card = try AES.cbc(encrypt: true, key: key, data: Array(rndA[1...]) + [rndA[0]])
        let transport = ScriptedAPDUTransport([
            ("9077000001" + "00" + "00", .bytes("A04C124213C186F22399D33AC2A30215" + "91AF")),
            ("90AF000020" + "35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D" + "00", .bytes(card.hexString + "9100")),
        ])
        let session = try await DESFireEV2Authentication.authenticateNonFirst(
            keyNumber: 0, key: key, rndA: rndA, transactionIdentifier: [0x9D, 0x00, 0xC4, 0xDF], transport: transport)
        #expect(session.transactionIdentifier == [0x9D, 0x00, 0xC4, 0xDF])
        #expect(session.encryptionKey == Self.hex("1309C877509E5A215007FF0ED19CA564"))
        #expect(session.macKey == Self.hex("4C6626F5E72EA694202139295C7A7FC7"))
        transport.verifyAllConsumed()
        // The secure session goes on with the running counter.
        let running = DESFireSecureSession(.ev2(encryptionKey: [UInt8](repeating: 1, count: 16), macKey: [UInt8](repeating: 2, count: 16),
                                                transactionIdentifier: [0x9D, 0x00, 0xC4, 0xDF], commandCounter: 7))
        guard case let .ev2(encryption, mac, ti, counter)? = running.continued(with: session)?.kind else { Issue.record("not EV2"); return }
        #expect(encryption == session.encryptionKey && mac == session.macKey && ti == [0x9D, 0x00, 0xC4, 0xDF] && counter == 7)
        // A wrong RndA' is a wrong key.
        let forged = ScriptedAPDUTransport([
            ("9077000001" + "00" + "00", .bytes("A04C124213C186F22399D33AC2A30215" + "91AF")),
            ("90AF000020" + "35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D" + "00",
             .bytes("000102030405060708090A0B0C0D0E0F" + "9100")),
        ])
        await #expect(throws: NFCError.authenticationFailed) {
            try await DESFireEV2Authentication.authenticateNonFirst(keyNumber: 0, key: key, rndA: rndA, transactionIdentifier: [1, 2, 3, 4],
                                                                    transport: forged)
        }
    }

    @Test func aWrongKeyOrARefusalIsNamed() async throws {
        let key = [UInt8](repeating: 0, count: 16)
        let rndA = Self.hex("13C5DB8A5930439FC3DEF9A4C675360F")
        let refused = ScriptedAPDUTransport([("9071000002000000", .bytes("9140"))])
        await #expect(throws: NFCError.desfireError(status: 0x40)) {
            try await DESFireEV2Authentication.authenticate(keyNumber: 0, key: key, rndA: rndA, transport: refused)
        }
        let wrong = ScriptedAPDUTransport([
            ("9071000002000000", .bytes("A04C124213C186F22399D33AC2A30215" + "91AF")),
            ("90AF000020" + "35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D" + "00", .bytes("91AE")),
        ])
        await #expect(throws: NFCError.authenticationFailed) {
            try await DESFireEV2Authentication.authenticate(keyNumber: 0, key: key, rndA: rndA, transport: wrong)
        }
    }
}
