import NFCCore
import Testing

@Suite struct ISO7816Tests {
    @Test func builders() throws {
        #expect(try CommandAPDU.select(aid: Type4NDEF.applicationID).bytes().hexString == "00A4040007D276000085010100")
        #expect(try CommandAPDU.selectFile(id: [0xE1, 0x03]).bytes().hexString == "00A4000C02E103")
        #expect(try CommandAPDU.readBinary(offset: 0, length: 15).bytes().hexString == "00B000000F")
        #expect(try CommandAPDU.readBinary(offset: 0x1234, length: 256).bytes().hexString == "00B0123400")
        #expect(try CommandAPDU.updateBinary(offset: 2, data: [0xAA, 0xBB]).bytes().hexString == "00D6000202AABB")
        #expect(try CommandAPDU.getResponse(length: 0x10).bytes().hexString == "00C0000010")
        #expect(try CommandAPDU.desfire(command: 0x6A).bytes().hexString == "906A000000")
        #expect(throws: NFCError.self) { try CommandAPDU.readBinary(offset: 0x8000, length: 1) }
        #expect(throws: NFCError.self) { try CommandAPDU(ins: 0xD6, data: [UInt8](repeating: 0, count: 256)).bytes() }
        #expect(throws: NFCError.self) { try CommandAPDU(ins: 0xB0, le: 0).bytes() }
    }

    @Test func responseParsing() throws {
        let ok = try ResponseAPDU(raw: [0x01, 0x02, 0x90, 0x00])
        #expect(ok.data == [0x01, 0x02])
        #expect(ok.isSuccess)
        #expect(try ResponseAPDU(raw: [0x6A, 0x82]).statusWord == 0x6A82)
        #expect(throws: NFCError.invalidResponse([0x90])) { try ResponseAPDU(raw: [0x90]) }
        #expect(throws: NFCError.unexpectedStatusWord(0x6A, 0x82)) { try ResponseAPDU(raw: [0x6A, 0x82]).requireSuccess() }
    }

    @Test func followsGetResponseChaining() async throws {
        let transport = ScriptedAPDUTransport([
            ("00B000000F", .bytes("000F2000FF61 08")),
            ("00C0000008", .bytes("00FF0406E1046108")),
            ("00C0000008", .bytes("00FE00009000")),
        ])
        let response = try await transport.send(try .readBinary(offset: 0, length: 15))
        #expect(response.isSuccess)
        #expect(response.data.hexString == "000F2000FF00FF0406E10400FE0000")
        transport.verifyAllConsumed()
    }

    @Test func retriesWithTheLeTheCardAsksFor() async throws {
        let transport = ScriptedAPDUTransport([
            ("00B0000010", .bytes("6C02")),
            ("00B0000002", .bytes("00099000")),
        ])
        #expect(try await transport.send(try .readBinary(offset: 0, length: 16)).data == [0x00, 0x09])
        transport.verifyAllConsumed()
    }

    @Test func endlessGetResponseIsCut() async throws {
        let script = [("00B0000001", ScriptedAPDUTransport.Reply.bytes("6101"))]
            + (0..<64).map { _ in ("00C0000001", ScriptedAPDUTransport.Reply.bytes("AA6101")) }
        let transport = ScriptedAPDUTransport(script)
        await #expect(throws: NFCError.invalidResponse([0x61, 0x01])) {
            try await transport.send(try .readBinary(offset: 0, length: 1))
        }
    }
}
