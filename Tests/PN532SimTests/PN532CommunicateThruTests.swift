import NFCCore
import Testing
@testable import PN532Sim

/// InCommunicateThru: frames on the air as the CIU registers say (CRC, parity, framing, last bits).
@Suite struct PN532CommunicateThruTests {
    func makeChip(_ tags: [(String, any VirtualTag)]) -> PN532Chip {
        let field = RFField()
        for (id, tag) in tags { field.place(tag, id: id) }
        let chip = PN532Chip(field: field, timing: PN532Timing())
        _ = chip.handle([0x12, 0x14])
        _ = chip.handle([0x32, 0x01, 0x01])
        return chip
    }

    /// CRC off both ways, as nfc-anticol and nfc-mfultralight's GET_VERSION set it.
    func crcOff(_ chip: PN532Chip) {
        _ = chip.handle([0x08, 0x63, 0x02, 0x00, 0x63, 0x03, 0x00])
    }

    func withCRC(_ bytes: [UInt8]) -> [UInt8] { bytes + ISO14443.crcA(bytes) }

    @Test func anticollisionOfASevenByteUIDMatchesARealTag() {
        let chip = makeChip([("ntag", TestType2Tag())])
        crcOff(chip)
        _ = chip.handle([0x08, 0x63, 0x3D, 0x07])  // TxLastBits 7
        #expect(chip.handle([0x42, 0x26]).immediate == [0x00, 0x44, 0x00])  // ATQA, LSB first on air
        _ = chip.handle([0x08, 0x63, 0x3D, 0x00])
        #expect(chip.handle([0x42, 0x93, 0x20]).immediate == [0x00, 0x88, 0x04, 0xA1, 0xB2, 0x9F])
        #expect(chip.handle([0x42] + withCRC([0x93, 0x70, 0x88, 0x04, 0xA1, 0xB2, 0x9F])).immediate == [0x00, 0x04, 0xDA, 0x17])
        #expect(chip.handle([0x42, 0x95, 0x20]).immediate == [0x00, 0xC3, 0xD4, 0xE5, 0xF6, 0x04])
        #expect(chip.handle([0x42] + withCRC([0x95, 0x70, 0xC3, 0xD4, 0xE5, 0xF6, 0x04])).immediate == [0x00, 0x00, 0xFE, 0x51])
        // The tag is ACTIVE now: GET_VERSION with the host's CRC, answer with the tag's CRC.
        let version = TestType2Tag().version
        #expect(chip.handle([0x42] + withCRC([0x60])).immediate == [0x00] + withCRC(version))
        // HLTA: no answer; afterwards REQA finds nothing, WUPA finds the tag.
        #expect(chip.handle([0x42] + withCRC([0x50, 0x00])).answer?.data == [0x01])
        _ = chip.handle([0x08, 0x63, 0x3D, 0x07])
        #expect(chip.handle([0x42, 0x26]).answer?.data == [0x01])
        #expect(chip.handle([0x42, 0x52]).immediate == [0x00, 0x44, 0x00])
    }

    /// A NAK sends a tag to IDLE (MF0ULX1 §8.3); an IDLE tag ignores HLTA, which only an ACTIVE one
    /// obeys, and answers REQA (ISO/IEC 14443-3 §6.3).
    @Test func aTagANAKLeftIdleIgnoresHLTAAndAnswersREQA() {
        let chip = makeChip([("ntag", TestType2Tag())])
        #expect(chip.handle([0x4A, 0x01, 0x00]).immediate?.prefix(2) == [0x01, 0x01])
        #expect(chip.handle([0x42, 0x30, 0xFF]).immediate == [0x00, 0x00])  // NAK
        #expect(chip.handle([0x42, 0x50, 0x00]).answer?.data == [0x01])  // HLTA: no answer
        crcOff(chip)
        _ = chip.handle([0x08, 0x63, 0x3D, 0x07])
        #expect(chip.handle([0x42, 0x26]).immediate == [0x00, 0x44, 0x00])  // REQA: still IDLE, it answers
        // InDeselect (HLTA by the firmware) after a NAK leaves it IDLE too: a list without a UID finds it.
        let other = makeChip([("ntag", TestType2Tag())])
        _ = other.handle([0x4A, 0x01, 0x00])
        _ = other.handle([0x42, 0x30, 0xFF])
        #expect(other.handle([0x44, 0x01]).immediate == [0x00])
        #expect(other.handle([0x4A, 0x01, 0x00]).immediate?.prefix(2) == [0x01, 0x01])
    }

