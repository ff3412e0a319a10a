import NFCCore
import PN532Sim
import Testing

@Suite struct ISODEPRefinementTests {
    /// GET_VERSION hardware frame → expected type and product (Proxmark3 getCardType rows).
    @Test(arguments: [
        ("0401010100 1805", CardType.mifareDesfireEV1, "MIFARE DESFire EV1 4K"),
        ("0401011200 1A05", .mifareDesfireEV2, "MIFARE DESFire EV2 8K"),
        ("0401012200 1A05", .mifareDesfireEV2, "MIFARE DESFire EV2 XL 8K"),
        ("0401013300 1805", .mifareDesfireEV3, "MIFARE DESFire EV3 4K"),
        ("0401010002 1805", .mifareDesfire, "MIFARE DESFire (MF3ICD40) 4K"),
        ("0408013000 1305", .mifareDesfire, "MIFARE DESFire Light"),
        ("0404023000 1105", .ntag424DNA, "NTAG 424 DNA"),
        ("0402011100 1805", .mifarePlusSL3_4K, "MIFARE Plus EV1 4K"),
        ("0402012200 1605", .mifarePlusSL3_2K, "MIFARE Plus EV2 2K"),
        // Upstream's synthetic "EV2" (major 02) is no real chip: it stays plain DESFire [BUG in upstream].
        ("0401010200 1805", .mifareDesfire, "MIFARE DESFire (hardware 02h.00h) 4K"),
    ])
    func typesByHardwareVersion(hardware: String, type: CardType, product: String) throws {
        let frame = try #require([UInt8](hex: hardware))
        let version = try DESFireVersion(bytes: frame + frame + [UInt8](repeating: 0x11, count: 14))
        #expect(version.product?.cardType == type)
        #expect(version.product?.name == product)
    }

    @Test func versionNeedsAtLeast28BytesAndKeepsWhatFollows() throws {
        #expect(try DESFireVersion(bytes: [UInt8](repeating: 0, count: 29)).trailing == [0x00])
        #expect(throws: NFCError.self) { try DESFireVersion(bytes: [UInt8](repeating: 0, count: 27)) }
        #expect(throws: NFCError.self) { try DESFireVersion(bytes: [UInt8](repeating: 0, count: 28 + DESFireVersion.maxTrailingBytes + 1)) }
        #expect(throws: NFCError.self) { try DESFireVersion(bytes: []) }
        let unknownHardware = try DESFireVersion(bytes: [0x04, 0x55] + [UInt8](repeating: 0, count: 26))
        #expect(unknownHardware.product == nil)
    }

    @Test func smartMXDESFireIsProbedInOrder() async throws {
        let transport = ScriptedAPDUTransport([
            ("9060000000", .bytes("0401011200 1A05 91AF")),
            ("90AF000000", .bytes("0401010103 1A05 91AF")),
            ("90AF000000", .bytes("04112233445566 BA34999914 2C 19 9100")),
            ("00A4040007D276000085010100", .bytes("6A82")),
        ])
        let info = await ISODEPRefinement.refine(CardInfo(type: .smartMX, uid: transport.target.uid), transport: transport)
        #expect(info.type == .mifareDesfireEV2)
        #expect(info.product?.name == "MIFARE DESFire EV2 8K")
        #expect(info.version?.count == 28)
        // A product from GET_VERSION: the eMRTD SELECT could not change the outcome and is not sent.
        #expect(info.probes == ["DESFire GET_VERSION: ok", "Type 4 CC: 6A82"])
        transport.verifyAllConsumed()
    }

    @Test func emrtdOnlyWinsWhenNothingElseAnswers() async throws {
        let transport = ScriptedAPDUTransport([
            ("9060000000", .bytes("6E00")),
            ("00A4040007D276000085010100", .bytes("6A82")),
            ("00A4040C07A0000002471001", .bytes("9000")),
        ])
        let info = await ISODEPRefinement.refine(CardInfo(type: .smartMX, uid: transport.target.uid), transport: transport)
        #expect(info.type == .ePassport)
        #expect(info.probes == ["DESFire GET_VERSION: 6E00", "Type 4 CC: 6A82", "SELECT eMRTD: ok"])
        transport.verifyAllConsumed()
    }

