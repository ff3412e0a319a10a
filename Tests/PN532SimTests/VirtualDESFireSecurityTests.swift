import Testing

@testable import PN532Sim

/// The simulator's own DESFire authentication and secure messaging (``VirtualDESFireSecurity``, on
/// ``SimulatedCipher``) against published vectors: RFC 4493 §4 (CMAC), NXP AN12196 §6.6 (EV2First
/// session keys), §5.3 (CommMode.MAC) and §7.3 (CommMode.FULL), and the EV1 AES trace of "DESFire EV1
/// Communication Examples" (Elmue, with github.com/sotechcllc/RFDoorLock).
@Suite struct VirtualDESFireSecurityTests {
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
    }

    @Test func cmacFollowsRFC4493() {
        let key = Self.hex("2B7E151628AED2A6ABF7158809CF4F3C")
        #expect(SimulatedCipher.cmac(key, []) == Self.hex("BB1D6929E95937287FA37D129B756746"))
        #expect(SimulatedCipher.cmac(key, Self.hex("6BC1BEE22E409F96E93D7E117393172A")) == Self.hex("070A16B46B4D4144F79BDD9DD04A287C"))
        #expect(SimulatedCipher.cmac(key, Self.hex("6BC1BEE22E409F96E93D7E117393172AAE2D8A571E03AC9C9EB76FAC45AF8E5130C81C46A35CE411"))
                    == Self.hex("DFA66747DE9AE63030CA32611497C827"))
    }

    /// AN12196 §6.6: key 0 all zero, RndB B9E2FC78…, the reader's proof 35C3E05A…: the session keys
    /// 1309C877… and 4C6626F5…, and the answer deciphers to TI ‖ RndA<<<8.
    @Test func ev2FirstFollowsAN12196() {
        let key = [UInt8](repeating: 0, count: 16)
        let done = VirtualDESFireSecurity.finish(
            proof: Self.hex("35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D"), method: .ev2First, keyNumber: 0, key: key,
            rndB: Self.hex("B9E2FC789B64BF237CCCAA20EC7E6E48"), chain: [])
        guard case let .ev2(_, encryptionKey, macKey, ti, counter)? = done?.session else { Issue.record("refused"); return }
        #expect(encryptionKey == Self.hex("1309C877509E5A215007FF0ED19CA564"))
        #expect(macKey == Self.hex("4C6626F5E72EA694202139295C7A7FC7"))
        #expect(counter == 0)
        let plain = SimulatedCipher.cbcDecrypt(key, iv: VirtualDESFireSecurity.zero, done?.answer ?? [])
        #expect(plain.map { Array($0[0..<4]) } == ti)
        #expect(plain.map { Array($0[4..<20]) } == Self.hex("C5DB8A5930439FC3DEF9A4C675360F13"))
        // A proof that does not hold RndB<<<8 is refused.
        #expect(VirtualDESFireSecurity.finish(proof: [UInt8](repeating: 0, count: 32), method: .ev2First, keyNumber: 0, key: key,
                                              rndB: Self.hex("B9E2FC789B64BF237CCCAA20EC7E6E48"), chain: []) == nil)
    }

    /// The EV1 trace: AuthenticateAES with key 1 (10 18 20 … 88), RndB 626FFBD4…: the card's answer
    /// A2EE144B… and the session key 40E7D271 626FFBD4 9C530E3D 304F5B17.
    @Test func authenticateAESFollowsTheEV1Trace() {
        let done = VirtualDESFireSecurity.finish(
            proof: Self.hex("044B6CAC343A0865895149649CA8DDE1F5AC4EC67BD208900AF02F049E05F0B0"), method: .aes, keyNumber: 1,
            key: Self.hex("10182028303840485058606870788088"), rndB: Self.hex("626FFBD45CAF334ACCA45599304F5B17"),
            chain: Self.hex("B351CB2465D4F33AC627FD6E87A168F2"))
        #expect(done?.answer == Self.hex("A2EE144B1012FBEB7B2F11132D95A454"))
        #expect(done?.session == .ev1(keyNumber: 1, key: Self.hex("40E7D271626FFBD49C530E3D304F5B17"), iv: VirtualDESFireSecurity.zero))
    }

    /// The trace's ReadFileData of 48 bytes: the command's CMAC moves the IV to 433303AB…, the answer
    /// carries 4C65F1F842262BAC.
    @Test func ev1AnswerCMACFollowsTheTrace() {
        let key = Self.hex("40E7D271626FFBD49C530E3D304F5B17")
        var session = VirtualDESFireSecurity.Session.ev1(keyNumber: 1, key: key, iv: Self.hex("3E0AED986B8B0F37F64D79B911A5A6C9"))
        #expect(VirtualDESFireSecurity.acceptCommand(&session, instruction: 0xBD, data: Self.hex("05000000300000"), mode: 0) != nil)
        #expect(session == .ev1(keyNumber: 1, key: key, iv: Self.hex("433303AB3CFFA758BF7EB16FFEC47A70")))
        let data = (0..<48).map { UInt8($0) }
        #expect(VirtualDESFireSecurity.secureAnswer(&session, data: data, mode: 0, corrupt: false) == data + Self.hex("4C65F1F842262BAC"))
        #expect(VirtualDESFireSecurity.crc32(Self.hex("C400" + "00102030405060708090A0B0B0A09080" + "10")) == Self.hex("D2C6E66B"))
    }

    /// AN12196 §5.3 (GetFileSettings in CommMode.MAC) and §7.3 (GetCardUID in CommMode.FULL): the
    /// commands' MACt accepted, a wrong one refused, the answers built byte for byte as NXP's.
    @Test func ev2SecureMessagingFollowsAN12196() {
        var mac = VirtualDESFireSecurity.Session.ev2(keyNumber: 0, encryptionKey: [UInt8](repeating: 0, count: 16),
                                                     macKey: Self.hex("8248134A386E86EB7FAF54A52E536CB6"),
                                                     transactionIdentifier: Self.hex("7A21085E"), counter: 0)
        #expect(VirtualDESFireSecurity.acceptCommand(&mac, instruction: 0xF5, data: Self.hex("02 6597A457C8CD442D"), mode: 1) == nil)
        #expect(VirtualDESFireSecurity.acceptCommand(&mac, instruction: 0xF5, data: Self.hex("02 6597A457C8CD442C"), mode: 1) == [0x02])
        let settings = Self.hex("0040EEEE000100D1FE001F00004400004400002000006A0000")
        #expect(VirtualDESFireSecurity.secureAnswer(&mac, data: settings, mode: 1, corrupt: false) == settings + Self.hex("2A474282E7A47986"))

        var full = VirtualDESFireSecurity.Session.ev2(keyNumber: 0, encryptionKey: Self.hex("2B4D963C014DC36F24F69A50A394F875"),
                                                      macKey: Self.hex("379D32130CE61705DD5FD8C36B95D764"),
                                                      transactionIdentifier: Self.hex("DF055522"), counter: 0)
        #expect(VirtualDESFireSecurity.acceptCommand(&full, instruction: 0x51, data: Self.hex("8E2C155ADDA99BE3"), mode: 3) == [])
        #expect(VirtualDESFireSecurity.secureAnswer(&full, data: Self.hex("04958CAA5C5E80"), mode: 3, corrupt: false)
                    == Self.hex("70756055688505B52A5E26E59E329CD6595F672298EA41B7"))
    }

    /// AuthenticateISO, the EV1 trace's 2K3DES exchange (key 00 10 20 31 … 90 80, RndA 530E3D90F7A201C4,
    /// E(RndB) B295579926155AE3): the reader's proof 70F34974… is accepted and answered B8FD7FE56B241FC4,
    /// the trace's bytes; the session key interleaves RndA and RndB (bits as they are: the card ignores
    /// DES parity bits).
    @Test func authenticateISOFollowsTheEV1Trace() {
        let done = VirtualDESFireSecurity.finish(
            proof: Self.hex("70F349740C945DAE159BA9FEDBCC461A"), method: .iso, keyNumber: 0,
            key: Self.hex("00102031405060708090A0B0B0A09080"), rndB: Self.hex("BCD8299747332DAF"), chain: Self.hex("B295579926155AE3"))
        #expect(done?.answer == Self.hex("B8FD7FE56B241FC4"))
        #expect(done?.session == .iso(keyNumber: 0, key: Self.hex("530E3D90BCD82997F7A201C447332DAF"), iv: VirtualDESFireSecurity.zero8))
    }

    /// The legacy Authenticate as a card answered it on NXP's MIFARE forum ("Desfire Ev1 diverse
    /// questions", reply of 16 August 2018, mifare.net/support/forum/reply/28755): all-zero key, the
    /// reader's 8CA64DE9C1B123A7EDBFCE53486B6D00 is accepted and answered 8CA64DE9C1B123A7.
    @Test func legacyAuthenticateFollowsTheForumExchange() {
        let key = [UInt8](repeating: 0, count: 16)
        #expect(SimulatedTripleDES.block(key, Self.hex("3BA4A29C8D922F1E")) == Self.hex("A48300FB5E29FD78"), "E(K, RndB) as the card sent it")
        let done = VirtualDESFireSecurity.finish(proof: Self.hex("8CA64DE9C1B123A7EDBFCE53486B6D00"), method: .legacy, keyNumber: 0,
                                                 key: key, rndB: Self.hex("3BA4A29C8D922F1E"), chain: [])
        #expect(done?.answer == Self.hex("8CA64DE9C1B123A7"))
        #expect(done?.session == .legacy(keyNumber: 0, key: Self.hex("000000003BA4A29C000000003BA4A29C")))
        #expect(VirtualDESFireSecurity.finish(proof: Self.hex("8CA64DE9C1B123A7EDBFCE53486B6D01"), method: .legacy, keyNumber: 0,
                                              key: key, rndB: Self.hex("3BA4A29C8D922F1E"), chain: []) == nil)
    }

    /// The 3DES CMAC: the EV1 trace's GetKeyVersion after AuthenticateISO (its command's CMAC from a
    /// zero IV under session key DCB096C2… is 8CB24F61B814A956) and NIST SP 800-38B Appendix D.4
    /// (three-key TDEA, example 1: the empty message under 8AA83BF8CBDA1062 0BC1BF19FBB6CD58
    /// BC313D4A371CA8B5 gives B7A688E122FFAF95). CRC_A: ISO/IEC 14443-3 Annex B (00 00 → A0 1E sent
    /// low byte first; 30 04, READ page 4, → 26 EE).
    @Test func tripleDESCMACAndCRCAFollowTheirVectors() {
        #expect(SimulatedTripleDES.cmac(Self.hex("DCB096C2A40E78E0A0E47A96F42E62AE"), [0x64, 0x00]) == Self.hex("8CB24F61B814A956"))
        #expect(SimulatedTripleDES.cmac(Self.hex("8AA83BF8CBDA10620BC1BF19FBB6CD58BC313D4A371CA8B5"), []) == Self.hex("B7A688E122FFAF95"))
        #expect(AirChecksum.crcA([0x00, 0x00]) == [0xA0, 0x1E])
        #expect(AirChecksum.crcA([0x30, 0x04]) == [0x26, 0xEE])
    }
}
