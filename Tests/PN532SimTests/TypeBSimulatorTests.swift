import NFCCore
import Testing
@testable import PN532Sim

/// The virtual ISO 14443-B card on the air (CRC_B frames) and the emulated PN532's type B side
/// (InListPassiveTarget BrTy 03, InAutoPoll 03/23, InDataExchange blocks, InCommunicateThru).
@Suite struct TypeBSimulatorTests {
    static let pupi: [UInt8] = [0x1A, 0x2B, 0x3C, 0x4D]
    /// NDEF message of one URI record `https://example.com/b`.
    static let message: [UInt8] = [0xD1, 0x01, 0x0E, 0x55, 0x04] + Array("example.com/b".utf8)

    func makeCard(protocolInfo: [UInt8] = TypeBTables.defaultProtocolInfo, capacity: Int = 2048) throws -> VirtualTypeBTag {
        let application = try VirtualType4Tag(uid: [0x04, 1, 2, 3, 4, 5, 6], ndef: Self.message, capacity: capacity)
        return try VirtualTypeBTag(pupi: Self.pupi, application: application, protocolInfo: protocolInfo)
    }

    /// `frame` with its CRC_B, as on the air.
    func air(_ frame: [UInt8]) -> [UInt8] { frame + ISO14443.crcB(frame) }

    /// Sends `frame` (CRC_B added) and returns the answer without its CRC_B, which must be right.
    func send(_ card: VirtualTypeBTag, _ frame: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8]? {
        guard let answer = card.receiveAir(air(frame)) else { return nil }
        let body = Array(answer.dropLast(2))
        #expect(ISO14443.crcB(body) == Array(answer.suffix(2)), "CRC_B of \(answer.hexString)", sourceLocation: sourceLocation)
        return body
    }

    // MARK: The card (ISO/IEC 14443-3 §7, 14443-4 §7)

    @Test func reqbGetsTheATQBAndAWrongCRCGetsSilence() throws {
        let card = try makeCard()
        #expect(card.receiveAir([0x05, 0x00, 0x00, 0x00, 0x00]) == nil)  // CRC_B wrong
        // REQB AFI 00: 50 PUPI, application data (AFI 00, CRC_B(D2760000850101), 1 application), protocol info.
        let atqb = try #require(send(card, [0x05, 0x00, 0x00]))
        #expect(atqb.hexString == "501A2B3C4D" + "00E2AF01" + "008175")
        // An AFI of another family (10h: transport) gets no answer from AFI 00h.
        let other = try makeCard()
        #expect(send(other, [0x05, 0x10, 0x00]) == nil)
    }

    @Test func afiRulesFollowTheTable() {
        #expect(TypeBTables.afiMatches(requested: 0x00, card: 0x21))
        #expect(TypeBTables.afiMatches(requested: 0x20, card: 0x21))
        #expect(!TypeBTables.afiMatches(requested: 0x30, card: 0x21))
        #expect(TypeBTables.afiMatches(requested: 0x21, card: 0x21))
        #expect(!TypeBTables.afiMatches(requested: 0x22, card: 0x21))
    }

    @Test func attribForThePUPIActivatesAndBlocksCarryAPDUs() throws {
        let card = try makeCard()
        _ = send(card, [0x05, 0x00, 0x00])
        #expect(send(card, [0x1D, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x08, 0x01, 0x01]) == nil)  // another PUPI
        #expect(send(card, [0x1D] + Self.pupi + [0x00, 0x08, 0x01, 0x01]) == [0x01])  // MBLI 0, CID 1
        // I-block, CID 1: SELECT the NDEF application.
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        #expect(send(card, [0x0A, 0x01] + select) == [0x0A, 0x01, 0x90, 0x00])
        // Without the CID it was given the card stays silent.
        #expect(send(card, [0x03] + select) == nil)
        // R(NAK) with the card's block number (0 now): the last block again (§7.5.4.2 rule 11); with
        // the other number: R(ACK) with its own (rule 12). libnfc's presence ping is BA 01.
        #expect(send(card, [0xBA, 0x01]) == [0x0A, 0x01, 0x90, 0x00])
        #expect(send(card, [0xBB, 0x01]) == [0xAA, 0x01])
        // S(DESELECT) answers and HALTs: REQB is ignored, WUPB wakes it.
        #expect(send(card, [0xCA, 0x01]) == [0xCA, 0x01])
        #expect(send(card, [0x05, 0x00, 0x00]) == nil)
        #expect(send(card, [0x05, 0x00, 0x08])?.first == 0x50)
    }

    @Test func hltbHaltsAReadyCard() throws {
        let card = try makeCard()
        _ = send(card, [0x05, 0x00, 0x00])
        #expect(send(card, [0x50] + Self.pupi) == [0x00])
        #expect(send(card, [0x05, 0x00, 0x00]) == nil)
        #expect(send(card, [0x05, 0x00, 0x08]) != nil)
    }

    // MARK: The chip

    @Test func inListPassiveTargetBrTy03ReturnsATQBAndATTRIBAnswerAsLibNFCDecodesThem() throws {
        let (chip, _) = PN532ChipTests().makeChip([("b", try makeCard())])
        #expect(chip.handle([0x4A, 0x01, 0x03]).isSyntaxError)  // the AFI is required
        let answer = try #require(chip.handle([0x4A, 0x01, 0x03, 0x00]).immediate)
        // NbTg 1, Tg 1, ATQB (12 bytes), ATTRIB_RES length 1, ATTRIB_RES (MBLI 0, CID 1).
        #expect(answer.hexString == "0101" + "501A2B3C4D00E2AF01008175" + "01" + "01")
        #expect(chip.registers.framing == .typeB)
    }

