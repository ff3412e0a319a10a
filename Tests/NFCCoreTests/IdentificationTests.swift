@testable import NFCCore
import PN532Sim
import Testing

/// A transport that only knows its target; any command is a test failure (identification must not
/// probe these tags yet).
private struct TargetOnlyTransport: TagTransport {
    let target: Target
    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        Issue.record("unexpected command \(command.hexString)")
        throw NFCError.timeout
    }
    func reselect() async throws {}
}

/// A MIFARE Classic with a 7-byte UID as far as Type 2 probing goes: READ without Crypto1 gets a NAK
/// (4h) and the card halts until re-selected.
private final class UnauthenticatedClassicStub: VirtualTag, @unchecked Sendable {
    let target = Target(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], atqa: [0x00, 0x44], sak: 0x08)
    private var active = false
    func activate() -> Bool { active = true; return true }
    func powerOff() { active = false }
    func receive(_ frame: [UInt8]) -> VirtualTagReply {
        guard active else { return .silent }
        active = false
        return .nak(0x4)
    }
}

@Suite struct IdentificationTests {
    static let uid: [UInt8] = [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81]

    // MARK: ATQA/SAK table

    @Test(arguments: [
        // Upstream CardIdentifierTests vectors.
        ("0044", 0x00, CardType.mifareUltralight),
        ("0004", 0x08, .mifareClassic1K),
        ("0002", 0x18, .mifareClassic4K),
        ("0004", 0x09, .mifareMini),
        ("0344", 0x20, .mifareDesfire),
        ("0004", 0x10, .mifarePlusSL2_2K),
        ("0002", 0x11, .mifarePlusSL2_4K),
        ("FFFF", 0x55, .unknown(atqa: [0xFF, 0xFF], sak: 0x55)),
        // Spec: DESFire with random UID; every other SAK 20/28/38 is generic ISO 7816, never Plus SL3.
        ("0304", 0x20, .mifareDesfire),
        ("0004", 0x20, .smartMX),
        ("0044", 0x20, .smartMX),
        ("0002", 0x20, .smartMX),
        ("0042", 0x20, .smartMX),
        ("0004", 0x28, .smartMX),
        ("0002", 0x38, .smartMX),
        // The rest of upstream's table.
        ("0044", 0x08, .mifareClassic1K),  // (0044 & FF0F) == 0004
        ("0042", 0x08, .mifarePlusSL1_2K),
        ("0044", 0x18, .mifarePlusSL1_4K),
        ("0048", 0x00, .smartMX),
        ("0004", 0x00, .smartMX),
        ("0344", 0x00, .mifareUltralight),  // SAK-only fallback
        ("0F01", 0x08, .mifareClassic1K),
        ("0304", 0x18, .mifareClassic4K),
        ("0304", 0x09, .mifareMini),
        ("0044", 0x01, .unknown(atqa: [0x00, 0x44], sak: 0x01)),
    ] as [(String, UInt8, CardType)])
    func classifiesISO14443A(atqa: String, sak: UInt8, expected: CardType) {
        let target = Target(uid: [0x04, 1, 2, 3, 4, 5, 6], atqa: [UInt8](hex: atqa) ?? [], sak: sak)
        #expect(CardClassifier.classify(target) == expected)
    }

    @Test func classifiesOtherModulationsAndShortATQA() {
        #expect(CardClassifier.classify(Target(modulation: .felica212, uid: [1, 2, 3, 4, 5, 6, 7, 8])) == .felicaStandard)
        #expect(CardClassifier.classify(Target(modulation: .felica424, uid: [1, 2, 3, 4, 5, 6, 7, 8])) == .felicaStandard)
        #expect(CardClassifier.classify(Target(modulation: .iso14443b, uid: [1, 2, 3, 4])) == .iso14443B_generic)
        #expect(CardClassifier.classify(Target(modulation: .iso15693, uid: [1, 2, 3, 4])) == .iso15693_generic)
        #expect(CardClassifier.classify(Target(uid: [1, 2, 3, 4], atqa: [0x44], sak: 0)) == .unknown(atqa: [0x44], sak: 0))
        #expect(CardClassifier.classify(Target(uid: [1, 2, 3, 4], atqa: [0x00, 0x44])) == .mifareUltralight)
    }

