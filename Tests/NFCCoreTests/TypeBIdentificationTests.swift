import NFCCore
import PN532Sim
import Testing

/// ISO 14443-B in NFCCore: CRC_B, identification from the ATQB, ISO-DEP probing through the same
/// ``ISODEPRefinement`` as type A, and Type 4 NDEF read and write on a B card.
@Suite struct TypeBIdentificationTests {
    static let pupi: [UInt8] = [0x1A, 0x2B, 0x3C, 0x4D]
    static let target = Target(pupi: pupi, applicationData: [0x00, 0xE2, 0xAF, 0x01], protocolInfo: [0x00, 0x81, 0x75])

    /// The CRC_B worked examples of ISO/IEC 14443-3 Annex B (B.2, type B), and a REQB as readers send it.
    @Test(arguments: [
        ([0x00, 0x00, 0x00], [0xCC, 0xC6]),
        ([0x0F, 0xAA, 0xFF], [0xFC, 0xD1]),
        ([0x0A, 0x12, 0x34, 0x56], [0x2C, 0xF6]),
        ([0x05, 0x00, 0x00], [0x71, 0xFF]),
    ] as [([UInt8], [UInt8])])
    func crcBAnnexBExamples(data: [UInt8], crc: [UInt8]) {
        #expect(ISO14443.crcB(data) == crc)
    }

    @Test func aBTargetIsClassifiedWithItsATQBFields() {
        #expect(CardClassifier.classify(Self.target) == .iso14443B_generic)
        #expect(Self.target.speaksISODEPOverB)
        // Protocol_Type 0: not ISO/IEC 14443-4 compliant.
        #expect(!Target(pupi: Self.pupi, applicationData: [0, 0, 0, 0], protocolInfo: [0x00, 0x80, 0x75]).speaksISODEPOverB)
        #expect(!Target(uid: Self.pupi).speaksISODEPOverB)
    }

    @Test func aBCardWithTheType4ApplicationIsProbedAsOnA() async throws {
        let application = try VirtualType4Tag(uid: [0x04, 1, 2, 3, 4, 5, 6])
        let transport = VirtualTagTransport(tag: try VirtualTypeBTag(pupi: Self.pupi, application: application))
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .type4NDEF)
        #expect(info.uid == Self.pupi)
        #expect(info.applicationData == [0x00, 0xE2, 0xAF, 0x01])
        #expect(info.protocolInfo == [0x00, 0x81, 0x75])
        #expect(info.atqa == nil && info.sak == nil && info.ats == nil)
        #expect(info.probes == ["DESFire GET_VERSION: 6E00", "Type 4 CC: ok"])
        let report = ScanReport(cardInfo: info)
        #expect(report.applicationData == "00E2AF01")
        #expect(report.protocolInfo == "008175")
        #expect(report.jsonLine().contains(#""applicationData":"00E2AF01""#))
        #expect(report.summaryLine.contains("ATQB application data 00E2AF01 protocol info 008175"))
    }

    @Test func aBPassportAnswersOnlyTheLDSSelect() async throws {
        let transport = ScriptedAPDUTransport(target: Self.target, [
            ("9060000000", .bytes("6D00")),
            ("00A4040007D276000085010100", .bytes("6A82")),
            ("00A4040C07A0000002471001", .bytes("9000")),
        ])
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .ePassport)
        transport.verifyAllConsumed()
    }

    @Test func aBCardWithNoneOfThemStaysAGenericISO14443_4BCard() async throws {
        let transport = ScriptedAPDUTransport(target: Self.target, [
            ("9060000000", .bytes("6E00")),
            ("00A4040007D276000085010100", .bytes("6A82")),
            ("00A4040C07A0000002471001", .bytes("6A82")),
        ])
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .iso14443B_generic)
        #expect(info.probes.count == 3)
        let result = try await NDEFReader.read(info: info, transport: transport)
        #expect(result.error?.code == "unsupported")
        transport.verifyAllConsumed()
    }

    @Test func aBCardThatIsNotISO14443_4IsNotProbed() async throws {
        let plain = Target(pupi: Self.pupi, applicationData: [0, 0, 0, 0], protocolInfo: [0x00, 0x80, 0x75])
        let transport = ScriptedAPDUTransport(target: plain, [])
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .iso14443B_generic)
        #expect(info.probes.isEmpty)
    }

    @Test func ndefIsReadAndWrittenOnTheVirtualBCard() async throws {
        let message = try NDEFMessage(records: [.uri("https://example.com/b")]).bytes
        let application = try VirtualType4Tag(uid: [0x04, 1, 2, 3, 4, 5, 6], ndef: message)
        let card = try VirtualTypeBTag(pupi: Self.pupi, application: application)
        let transport = VirtualTagTransport(tag: card)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .type4NDEF)
        #expect(try await NDEFReader.read(info: info, transport: transport).message == message)
        let written = try NDEFMessage(records: [.text("on B", language: "en")]).bytes
        _ = try await TagOperations.write(ndef: written, to: transport, info: info)
        #expect(application.ndefMessage == written)
    }
}