    /// A tag WUPA woke from HALT is ACTIVE* once selected: a NAK sends it back to HALT, where REQA
    /// does not reach it and WUPA does (ISO/IEC 14443-3 §6.3).
    @Test func aTagWokenFromHaltThatNAKsIsHaltedAgain() {
        let tag = TestType2Tag()
        let chip = makeChip([("ntag", tag)])
        _ = chip.handle([0x4A, 0x01, 0x00])
        #expect(chip.handle([0x44, 0x01]).immediate == [0x00])  // HALT
        // A select by UID (WUPA) wakes it: ACTIVE*.
        #expect(chip.handle([0x4A, 0x01, 0x00] + tag.target.uid).immediate?.prefix(2) == [0x01, 0x01])
        #expect(chip.handle([0x42, 0x30, 0xFF]).immediate == [0x00, 0x00])  // NAK
        crcOff(chip)
        _ = chip.handle([0x08, 0x63, 0x3D, 0x07])
        #expect(chip.handle([0x42, 0x26]).answer?.data == [0x01])  // REQA: HALTed, silent
        #expect(chip.handle([0x42, 0x52]).immediate == [0x00, 0x44, 0x00])  // WUPA answers
    }

    @Test func frameWithAWrongCRCGetsNoAnswer() {
        let chip = makeChip([("ntag", TestType2Tag())])
        _ = chip.handle([0x4A, 0x01, 0x00])
        crcOff(chip)
        #expect(chip.handle([0x42, 0x60, 0x00, 0x00]).answer?.data == [0x01])
    }

    @Test func chipCRCAndFourBitAnswers() {
        let chip = makeChip([("ntag", TestType2Tag())])
        _ = chip.handle([0x4A, 0x01, 0x00])
        // CRC on (the default): the chip adds and strips it.
        #expect(chip.handle([0x42, 0x60]).immediate == [0x00] + TestType2Tag().version)
        #expect(chip.registers[.control] & 0x07 == 0)
        // WRITE answers a 4-bit ACK: one byte, RxLastBits = 4 — even with RxCRCEn on.
        #expect(chip.handle([0x42, 0xA2, 0x04, 1, 2, 3, 4]).immediate == [0x00, 0x0A])
        #expect(chip.handle([0x06, 0x63, 0x3C]).immediate == [0x14])
        // A NAK: its 4-bit code.
        #expect(chip.handle([0x42, 0x30, 0xFF]).immediate == [0x00, 0x00])
    }

    @Test func answerWithoutCRCIsACRCErrorWhenTheChipChecksIt() {
        let chip = makeChip([("ntag", TestType2Tag())])
        _ = chip.handle([0x08, 0x63, 0x3D, 0x07])
        #expect(chip.handle([0x42, 0x26]).immediate == [0x02])  // ATQA has no CRC, RxCRCEn is on
    }

    @Test func parityBitsTravelInTheDataWhenTheChipLeavesThemToTheHost() {
        let chip = makeChip([("ntag", TestType2Tag())])
        _ = chip.handle([0x4A, 0x01, 0x00])
        crcOff(chip)
        _ = chip.handle([0x08, 0x63, 0x0D, 0x10])  // ParityDisable
        let (frame, lastBits) = ISO14443AParityFraming.wrap(withCRC([0x30, 0x04]))
        _ = chip.handle([0x08, 0x63, 0x3D, lastBits])
        let answer = chip.handle([0x42] + frame).immediate ?? []
        #expect(answer.first == 0x00)
        let rxLastBits = Int(chip.registers[.control] & 0x07)
        let bitCount = (answer.count - 2) * 8 + (rxLastBits == 0 ? 8 : rxLastBits)
        let read = ISO14443AParityFraming.unwrap(Array(answer.dropFirst()), bitCount: bitCount)
        #expect(read?.count == 18)
        #expect(read.map { ISO14443.hasValidCRCA($0) } == true)
    }

    @Test func parityFramingMatchesLibnfc() {
        // 93 20: 93 (parity 1) 20 (parity 0) = 18 bits, packed LSB first.
        #expect(ISO14443AParityFraming.wrap([0x93, 0x20]) == ([0x93, 0x41, 0x00], 2))
        #expect(ISO14443AParityFraming.unwrap([0x93, 0x41, 0x00], bitCount: 18) == [0x93, 0x20])
        #expect(ISO14443AParityFraming.unwrap([0x93, 0x40, 0x00], bitCount: 18) == nil)  // wrong parity bit
        #expect(ISO14443AParityFraming.unwrap([0x26], bitCount: 7) == [0x26])
    }