    @Test func inAutoPollTypes03And23FindTheCard() throws {
        for type: UInt8 in [0x03, 0x23] {
            let (chip, _) = PN532ChipTests().makeChip([("b", try makeCard())])
            let answer = try #require(chip.handle([0x60, 0x01, 0x01, 0x20, 0x10, type]).immediate)
            // NbTg 1, the type that found it, length, Tg + the BrTy 03 target data.
            #expect(answer.hexString == "01" + [type].hexString + "0F" + "01501A2B3C4D00E2AF0100817501" + "01")
        }
        // Type A polling alone does not see a B card.
        let (chip, _) = PN532ChipTests().makeChip([("b", try makeCard())])
        #expect(chip.handle([0x60, 0x01, 0x01, 0x20, 0x10]).wait != nil)
    }

    @Test(arguments: [0x81, 0x01] as [UInt8])
    func inDataExchangeRunsTheBlocksBothWays(maxFrameSize: UInt8) throws {
        // FSC 256, or 16 bytes (Max_Frame_Size 0): then every command and answer is chained.
        let card = try makeCard(protocolInfo: [0x00, maxFrameSize, 0x75], capacity: 300)
        let (chip, _) = PN532ChipTests().makeChip([("b", card)])
        _ = chip.handle([0x4A, 0x01, 0x03, 0x00])
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        #expect(chip.handle([0x40, 0x01] + select).immediate == [0x00, 0x90, 0x00])
        #expect(chip.handle([0x40, 0x01, 0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04]).immediate == [0x00, 0x90, 0x00])
        // UPDATE BINARY of 40 bytes at 0, then READ BINARY of 60 bytes.
        let data = (0..<40).map { UInt8($0) }
        #expect(chip.handle([0x40, 0x01, 0x00, 0xD6, 0x00, 0x00, 40] + data).immediate == [0x00, 0x90, 0x00])
        let read = try #require(chip.handle([0x40, 0x01, 0x00, 0xB0, 0x00, 0x00, 60]).immediate)
        #expect(read.first == 0x00)
        #expect(Array(read.dropFirst().prefix(40)) == data)
        #expect(read.count == 1 + 60 + 2)
        #expect(Array(read.suffix(2)) == [0x90, 0x00])
        #expect(Array((TagMemoryDump.make(card)?.memory ?? []).prefix(40)) == data)
    }

    @Test func inCommunicateThruCarriesLibNFCsPresencePing() throws {
        let (chip, field) = PN532ChipTests().makeChip([("b", try makeCard())])
        _ = chip.handle([0x4A, 0x01, 0x03, 0x00])
        // CRC by the CIU (TxCRCEn/RxCRCEn on, as libnfc leaves them): R(NAK) CID 1, block 0, to a card
        // whose block number is still 1 → R(ACK) CID 1, block 1.
        #expect(chip.handle([0x42, 0xBA, 0x01]).immediate == [0x00, 0xAB, 0x01])
        // CRC by the host: the card checks it; the answer keeps its CRC_B.
        _ = chip.handle([0x08, 0x63, 0x02, 0x03, 0x63, 0x03, 0x03])
        #expect(chip.handle([0x42] + air([0xBA, 0x01])).immediate == [0x00] + air([0xAB, 0x01]))
        #expect(chip.handle([0x42, 0xBA, 0x01, 0x00, 0x00]).answer?.data == [0x01])  // a wrong CRC_B: silence
        #expect(field.remove(id: "b"))
        #expect(chip.handle([0x42] + air([0xBA, 0x01])).answer?.data == [0x01])
    }

    @Test func inDeselectSendsSDeselectSoTheNextREQBFindsNothing() throws {
        let (chip, _) = PN532ChipTests().makeChip([("b", try makeCard())])
        _ = chip.handle([0x4A, 0x01, 0x03, 0x00])
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        #expect(chip.handle([0x44, 0x01]).immediate == [0x00])
        #expect(chip.handle([0x40, 0x01] + select).immediate == [0x27])  // deselected target
        // InSelect wakes it with WUPB + ATTRIB, and blocks reach it again.
        #expect(chip.handle([0x54, 0x01]).immediate == [0x00])
        #expect(chip.handle([0x40, 0x01] + select).immediate == [0x00, 0x90, 0x00])
        // HALTed after S(DESELECT): REQB finds nothing …
        #expect(chip.handle([0x44, 0x00]).immediate == [0x00])
        #expect(chip.handle([0x4A, 0x01, 0x03, 0x00]).wait != nil)
        // … until a field reset (IDLE after power-on).
        _ = chip.handle([0x32, 0x01, 0x00])
        _ = chip.handle([0x32, 0x01, 0x01])
        #expect(chip.handle([0x4A, 0x01, 0x03, 0x00]).immediate?.prefix(2) == [0x01, 0x01])
    }

    @Test func theScenarioKindBuildsACardWithTheNDEFMessage() throws {
        let scenario = try Scenario.parse("""
            tags:
              - {id: b, type: type4_b, uid: 1A2B3C4D, ndef: [{uri: 'https://example.com/b'}]}
            """, file: "b.yaml")
        let tag = try #require(try VirtualTagFactory.make(scenario.tags[0]) as? VirtualTypeBTag)
        #expect(tag.target.modulation == .iso14443b)
        #expect(tag.target.uid == Self.pupi)
        #expect(TagMemoryDump.make(tag)?.ndefMessage == Self.message)
        // A PUPI has 4 bytes.
        #expect(throws: SimulatorError.self) {
            try VirtualTagFactory.make(try Scenario.parse("tags:\n  - {id: b, type: type4_b, uid: 04A1B2C3D4E5F6}", file: "b.yaml").tags[0])
        }
    }
}