    @Test func identifiesAVirtualType4TagAsSmartMXThenType4() async throws {
        // ATQA 0004 + SAK 20 is generic ISO 7816 in the table; the CC probe makes it a Type 4 tag.
        let tag = try VirtualType4Tag(uid: [0x08, 0x12, 0x34, 0x56], ndef: Type4Tests.hi)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .type4NDEF)
        #expect(info.product == nil)
        #expect(info.ats == [0x75, 0x77, 0x81, 0x02, 0x80])
        #expect(info.probes == ["DESFire GET_VERSION: 6E00", "Type 4 CC: ok"])
        // Still usable afterwards.
        #expect(try await Type4NDEF.read(transport: transport) == Type4Tests.hi)
    }

    @Test func plainDESFireIsVersionProbedOnly() async throws {
        let transport = ScriptedAPDUTransport([
            ("9060000000", .bytes("0401013300 1805 91AF")),
            ("90AF000000", .bytes("0401010300 1805 91AF")),
            ("90AF000000", .bytes("04112233445566 BA34999914 2C 19 9100")),
        ])
        let info = await ISODEPRefinement.refine(CardInfo(type: .mifareDesfire, uid: transport.target.uid), transport: transport)
        #expect(info.type == .mifareDesfireEV3)
        #expect(info.product?.name == "MIFARE DESFire EV3 4K")
        transport.verifyAllConsumed()
    }

    /// ATQA 0344 / SAK 20 is typed DESFire by the table, but a Type 4 tag that is no DESFire answers
    /// GET_VERSION with an ISO status word (every DESFire answers 91 xx): its CC makes it a Type 4 tag,
    /// which is then dumped (on main: typed "MIFARE DESFire" and refused 6D00 / 6E00).
    @Test func aType4TagWithDESFiresATQAIsAType4Tag() async throws {
        let tag = try VirtualType4Tag(uid: [0x04, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC], ndef: Type4Tests.hi, atqa: [0x03, 0x44])
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .type4NDEF)
        #expect(info.probes == ["DESFire GET_VERSION: 6E00", "Type 4 CC: ok"])
        let dump = try await TagDumper.dump(info: info, transport: transport)
        #expect(dump.ndefMessage == Type4Tests.hi)
    }

    /// The same card without the NDEF application: generic ISO-DEP, not DESFire.
    @Test func anISODEPCardWithDESFiresATQAThatIsNeitherIsGeneric() async throws {
        let transport = ScriptedAPDUTransport([
            ("9060000000", .bytes("6D00")),
            ("00A4040007D276000085010100", .bytes("6A82")),
        ])
        let info = await ISODEPRefinement.refine(CardInfo(type: .mifareDesfire, uid: transport.target.uid), transport: transport)
        #expect(info.type == .smartMX)
        #expect(info.probes == ["DESFire GET_VERSION: 6D00", "Type 4 CC: 6A82"])
        transport.verifyAllConsumed()
    }

    /// A DESFire refusing GET_VERSION with a DESFire status stays DESFire (its answer is a DESFire's).
    @Test func aDESFireStatusKeepsTheDESFireType() async throws {
        let transport = ScriptedAPDUTransport([("9060000000", .bytes("91CA"))])
        let info = await ISODEPRefinement.refine(CardInfo(type: .mifareDesfire, uid: transport.target.uid), transport: transport)
        #expect(info.type == .mifareDesfire)
        transport.verifyAllConsumed()
    }

    @Test func tagLeavingDuringProbesIsReported() async throws {
        let tag = try VirtualType4Tag(uid: [0x08, 0x12, 0x34, 0x56], ndef: Type4Tests.hi)
        let transport = VirtualTagTransport(tag: tag)
        transport.remove(afterCommands: 2)
        await #expect(throws: NFCError.tagRemoved) { try await TagIdentifier.identify(transport) }
        let refined = await ISODEPRefinement.refine(CardInfo(type: .smartMX, uid: tag.target.uid), transport: transport)
        #expect(refined.type == .smartMX)
        #expect(refined.probes == ["DESFire GET_VERSION: tag_removed"])
    }

    @Test func otherTypesAreLeftAlone() async throws {
        let transport = ScriptedAPDUTransport([])
        let info = CardInfo(type: .mifareClassic1K, uid: [1, 2, 3, 4])
        #expect(await ISODEPRefinement.refine(info, transport: transport) == info)
        transport.verifyAllConsumed()
    }
}