    @Test func identifyFillsTargetFieldsAndLeavesISODEPAndFeliCaUnprobed() async throws {
        let desfire = Target(uid: [0x04, 1, 2, 3, 4, 5, 6], atqa: [0x03, 0x44], sak: 0x20, ats: [0x75, 0x77, 0x81, 0x02, 0x80])
        let info = try await TagIdentifier.identify(TargetOnlyTransport(target: desfire))
        #expect(info.type == .mifareDesfire)
        #expect(info.atqa == [0x03, 0x44])
        #expect(info.sak == 0x20)
        #expect(info.ats == [0x75, 0x77, 0x81, 0x02, 0x80])
        #expect(info.probes.isEmpty)

        // A FeliCa Standard (not system code 88B4, no Lite IC type) is not probed; the Lite / Lite-S
        // probe (block 90h) is covered by FeliCaTests.
        let felica = Target(modulation: .felica212, uid: [1, 2, 3, 4, 5, 6, 7, 8], pmm: [0x10, 0x0B, 0x4B, 0x42, 0x84, 0x85, 0xD0, 0xFF],
                            systemCode: [0x00, 0x03])
        let felicaInfo = try await TagIdentifier.identify(TargetOnlyTransport(target: felica))
        #expect(felicaInfo.type == .felicaStandard)
        #expect(felicaInfo.pmm == felica.pmm)
        #expect(felicaInfo.systemCode == [0x00, 0x03])
        #expect(felicaInfo.atqa == nil && felicaInfo.sak == nil)

        let classic4 = Target(uid: [0x11, 0x22, 0x33, 0x44], atqa: [0x00, 0x04], sak: 0x08)
        #expect(try await TagIdentifier.identify(TargetOnlyTransport(target: classic4)).type == .mifareClassic1K)
    }

    // MARK: Type 2 refinement transcripts

    @Test(arguments: [
        (VirtualType2Model.ultralight, CardType.mifareUltralight),
        (.ultralightC, .mifareUltralightC),
        (.ultralightEV1_11, .mifareUltralightEV1_MF0UL11),
        (.ultralightEV1_21, .mifareUltralightEV1_MF0UL21),
        (.ntag203, .ntag203),
        (.ntag210, .ntag210),
        (.ntag212, .ntag212),
        (.ntag213, .ntag213),
        (.ntag215, .ntag215),
        (.ntag216, .ntag216),
    ])
    func identifiesEveryVirtualProduct(model: VirtualType2Model, expected: CardType) async throws {
        let transport = VirtualTagTransport(tag: VirtualType2Tag(model: model, uid: Self.uid))
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == expected)
        #expect(info.uid == Self.uid)
        #expect(info.atqa == [0x00, 0x44])
        #expect(info.sak == 0x00)
        #expect(info.ats == nil)
        #expect(info.version == model.version)
        // The tag is ACTIVE afterwards: a READ works without another select.
        #expect(try await Type2Command.read(page: 0, from: transport).count == 16)
    }

    @Test func ntag215TranscriptIsOneRawGetVersion() async throws {
        let transport = VirtualTagTransport(tag: VirtualType2Tag(model: .ntag215, uid: Self.uid))
        let info = try await TagIdentifier.identify(transport)
        #expect(transport.sentCommands == [[0x60]])
        #expect(info.probes == ["GET_VERSION: 0004040201001103"])
        #expect(info.product?.name == "NTAG215")
    }

    @Test func ultralightCIsFoundByReadingPage2BAfterAReselect() async throws {
        let transport = VirtualTagTransport(tag: VirtualType2Tag(model: .ultralightC, uid: Self.uid))
        let info = try await TagIdentifier.identify(transport)
        // [] is a re-select: the NAK to GET_VERSION left the tag IDLE.
        #expect(transport.sentCommands == [[0x60], [], [0x30, 0x2B]])
        #expect(info.probes == ["GET_VERSION: refused", "READ 2B: 16 bytes"])
        #expect(info.type == .mifareUltralightC)
        #expect(info.product == nil && info.version == nil)
    }

    @Test func ntag203AnswersPage41() async throws {
        let transport = VirtualTagTransport(tag: VirtualType2Tag(model: .ntag203, uid: Self.uid))
        let info = try await TagIdentifier.identify(transport)
        #expect(transport.sentCommands == [[0x60], [], [0x30, 0x2B], [], [0x30, 0x29]])
        #expect(info.probes == ["GET_VERSION: refused", "READ 2B: refused", "READ 29: 16 bytes"])
        #expect(info.type == .ntag203)
    }

    @Test func plainUltralightTimesOutAndRefusesBothReads() async throws {
        let transport = VirtualTagTransport(tag: VirtualType2Tag(model: .ultralight, uid: Self.uid))
        let info = try await TagIdentifier.identify(transport)
        #expect(transport.sentCommands == [[0x60], [], [0x30, 0x2B], [], [0x30, 0x29], []])
        #expect(info.probes == ["GET_VERSION: no answer", "READ 2B: refused", "READ 29: refused"])
        #expect(info.type == .mifareUltralight)
    }

    /// AUTH0 = 04h with read protection: page 2Bh and page 29h are refused, and AUTHENTICATE part 1
    /// (answered AFh + ek(RndB) whatever AUTH0 says, MF0ICU2 §7.5.5) names the Ultralight C. On main
    /// it stayed a generic "MIFARE Ultralight" (a 16-page Flipper file).
    @Test func readProtectedUltralightCIsFoundByAuthenticatePart1() async throws {
        let tag = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        tag.setAuth0(0x04)
        tag.setReadProtection(true)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .mifareUltralightC)
        #expect(info.probes == ["GET_VERSION: refused", "READ 2B: refused", "READ 29: refused", "AUTHENTICATE 1A: 9 bytes"])
        #expect(transport.sentCommands.suffix(2) == [[0x1A, 0x00], []], "re-selected after the challenge")
    }

    @Test func tagRemovedDuringProbingIsReported() async throws {
        let transport = VirtualTagTransport(tag: VirtualType2Tag(model: .ultralightC, uid: Self.uid))
        transport.remove(afterCommands: 1)  // GET_VERSION answered (NAK), then gone: the re-select fails
        await #expect(throws: NFCError.tagRemoved) { try await TagIdentifier.identify(transport) }
    }

    // MARK: Classic-looking Type 2 tags

    @Test func classicLookingTagWithSevenByteUIDIsRefined() async throws {
        // Upstream vector: Classic → MF0UL21 via 30 00 + 60.
        let tag = VirtualType2Tag(model: .ultralightEV1_21, uid: Self.uid, atqa: [0x00, 0x44], sak: 0x08)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(transport.sentCommands == [[0x30, 0x00], [0x60]])
        #expect(info.type == .mifareUltralightEV1_MF0UL21)
        #expect(info.sak == 0x08)
        #expect(info.probes == ["READ 00: Type 2 manufacturer pages", "GET_VERSION: 0004030101000E03"])
    }

    @Test func classicLookingTagWithoutGetVersionGoesThroughTheFallbackProbes() async throws {
        let tag = VirtualType2Tag(model: .ultralight, uid: Self.uid, atqa: [0x00, 0x04], sak: 0x08)
        let info = try await TagIdentifier.identify(VirtualTagTransport(tag: tag))
        #expect(info.type == .mifareUltralight)
        #expect(info.probes.first == "READ 00: Type 2 manufacturer pages")
    }

    @Test func classicWithFourByteUIDIsKeptWithoutAnyCommand() async throws {
        let tag = VirtualType2Tag(model: .ntag213, uid: [0x11, 0x22, 0x33, 0x44], atqa: [0x00, 0x04], sak: 0x08)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .mifareClassic1K)
        #expect(transport.sentCommands.isEmpty)
        #expect(info.probes.isEmpty)
    }

    @Test func realClassicRefusingReadIsKeptAndReselected() async throws {
        let transport = VirtualTagTransport(tag: UnauthenticatedClassicStub())
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .mifareClassic1K)
        #expect(transport.sentCommands == [[0x30, 0x00], []])
        #expect(info.probes == ["READ 00: refused"])
    }

    @Test func classicLookingTagWithWrongBCCIsKept() async throws {
        let tag = VirtualType2Tag(model: .ntag213, uid: Self.uid, atqa: [0x00, 0x04], sak: 0x08)
        var memory = tag.memory
        memory[3] ^= 0xFF  // BCC0 broken
        tag.memory = memory
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .mifareClassic1K)
        #expect(transport.sentCommands == [[0x30, 0x00]])
        #expect(info.probes == ["READ 00: not Type 2 (UID/BCC mismatch)"])
    }

    @Test func manufacturerPageCheckUsesBothBCCs() {
        // Proxmark vector: UID 04 58 69 D2 9C 39 80 → BCC0 BD, BCC1 F7.
        let uid: [UInt8] = [0x04, 0x58, 0x69, 0xD2, 0x9C, 0x39, 0x80]
        let good: [UInt8] = [0x04, 0x58, 0x69, 0xBD, 0xD2, 0x9C, 0x39, 0x80, 0xF7, 0x48, 0x00, 0x00, 0xE1, 0x10, 0x6D, 0x00]
        #expect(Type2Refinement.manufacturerPagesMatch(good, uid: uid))
        var badBCC1 = good
        badBCC1[8] = 0x00
        #expect(!Type2Refinement.manufacturerPagesMatch(badBCC1, uid: uid))
        #expect(!Type2Refinement.manufacturerPagesMatch(Array(good.prefix(11)), uid: uid))
        #expect(!Type2Refinement.manufacturerPagesMatch(good, uid: Array(uid.prefix(4))))
    }
}

