import NFCCore
import PN532Sim
import Testing

/// Identify, then dump through ``TagDumper``: the Classic, Type 4 and FeliCa routes.
@Suite struct TagDumperFamilyTests {
    @Test func classic1KIdentifiesAndDumps() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF])
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .mifareClassic1K)
        let dump = try await TagDumper.dump(info: info, transport: transport)
        #expect(dump.blocks.count == 64)
        #expect(dump.cardInfo.type == .mifareClassic1K)
    }

    @Test func classicWithUserKeys() async throws {
        let tag = try VirtualClassicTag(model: .classic4K, uid: [0xDE, 0xAD, 0xBE, 0xEF])
        let key: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        tag.setKeys(sector: 39, a: key, b: key, accessBits: [0x7F, 0x07, 0x88, 0x40])
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        let partial = try await TagDumper.dump(info: info, transport: transport)
        #expect(partial.blocks.count == 240)
        var options = DumpOptions()
        options.families.classicKeys = try ClassicKeyDictionary(userKeys: [key])
        let full = try await TagDumper.dump(info: info, transport: transport, options: options)
        #expect(full.blocks.count == 256)
    }

    @Test func type4IdentifiesAndDumps() async throws {
        let tag = try VirtualType4Tag(uid: [0x08, 0x12, 0x34, 0x56], ndef: Type4Tests.hi)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        let dump = try await TagDumper.dump(info: info, transport: transport)
        #expect(dump.ndefMessage == Type4Tests.hi)
        #expect(dump.files.count == 2)
    }

    @Test func feliCaLiteSIdentifiesAndDumps() async throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: FeliCaTests.idm, ndef: FeliCaTests.message)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .felicaLiteS)
        let dump = try await TagDumper.dump(info: info, transport: transport)
        #expect(dump.ndefMessage == FeliCaTests.message)
        #expect(dump.fact("System Code") == "88B4")
    }

    @Test func plusSL3IsNotDumpedAsClassic() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF])
        let info = CardInfo(type: .mifarePlusSL3_2K, uid: tag.target.uid)
        await #expect(throws: NFCError.unsupportedOperation("Dumping MIFARE Plus 2K (SL3) is not supported")) {
            try await TagDumper.dump(info: info, transport: VirtualTagTransport(tag: tag))
        }
    }
}