    @Test func isoDEPBlocksAfterRATS() {
        let tag = TestISODEPTag()
        let chip = makeChip([("t4", tag)])
        _ = chip.handle([0x12, 0x04])  // AutoRATS off: the host does RATS itself
        _ = chip.handle([0x4A, 0x01, 0x00])
        #expect(chip.handle([0x42, 0xE0, 0x80]).immediate == [0x00, 0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
        // libnfc's presence ping R(NAK) block 0: the PICC's block number is 1, so R(ACK) 1.
        #expect(chip.handle([0x42, 0xB2]).immediate == [0x00, 0xA3])
        // An I-block with an APDU; the answer comes in an I-block with the same block number.
        #expect(chip.handle([0x42, 0x02, 0x00, 0xA4, 0x04, 0x00]).immediate == [0x00, 0x02, 0x00, 0xA4, 0x04, 0x00, 0x90, 0x00])
        #expect(tag.receivedAPDUs == [[0x00, 0xA4, 0x04, 0x00]])
        // S(DESELECT) is answered and halts the tag.
        #expect(chip.handle([0x42, 0xC2]).immediate == [0x00, 0xC2])
        #expect(chip.handle([0x42, 0x03, 0x00]).answer?.data == [0x01])
    }

    @Test func isoDEPSessionChainsBothWays() {
        var session = ISODEPSession(ratsParameter: 0x00)  // FSD 16: 13 bytes of INF per block
        let long = (0..<20).map { UInt8($0) }
        var seen: [[UInt8]] = []
        #expect(session.handle([0x12, 0xAA]) { seen.append($0); return [] } == .reply([0xA2]))
        let first = session.handle([0x03, 0xBB]) { apdu in seen.append(apdu); return long }
        #expect(seen == [[0xAA, 0xBB]])
        #expect(first == .reply([0x13] + long.prefix(13)))
        #expect(session.handle([0xA2]) { _ in [] } == .reply([0x02] + long.dropFirst(13)))
        // R(NAK) with the current number: the last block again.
        #expect(session.handle([0xB2]) { _ in [] } == .reply([0x02] + long.dropFirst(13)))
    }

    @Test func felicaFramesCarryTheirLength() {
        let blocks = [[UInt8](repeating: 0x11, count: 16), [UInt8](repeating: 0x22, count: 16)]
        let tag = TestFeliCaTag(blocks: blocks)
        let chip = makeChip([("felica", tag)])
        _ = chip.handle([0x4A, 0x01, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x00])
        // Read Without Encryption of block 1 from service 000B (nfc-read-forum-tag3's Check).
        let command: [UInt8] = [0x06] + tag.target.uid + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x01]
        let answer = chip.handle([0x42, UInt8(command.count + 1)] + command).immediate ?? []
        #expect(answer == [0x00, 0x1D, 0x07] + tag.target.uid + [0x00, 0x00, 0x01] + blocks[1])
        // With CRC handling off, the host's CRC goes along and the answer brings the tag's.
        _ = chip.handle([0x08, 0x63, 0x02, 0x02, 0x63, 0x03, 0x02])
        let frame = [UInt8(command.count + 1)] + command
        let raw = chip.handle([0x42] + frame + FeliCaCRC.compute(frame)).immediate ?? []
        #expect(Array(raw.dropFirst().suffix(2)) == FeliCaCRC.compute(Array(raw.dropFirst().dropLast(2))))
        // Polling through the raw path.
        let polling = chip.handle([0x42, 0x06, 0x00, 0xFF, 0xFF, 0x00, 0x00] + FeliCaCRC.compute([0x06, 0x00, 0xFF, 0xFF, 0x00, 0x00]))
        #expect(polling.immediate?.prefix(3) == [0x00, 0x12, 0x01])
    }

    @Test func emptyFrameAndOtherFramingsGetNoAnswer() {
        let chip = makeChip([("ntag", TestType2Tag())])
        #expect(chip.handle([0x42]).answer?.data == [0x01])
        _ = chip.handle([0x08, 0x63, 0x02, 0x83, 0x63, 0x03, 0x83])  // type B, as nfc-list's B' probe
        #expect(chip.handle([0x42, 0x01, 0x0B, 0x3F, 0x80]).answer?.data == [0x01])
    }
}
