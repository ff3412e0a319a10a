import NFCCore
import PN532Sim
import Testing

/// A transport that only exchanges frames: no APDUs, no Crypto1.
private struct FrameOnlyTransport: TagTransport {
    let target: Target
    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] { throw NFCError.timeout }
    func reselect() async throws {}
}

/// ``NDEFReader`` on Type 4, FeliCa and the families it does not read.
@Suite struct NDEFReaderFamilyTests {
    // MARK: Type 4

    @Test func type4ReadsTheNDEFFileOnly() async throws {
        let tag = try VirtualType4Tag(uid: Type4Tests.uid, ndef: Type4Tests.hello)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        let before = transport.sentCommands.count
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message(Type4Tests.hello))
        // Identification left the NDEF application and its CC selected (issue 25): SELECT NDEF file,
        // READ NLEN, READ message (MLe 255).
        let apdus = transport.sentCommands.dropFirst(before)
        #expect(apdus.map { $0.prefix(2).hexString } == ["00A4", "00B0", "00B0"])
        // Without that hand-off (another identification's info): the whole procedure, SELECT
        // application, SELECT CC, READ CC, then the NDEF file.
        let again = transport.sentCommands.count
        #expect(try await NDEFReader.read(info: type4Info, transport: transport) == .message(Type4Tests.hello))
        let full = transport.sentCommands.dropFirst(again)
        #expect(full.map { $0.prefix(2).hexString } == ["00A4", "00A4", "00B0", "00A4", "00B0", "00B0"])
    }

    @Test func type4EmptyMessageIsAnEmptyMessage() async throws {
        let tag = try VirtualType4Tag(uid: Type4Tests.uid)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message([]))
    }

    private let type4Info = CardInfo(type: .type4NDEF, uid: Type4Tests.uid, atqa: [0x00, 0x44], sak: 0x20)

    @Test func anISODEPCardWithoutTheNDEFApplicationHasNoMessage() async throws {
        let transport = ScriptedAPDUTransport([("00A4040007D276000085010100", .bytes("6A82"))])
        #expect(try await NDEFReader.read(info: type4Info, transport: transport) == .noMessage)
        transport.verifyAllConsumed()
    }

    @Test func aType4StepRefusedAfterTheSelectIsUnreadable() async throws {
        let transport = ScriptedAPDUTransport([
            ("00A4040007D276000085010100", .bytes("9000")),
            ("00A4000C02E103", .bytes("6A82")),
        ])
        #expect(try await NDEFReader.read(info: type4Info, transport: transport) == .unreadable(.unexpectedStatusWord(0x6A, 0x82)))
        transport.verifyAllConsumed()
    }

    @Test func aType4CCWithoutReadAccessIsUnreadable() async throws {
        let transport = ScriptedAPDUTransport([
            ("00A4040007D276000085010100", .bytes("9000")),
            ("00A4000C02E103", .bytes("9000")),
            ("00B000000F", .bytes("000F20003B00340406E10400FE8000" + "9000")),
        ])
        let result = try await NDEFReader.read(info: type4Info, transport: transport)
        #expect(result.status == "unreadable")
        #expect(result.error?.code == "unsupported")
        transport.verifyAllConsumed()
    }

    @Test func type4TagRemovedMidReadThrows() async throws {
        let tag = try VirtualType4Tag(uid: Type4Tests.uid, ndef: Type4Tests.hello)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        transport.remove(afterCommands: 1)
        await #expect(throws: NFCError.tagRemoved) { try await NDEFReader.read(info: info, transport: transport) }
    }

    // MARK: FeliCa

    @Test(arguments: [VirtualFeliCaTag.Model.liteS, .standard])
    func feliCaReadsTheAttributeBlockAndTheDataBlocks(_ model: VirtualFeliCaTag.Model) async throws {
        let tag = try VirtualFeliCaTag(model: model, idm: FeliCaTests.idm, ndef: FeliCaTests.message)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        let before = transport.sentCommands.count
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message(FeliCaTests.message))
        // Attribute block, then the two data blocks in one READ WITHOUT ENCRYPTION.
        let commands = transport.sentCommands.dropFirst(before)
        #expect(commands.map { $0.first } == [0x06, 0x06])
    }

    @Test(arguments: [VirtualFeliCaTag.Model.liteS, .standard])
    func anUnformattedFeliCaHasNoMessage(_ model: VirtualFeliCaTag.Model) async throws {
        let tag = try VirtualFeliCaTag(model: model, idm: FeliCaTests.idm)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .noMessage)
    }

    @Test func aFeliCaAttributeBlockWithABadChecksumOrATornWriteIsUnreadable() async throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: FeliCaTests.idm, ndef: FeliCaTests.message)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        var attribute = try #require(tag.block(0))
        attribute[15] ^= 0x01
        tag.setBlock(0, attribute)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .unreadable(.crcMismatch))

        // A valid checksum, but WriteFlag 0Fh: the last write never finished (T3T §7.1.1).
        let torn = FeliCaAttributeInfo(nbr: 4, nbw: 1, nmaxb: 13, writeFlag: 0x0F, length: FeliCaTests.message.count)
        tag.setBlock(0, torn.bytes)
        let result = try await NDEFReader.read(info: info, transport: transport)
        #expect(result.error?.code == "invalid_ndef")
    }

    // MARK: Not read

    @Test(arguments: [CardType.mifarePlusSL3_2K, .iso15693_generic, .iso14443B_generic, .jewelTopaz, .unknown(atqa: [0x00, 0x04], sak: 0x88)])
    func typesWithoutAnNDEFMappingAreNotRead(_ type: CardType) async throws {
        let transport = FrameOnlyTransport(target: Target(uid: [0x01, 0x02, 0x03, 0x04], atqa: [0x00, 0x04], sak: 0x08))
        let result = try await NDEFReader.read(info: CardInfo(type: type, uid: [0x01, 0x02, 0x03, 0x04]), transport: transport)
        #expect(result.status == "not_read")
        #expect(result.error?.code == "unsupported")
        #expect(result.message == nil)
    }

    @Test func aReaderWithoutAPDUsOrCrypto1DoesNotReadType4OrClassic() async throws {
        let transport = FrameOnlyTransport(target: Target(uid: [0x01, 0x02, 0x03, 0x04], atqa: [0x00, 0x04], sak: 0x08))
        for type in [CardType.type4NDEF, .mifareDesfireEV1, .mifareClassic1K] {
            let result = try await NDEFReader.read(info: CardInfo(type: type, uid: [0x01, 0x02, 0x03, 0x04]), transport: transport)
            #expect(result.status == "not_read", "\(type)")
        }
    }

    @Test func cancellationIsThrown() async throws {
        let fixture = try await Type2OperationFixture(.ntag215)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
