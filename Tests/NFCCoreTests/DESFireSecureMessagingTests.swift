import NFCCore
import Testing

/// DESFire key diversification, authentication and secure messaging against published vectors:
/// NXP AN10922 §2.2.1 (AES-128 diversification), NXP AN12196 §5.3 (CommMode.MAC), §6.10 (EV2First with
/// key 3) and §7.3 (CommMode.FULL answer), and the EV1 AES trace of "DESFire EV1 Communication Examples"
/// (Elmue, published with github.com/sotechcllc/RFDoorLock: AuthenticateAES, CMAC chain, CRC32).
@Suite struct DESFireSecureMessagingTests {
    static func hex(_ text: String) -> [UInt8] { [UInt8](hex: text) ?? [] }

    /// AN10922 §2.2.1: master key 00112233…EEFF, UID 04782E21801D80, AID 3042F5, system identifier
    /// 4E585020416275 ("NXP Abu") → A8DD63A3B89D54B37CA802473FDA9175.
    @Test func an10922AES128Diversification() throws {
        let input = DESFireKeyDiversification.input(uid: Self.hex("04782E21801D80"), aid: Self.hex("3042F5"),
                                                    systemIdentifier: Self.hex("4E585020416275"))
        #expect(input == Self.hex("04782E21801D803042F54E585020416275"))
        #expect(try DESFireKeyDiversification.aes128(masterKey: Self.hex("00112233445566778899AABBCCDDEEFF"), input: input)
                    == Self.hex("A8DD63A3B89D54B37CA802473FDA9175"))
        // D is two blocks whatever M's length (§2.2): a short M is not RFC 4493's one-block CMAC.
        let short = try DESFireKeyDiversification.aes128(masterKey: Self.hex("00112233445566778899AABBCCDDEEFF"), input: [0x42])
        #expect(short != (try AES.cmac(key: Self.hex("00112233445566778899AABBCCDDEEFF"), message: [0x01, 0x42])))
        #expect(throws: NFCError.self) { try DESFireKeyDiversification.aes128(masterKey: [UInt8](repeating: 0, count: 16), input: []) }
        #expect(throws: NFCError.self) {
            try DESFireKeyDiversification.aes128(masterKey: [UInt8](repeating: 0, count: 16), input: [UInt8](repeating: 1, count: 32))
        }
    }

    /// AN12196 §5.3: GetFileSettings of file 02 in CommMode.MAC, SesAuthMACKey 8248134A…, TI 7A21085E,
    /// CmdCtr 0: the command's MACt is 6597A457C8CD442C, the answer's 2A474282E7A47986 is checked, and a
    /// changed byte is an integrity error.
    @Test func an12196CommModeMAC() throws {
        let kind = DESFireSecureSession.Kind.ev2(encryptionKey: [UInt8](repeating: 0, count: 16),
                                                 macKey: Self.hex("8248134A386E86EB7FAF54A52E536CB6"),
                                                 transactionIdentifier: Self.hex("7A21085E"), commandCounter: 0)
        var session = DESFireSecureSession(kind)
        #expect(try session.command(0xF5, header: [0x02], mode: .mac) == Self.hex("02 6597A457C8CD442C"))
        let data = Self.hex("0040EEEE000100D1FE001F00004400004400002000006A0000")
        #expect(try session.response(data + Self.hex("2A474282E7A47986"), mode: .mac) == data)
        if case let .ev2(_, _, _, counter) = session.kind { #expect(counter == 1) } else { Issue.record("not an EV2 session") }

        var corrupted = DESFireSecureSession(kind)
        _ = try corrupted.command(0xF5, header: [0x02], mode: .mac)
        var altered = data + Self.hex("2A474282E7A47986")
        altered[3] ^= 0x01
        #expect(throws: NFCError.integrityError("the answer's MACt does not match its data")) {
            try corrupted.response(altered, mode: .mac)
        }
    }

    /// AN12196 §7.3: GetCardUID (51h) in CommMode.FULL: the command's MACt 8E2C155ADDA99BE3; the answer
    /// 70756055…9CD6 ‖ 595F672298EA41B7 deciphers to the UID 04958CAA5C5E80.
    @Test func an12196CommModeFullAnswer() throws {
        var session = DESFireSecureSession(.ev2(encryptionKey: Self.hex("2B4D963C014DC36F24F69A50A394F875"),
                                                macKey: Self.hex("379D32130CE61705DD5FD8C36B95D764"),
                                                transactionIdentifier: Self.hex("DF055522"), commandCounter: 0))
        #expect(try session.command(0x51, header: [], mode: .full) == Self.hex("8E2C155ADDA99BE3"))
        #expect(try session.response(Self.hex("70756055688505B52A5E26E59E329CD6595F672298EA41B7"), mode: .full)
                    == Self.hex("04958CAA5C5E80"))
    }

    /// AN12196 §6.10: AuthenticateEV2First with key 3 (all zero), RndA B98F4C50…: the proof, TI 7614281A
    /// and both session keys are NXP's.
    @Test func an12196EV2FirstWithKey3() async throws {
        let transport = ScriptedAPDUTransport([
            ("9071000002030000", .bytes("B875CEB0E66A6C5CD00898DC371F92D1" + "91AF")),
            ("90AF000020" + "FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1" + "00",
             .bytes("0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A" + "9100")),
        ])
        let session = try await DESFireEV2Authentication.authenticate(
            keyNumber: 3, key: [UInt8](repeating: 0, count: 16), rndA: Self.hex("B98F4C50CF1C2E084FD150E33992B048"), transport: transport)
        #expect(session.transactionIdentifier == Self.hex("7614281A"))
        #expect(session.encryptionKey == Self.hex("7A93D6571E4B180FCA6AC90C9A7488D4"))
        #expect(session.macKey == Self.hex("FC4AF159B62E549B5812394CAB1918CC"))
        transport.verifyAllConsumed()
    }

    /// EV1 AuthenticateAES (key 1 = 10 18 20 … 88) as the Elmue trace shows it, native frames: the proof
    /// and the session key 40E7D271 626FFBD4 9C530E3D 304F5B17.
    @Test func ev1AuthenticateAESFollowsTheTrace() async throws {
        let transport = ScriptedAPDUTransport([
            ("AA01", .bytes("AF" + "B351CB2465D4F33AC627FD6E87A168F2")),
            ("AF" + "044B6CAC343A0865895149649CA8DDE1F5AC4EC67BD208900AF02F049E05F0B0", .bytes("00" + "A2EE144B1012FBEB7B2F11132D95A454")),
        ])
        let channel = DESFireChannel(transport: transport, framing: .native)
        let session = try await DESFireEV1Authentication.authenticate(
            keyNumber: 1, key: Self.hex("10182028303840485058606870788088"), rndA: Self.hex("40E7D27174CBA675E8EFBAB99C530E3D"),
            channel: channel)
        guard case let .ev1(key, iv) = session.kind else { Issue.record("not an EV1 session"); return }
        #expect(key == Self.hex("40E7D271626FFBD49C530E3D304F5B17"))
        #expect(iv == [UInt8](repeating: 0, count: 16))
        transport.verifyAllConsumed()

        let refused = ScriptedAPDUTransport([
            ("AA01", .bytes("AF" + "B351CB2465D4F33AC627FD6E87A168F2")),
            ("AF" + "044B6CAC343A0865895149649CA8DDE1F5AC4EC67BD208900AF02F049E05F0B0", .bytes("AE")),
        ])
        await #expect(throws: NFCError.authenticationFailed) {
            try await DESFireEV1Authentication.authenticate(
                keyNumber: 1, key: Self.hex("10182028303840485058606870788088"), rndA: Self.hex("40E7D27174CBA675E8EFBAB99C530E3D"),
                channel: DESFireChannel(transport: refused, framing: .native))
        }
    }

    /// The trace's ReadFileData (file 5, 48 bytes, plain) in the EV1 AES session: from the IV the last
    /// write left, the command's CMAC is 433303AB…7A70 and the answer's 8 bytes 4C65F1F842262BAC check.
    @Test func ev1CMACChainFollowsTheTrace() throws {
        let key = Self.hex("40E7D271626FFBD49C530E3D304F5B17")
        var session = DESFireSecureSession(.ev1(key: key, iv: Self.hex("3E0AED986B8B0F37F64D79B911A5A6C9")))
        #expect(try session.command(0xBD, header: Self.hex("05000000300000"), mode: .plain) == Self.hex("05000000300000"))
        guard case let .ev1(_, commandIV) = session.kind else { return }
        #expect(commandIV == Self.hex("433303AB3CFFA758BF7EB16FFEC47A70"))
        let data = (0..<48).map { UInt8($0) }
        #expect(try session.response(data + Self.hex("4C65F1F842262BAC"), mode: .plain) == data)
        guard case let .ev1(_, answerIV) = session.kind else { return }
        #expect(answerIV == Self.hex("4C65F1F842262BAC65FFBF61CF71FD06"))
        var wrong = DESFireSecureSession(.ev1(key: key, iv: commandIV))
        #expect(throws: NFCError.self) { try wrong.response(data + Self.hex("4C65F1F842262BAD"), mode: .mac) }
    }

    /// DESFire's CRC32 against the trace's ChangeKey cryptograms: over C4 00 ‖ new key ‖ version 10
    /// → 6BE6C6D2h, and over a new key alone → 1979E3BFh (sent least significant byte first).
    @Test func crc32FollowsTheTrace() {
        #expect(DESFireSecureSession.crc32(Self.hex("C400" + "00102030405060708090A0B0B0A09080" + "10")) == Self.hex("D2C6E66B"))
        #expect(DESFireSecureSession.crc32(Self.hex("00102030405060708090A0B0B0A09080")) == Self.hex("BFE37919"))
    }

    /// An EV1 fully enciphered answer: E(data ‖ CRC32(data ‖ 00) ‖ 0…) from the IV deciphers to the data;
    /// a wrong CRC is an integrity error, never data.
    @Test func ev1FullModeChecksTheCRC() throws {
        let key = Self.hex("40E7D271626FFBD49C530E3D304F5B17")
        let iv = Self.hex("433303AB3CFFA758BF7EB16FFEC47A70")
        let data = Self.hex("0102030405060708090A0B0C0D0E0F1011")
        var plain = data + DESFireSecureSession.crc32(data + [0x00])
        plain += [UInt8](repeating: 0, count: (16 - plain.count % 16) % 16)
        let wire = try AES.cbc(encrypt: true, key: key, iv: iv, data: plain)
        var session = DESFireSecureSession(.ev1(key: key, iv: iv))
        #expect(try session.response(wire, mode: .full, expectedLength: 17) == data)
        var searching = DESFireSecureSession(.ev1(key: key, iv: iv))
        #expect(try searching.response(wire, mode: .full) == data)
        var bad = plain
        bad[17] ^= 0xFF
        var broken = DESFireSecureSession(.ev1(key: key, iv: iv))
        #expect(throws: NFCError.self) {
            try broken.response(try AES.cbc(encrypt: true, key: key, iv: iv, data: bad), mode: .full, expectedLength: 17)
        }
    }

    /// AuthenticateISO with 2K3DES key 0 (00 10 20 31 … 90 80, the trace's): the proof and the session key
    /// 520E3C90 BCD82896 F6A200C4 46322CAE (key-version bits cleared).
    @Test func isoAuthentication2K3DESFollowsTheTrace() async throws {
        let transport = ScriptedAPDUTransport([
            ("1A00", .bytes("AF" + "B2955799 26155AE3")),
            ("AF" + "70F349740C945DAE159BA9FEDBCC461A", .bytes("00" + "B8FD7FE56B241FC4")),
        ])
        let session = try await DESFireISOAuthentication.authenticate(
            keyNumber: 0, key: Self.hex("00102031405060708090A0B0B0A09080"), rndA: Self.hex("530E3D90F7A201C4"),
            channel: DESFireChannel(transport: transport, framing: .native))
        guard case let .iso(key, _) = session.kind else { Issue.record("not an ISO session"); return }
        #expect(key == Self.hex("520E3C90BCD82896F6A200C446322CAE"))
        transport.verifyAllConsumed()
    }

    /// AuthenticateISO with the all-zero DES key, the trace's "DES" exchange (RndA 849B36C5F8BF4A09,
    /// E(RndB) 5D994CE085F24089): the proof 21D0AD5F… and the 8-byte DES session key 849A36C4 4ED0B658.
    @Test func isoAuthenticationDESFollowsTheTrace() async throws {
        let transport = ScriptedAPDUTransport([
            ("1A00", .bytes("AF" + "5D994CE085F24089")),
            ("AF" + "21D0AD5F2FD97454A746CC80567F1B1C", .bytes("00" + "913C6DED84221C41")),
        ])
        let session = try await DESFireISOAuthentication.authenticate(
            keyNumber: 0, key: [UInt8](repeating: 0, count: 16), rndA: Self.hex("849B36C5F8BF4A09"),
            channel: DESFireChannel(transport: transport, framing: .native))
        guard case let .iso(key, _) = session.kind else { Issue.record("not an ISO session"); return }
        #expect(key == Self.hex("849A36C44ED0B658"))
        transport.verifyAllConsumed()
    }

    /// AuthenticateISO with a 3K3DES key (00 10 20 31 … 10 00): 16-byte random numbers, session key
    /// 02FE6C00 F4D65642 30348A66 3C12FA8A AE7A785C 46CE7A2E.
    @Test func isoAuthentication3K3DESFollowsTheTrace() async throws {
        let transport = ScriptedAPDUTransport([
            ("1A00", .bytes("AF" + "FA2FB9A17B359D034DF3EB1C4179207E")),
            ("AF" + "7BF9E1AC2D7C2836112E642D398FBAEF5CA61CC3A629FA8BD52F43F9D931C043", .bytes("00" + "1E3051B59BA31E4CEF64BBE8721B7BD6")),
        ])
        let session = try await DESFireISOAuthentication.authenticate(
            keyNumber: 0, key: Self.hex("00102031405060708090A0B0B0A09080" + "7060504030201000"),
            rndA: Self.hex("03FE6D00A79231348B6635A8AF7A795C"), channel: DESFireChannel(transport: transport, framing: .native))
        guard case let .iso(key, _) = session.kind else { Issue.record("not an ISO session"); return }
        #expect(key == Self.hex("02FE6C00F4D6564230348A663C12FA8AAE7A785C46CE7A2E"))
        transport.verifyAllConsumed()
    }

    /// The 3DES CMAC chain after AuthenticateISO: GetKeyVersion's command CMAC and its answer's, for a
    /// 2K3DES and a 3K3DES session of the trace.
    @Test func isoCMACChainFollowsTheTrace() throws {
        var two = DESFireSecureSession(.iso(key: Self.hex("DCB096C2A40E78E0A0E47A96F42E62AE"), iv: [UInt8](repeating: 0, count: 8)))
        _ = try two.command(0x64, header: [0x00], mode: .plain)
        if case let .iso(_, iv) = two.kind { #expect(iv == Self.hex("8CB24F61B814A956")) }
        #expect(try two.response(Self.hex("10" + "3345AA95F2D956CF"), mode: .plain) == [0x10])
        var three = DESFireSecureSession(.iso(key: Self.hex("D0542A865814D2504E9A187CC06668C09C70568258227AFC"),
                                              iv: [UInt8](repeating: 0, count: 8)))
        _ = try three.command(0x64, header: [0x00], mode: .plain)
        if case let .iso(_, iv) = three.kind { #expect(iv == Self.hex("54BF7931E5181A08")) }
        #expect(try three.response(Self.hex("10" + "AD4A52B1E31CC741"), mode: .mac) == [0x10])
        #expect(throws: NFCError.self) { try three.response(Self.hex("10" + "AD4A52B1E31CC741"), mode: .mac) }
    }
}