@Suite struct ClassicIdentificationTests {
    @Test func virtualClassicWithSevenByteUIDStaysClassic() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .mifareClassic1K)
        #expect(transport.sentCommands.first == [0x30, 0x00])
        #expect(info.probes.count == 1)
        // The card is selectable again for a Classic dump.
        try await transport.authenticate(block: 0, keyType: .a, key: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }
}

extension IdentificationTests {
    /// A Jewel / Topaz found by its own anticollision (SENS_RES 0C 00, RID's UID) is the Type 1 row's:
    /// the technology table classifies it, the registry's identification-only row owns it, and no
    /// command is sent to it.
    @Test func aJewelTargetIsTheType1Row() async throws {
        let topaz = Target(modulation: .jewel, uid: [0x92, 0x3E, 0x4A, 0x11], atqa: [0x0C, 0x00])
        #expect(CardClassifier.classify(topaz) == .jewelTopaz)
        let info = try await TagIdentifier.identify(TargetOnlyTransport(target: topaz))
        #expect(info.type == .jewelTopaz && info.atqa == [0x0C, 0x00] && info.sak == nil && info.probes.isEmpty)
        #expect(TagFamilies.family(for: info.type)?.name == "NFC Forum Type 1")
        #expect(ScanReport(cardInfo: info).cardType == "Jewel/Topaz (Type 1)")
    }
}
