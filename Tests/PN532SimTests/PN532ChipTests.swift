import NFCCore
import Testing
@testable import PN532Sim

extension PN532Outcome {
    /// The answer when it is sent at once.
    var immediate: [UInt8]? {
        if case let .answer(data, delay) = self, delay == .zero { return data }
        return nil
    }

    /// The answer and its chip delay.
    var answer: (data: [UInt8], delay: Duration)? {
        if case let .answer(data, delay) = self { return (data, delay) }
        return nil
    }

    var wait: PN532Wait? {
        if case let .wait(wait) = self { return wait }
        return nil
    }

    var isSyntaxError: Bool {
        if case .syntaxError = self { return true }
        return false
    }
}

/// The emulated firmware, command by command, without a pty.
@Suite struct PN532ChipTests {
    /// A chip after libnfc's open + initiator init: AutoRATS on, field on, finite select retries.
    func makeChip(_ tags: [(String, any VirtualTag)], timeScale: Double = 1) -> (PN532Chip, RFField) {
        let field = RFField()
        for (id, tag) in tags { field.place(tag, id: id) }
        let chip = PN532Chip(field: field, timing: PN532Timing(timeScale: timeScale))
        _ = chip.handle([0x12, 0x14])
        _ = chip.handle([0x32, 0x01, 0x01])
        _ = chip.handle([0x32, 0x05, 0x00, 0x01, 0x02])
        return (chip, field)
    }

    static let ntagUID: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]

    // MARK: Miscellaneous commands

    @Test func openSequenceAnswers() {
        let (chip, _) = makeChip([])
        #expect(chip.handle([0x14, 0x01]).immediate == [])
        #expect(chip.handle([0x00, 0x00] + Array("libnfc".utf8)).immediate == [0x00] + Array("libnfc".utf8))
        #expect(chip.handle([0x02]).immediate == [0x32, 0x01, 0x06, 0x07])
        #expect(chip.handle([0x06, 0x63, 0x02, 0x63, 0x03, 0x63, 0x0D, 0x63, 0x38, 0x63, 0x3D]).immediate == [0x80, 0x80, 0x00, 0x00, 0x00])
        #expect(chip.handle([0x16, 0xF0]).immediate == [0x00])
    }

    @Test func unknownCommandsAndBadParametersGetTheErrorFrame() {
        let (chip, _) = makeChip([])
        #expect(chip.handle([0x8C, 0x00]).isSyntaxError)  // TgInitAsTarget: not emulated
        #expect(chip.handle([0x06, 0x63]).isSyntaxError)  // half an address
        #expect(chip.handle([0x32, 0x05, 0x00]).isSyntaxError)  // item 05 needs 3 values
        #expect(chip.handle([0x4A, 0x03, 0x00]).isSyntaxError)  // MaxTg > 2
        #expect(chip.handle([0x14, 0x00]).isSyntaxError)  // SAM mode 0
    }

    @Test func registerFileKeepsWritesAndProtectsRxLastBits() {
        let (chip, _) = makeChip([])
        #expect(chip.handle([0x08, 0x63, 0x02, 0x00, 0x63, 0x05, 0x40, 0x63, 0x3C, 0x17]).immediate == [])
        #expect(chip.handle([0x06, 0x63, 0x02, 0x63, 0x05, 0x63, 0x3C]).immediate == [0x00, 0x40, 0x10])
        #expect(!chip.registers.transmitCRC)
    }

    // MARK: Discovery

    @Test func listsANTAGWithItsSevenByteUID() {
        let (chip, _) = makeChip([("ntag", TestType2Tag())])
        #expect(chip.handle([0x4A, 0x01, 0x00]).immediate == [0x01, 0x01, 0x00, 0x44, 0x00, 0x07] + Self.ntagUID)
        #expect(chip.registers.framing == .typeA)
    }

    @Test func autoRATSAppendsTheATSOnlyWhenEnabled() {
        let (chip, _) = makeChip([("t4", TestISODEPTag())])
        let base: [UInt8] = [0x01, 0x01, 0x03, 0x44, 0x20, 0x04, 0x08, 0x11, 0x22, 0x33]
        #expect(chip.handle([0x4A, 0x01, 0x00]).immediate == base + [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
        _ = chip.handle([0x12, 0x04])  // nfc-mfclassic turns AutoRATS off
        #expect(chip.handle([0x4A, 0x01, 0x00]).immediate == base)
    }

    @Test func twoTagsAnswerOneListWithMaxTwoTargets() {
        let (chip, _) = makeChip([("a", TestType2Tag()), ("b", TestClassicTag())])
        let answer = chip.handle([0x4A, 0x02, 0x00]).immediate
        #expect(answer?.first == 0x02)
        #expect(answer?.count == 1 + 12 + 9)  // NbTg, Tg ATQA SAK len UID(7), Tg ATQA SAK len UID(4)
        #expect(chip.targets.map(\.number) == [1, 2])
    }

    @Test func deselectedTagIsSkippedUntilSelectedByUID() throws {
        let (chip, _) = makeChip([("ntag", TestType2Tag())])
        #expect(chip.handle([0x4A, 0x01, 0x00]).immediate?.first == 0x01)
        #expect(chip.handle([0x44, 0x00]).immediate == [0x00])
        // REQA finds nothing: the chip tries MxRtyPassiveActivation + 1 = 3 times, 5 ms each.
        let wait = try #require(chip.handle([0x4A, 0x01, 0x00]).wait)
        #expect(wait.timeLimit == .milliseconds(15))
        #expect(wait.probe() == nil)
        #expect(wait.giveUpAnswer == [0x00])
        // WUPA + SELECT of the cascaded UID wakes it.
        let cascaded = [0x88] + Self.ntagUID
        #expect(chip.handle([0x4A, 0x01, 0x00] + cascaded).immediate?.prefix(2) == [0x01, 0x01])
    }

    @Test func infiniteRetriesWaitForATagToArrive() throws {
        let (chip, field) = makeChip([])
        _ = chip.handle([0x32, 0x05, 0xFF, 0xFF, 0xFF])
        let wait = try #require(chip.handle([0x4A, 0x01, 0x00]).wait)
        #expect(wait.timeLimit == nil)
        #expect(wait.probe() == nil)
        field.place(TestType2Tag(), id: "late")
        #expect(wait.probe() == [0x01, 0x01, 0x00, 0x44, 0x00, 0x07] + Self.ntagUID)
    }

    @Test func felicaPollingWithSystemCodeRequest() {
        let (chip, _) = makeChip([("felica", TestFeliCaTag())])
        let tag = TestFeliCaTag()
        let answer = chip.handle([0x4A, 0x01, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x00]).immediate
        #expect(answer == [0x01, 0x01, 0x14, 0x01] + tag.target.uid + tag.target.pmm + [0x12, 0xFC])
        #expect(chip.registers.framing == .felica)
        // Without a request code the answer is 18 bytes long; an unknown system code finds nothing.
        #expect(chip.handle([0x4A, 0x01, 0x02, 0x00, 0xFF, 0xFF, 0x00, 0x00]).immediate?[2] == 0x12)
        #expect(chip.handle([0x4A, 0x01, 0x01, 0x00, 0x88, 0xB4, 0x00, 0x00]).wait != nil)
    }

    @Test func typeBAndJewelFindNothing() {
        let (chip, _) = makeChip([("ntag", TestType2Tag())])
        #expect(chip.handle([0x4A, 0x01, 0x03, 0x00]).wait?.probe() == nil)
        #expect(chip.handle([0x4A, 0x01, 0x04]).wait?.probe() == nil)
        #expect(chip.registers.framing == .typeA)
    }

    @Test func autoPollWaitsAndReportsTheTypeThatFound() throws {
        let (chip, field) = makeChip([], timeScale: 0.5)
        let wait = try #require(chip.handle([0x60, 0x14, 0x02, 0x20, 0x10, 0x03, 0x11, 0x12, 0x04, 0x03]).wait)
        // 20 polls × 7 types × 2 × 150 ms = 42 s, at half scale.
        #expect(wait.timeLimit == .seconds(21))
        #expect(wait.probe() == nil)
        field.place(TestType2Tag(), id: "ntag")
        #expect(wait.probe() == [0x01, 0x10, 0x0C, 0x01, 0x00, 0x44, 0x00, 0x07] + Self.ntagUID)
        // An ISO-DEP tag matches type 20h first, with its ATS.
        field.removeAll()
        field.place(TestISODEPTag(), id: "t4")
        let iso = try #require(chip.handle([0x60, 0xFF, 0x01, 0x20, 0x10]).immediate)
        #expect(Array(iso.prefix(3)) == [0x01, 0x20, 0x0F])
        #expect(iso.suffix(6) == [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
    }

    /// UM0701-02 §7.3.13: PollNr 01h–FFh, Period 01h–0Fh, 1 to 15 types; the answer when the polls
    /// find nothing is NbTg 00h alone.
    @Test func autoPollRefusesWhatTheManualRulesOutAndAnswersNoTargetWhenNothingCame() throws {
        let (chip, _) = makeChip([])
        #expect(chip.handle([0x60, 0x00, 0x01, 0x10]).isSyntaxError)  // PollNr 0
        #expect(chip.handle([0x60, 0x01, 0x00, 0x10]).isSyntaxError)  // Period 0
        #expect(chip.handle([0x60, 0x01, 0x10, 0x10]).isSyntaxError)  // Period 10h
        #expect(chip.handle([0x60, 0x01, 0x01]).isSyntaxError)  // no type
        #expect(chip.handle([0x60, 0x01, 0x01] + [UInt8](repeating: 0x10, count: 16)).isSyntaxError)
        let wait = try #require(chip.handle([0x60, 0x02, 0x01, 0x20, 0x10, 0x11]).wait)
        // 2 polls × 3 types × 1 × 150 ms.
        #expect(wait.timeLimit == .milliseconds(900))
        #expect(wait.giveUpAnswer == [0x00])
    }

    /// `--without-autopoll`: a chip without the command answers the syntax-error frame, as a PN533 does.
    @Test func aChipWithoutAutoPollRefusesIt() {
        let field = RFField()
        field.place(TestType2Tag(), id: "ntag")
        let chip = PN532Chip(field: field, timing: PN532Timing(), answersAutoPoll: false)
        #expect(chip.handle([0x60, 0x01, 0x01, 0x10]).isSyntaxError)
        #expect(chip.handle([0x4A, 0x01, 0x00]).immediate?.first == 0x01)
    }

    // MARK: InDataExchange

    @Test func dataExchangeStatuses() throws {
        let (chip, field) = makeChip([("ntag", TestType2Tag())], timeScale: 0.5)
        _ = chip.handle([0x4A, 0x01, 0x00])
        let read = try #require(chip.handle([0x40, 0x01, 0x30, 0x04]).immediate)
        #expect(read.first == 0x00)
        #expect(read.count == 17)
        #expect(chip.handle([0x40, 0x01, 0xA2, 0x05, 1, 2, 3, 4]).immediate == [0x00])  // 4-bit ACK: no data
        #expect(chip.handle([0x40, 0x01, 0x30, 0xFF]).immediate == [0x13])  // NAK
        // After the NAK the tag is IDLE: silence, after RetryTimeout (51.2 ms at half scale).
        let silent = try #require(chip.handle([0x40, 0x01, 0x30, 0x00]).answer)
        #expect(silent.data == [0x01])
        #expect(silent.delay == .microseconds(25600))
        #expect(chip.handle([0x40, 0x02, 0x30, 0x00]).immediate == [0x27])  // no target 2
        field.remove(id: "ntag")
        #expect(chip.handle([0x40, 0x01, 0x30, 0x00]).answer?.data == [0x01])
    }

    @Test func compatibilityWriteIsSentAsTwoFrames() {
        let tag = TestType2Tag()
        let (chip, _) = makeChip([("ntag", tag)])
        _ = chip.handle([0x4A, 0x01, 0x00])
        #expect(chip.handle([0x40, 0x01, 0xA0, 0x06] + (1...16).map { UInt8($0) }).immediate == [0x00])
        #expect(Array(tag.memory[24..<28]) == [1, 2, 3, 4])
        #expect(tag.receivedFrames.suffix(2) == [[0xA0, 0x06], (1...16).map { UInt8($0) }])
    }

    @Test func classicAuthenticationSetsCrypto1OrHaltsTheTag() {
        let tag = TestClassicTag()
        let (chip, _) = makeChip([("mfc", tag)])
        _ = chip.handle([0x4A, 0x01, 0x00])
        let uid = tag.target.uid
        #expect(chip.handle([0x40, 0x01, 0x60, 0x07] + tag.key + uid).immediate == [0x00])
        #expect(chip.registers.crypto1On)
        #expect(chip.handle([0x40, 0x01, 0x30, 0x04]).immediate == [0x00] + [UInt8](repeating: 4, count: 16))
        #expect(chip.handle([0x40, 0x01, 0x61, 0x0B, 1, 2, 3, 4, 5, 6] + uid).immediate == [0x14])
        #expect(!chip.registers.crypto1On)
        // HALTed: only a select by UID finds it again.
        #expect(chip.handle([0x4A, 0x01, 0x00]).wait != nil)
        #expect(chip.handle([0x4A, 0x01, 0x00] + uid).immediate?.first == 0x01)
        // A Type 2 tag cannot do MIFARE authentication at all.
        let (type2Chip, _) = makeChip([("ntag", TestType2Tag())])
        _ = type2Chip.handle([0x4A, 0x01, 0x00])
        #expect(type2Chip.handle([0x40, 0x01, 0x60, 0x04, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]).immediate == [0x14])
    }

    @Test func longISODEPAnswersComeInPartsWithMI() throws {
        let response = (0..<400).map { UInt8(truncatingIfNeeded: $0) } + [0x90, 0x00]
        let tag = TestISODEPTag { _ in response }
        let (chip, _) = makeChip([("t4", tag)])
        _ = chip.handle([0x4A, 0x01, 0x00])
        let first = try #require(chip.handle([0x40, 0x01, 0x00, 0xB0, 0x00, 0x00, 0x00]).immediate)
        #expect(first.first == 0x40)  // MI, never NAD (bit 7)
        #expect(first.count == 1 + 262)
        let rest = try #require(chip.handle([0x40, 0x01]).immediate)
        #expect(rest.first == 0x00)
        #expect(Array(first.dropFirst()) + rest.dropFirst() == response)
        #expect(tag.receivedAPDUs == [[0x00, 0xB0, 0x00, 0x00, 0x00]])
    }

    @Test func hostChainedAPDUIsJoinedBeforeTheTagSeesIt() {
        let tag = TestISODEPTag()
        let (chip, _) = makeChip([("t4", tag)])
        _ = chip.handle([0x4A, 0x01, 0x00])
        #expect(chip.handle([0x40, 0x41, 0x00, 0xD6]).immediate == [0x00])
        #expect(chip.handle([0x40, 0x01, 0x00, 0x00, 0x01, 0xAA]).immediate == [0x00, 0x00, 0xD6, 0x00, 0x00, 0x01, 0xAA, 0x90, 0x00])
        #expect(tag.receivedAPDUs == [[0x00, 0xD6, 0x00, 0x00, 0x01, 0xAA]])
    }

    @Test func oversizedPlainAnswerIsStatus07() {
        let (chip, _) = makeChip([("big", ScriptedTypeATag { _ in .data([UInt8](repeating: 0xEE, count: 300)) })])
        _ = chip.handle([0x4A, 0x01, 0x00])
        #expect(chip.handle([0x40, 0x01, 0x3A, 0x00, 0x4A]).immediate == [0x07])
    }

    @Test func fieldOffPowersTagsDownAndForgetsTargets() {
        let (chip, _) = makeChip([("ntag", TestType2Tag())])
        _ = chip.handle([0x4A, 0x01, 0x00])
        _ = chip.handle([0x32, 0x01, 0x00])
        #expect(chip.handle([0x40, 0x01, 0x30, 0x00]).immediate == [0x27])
        #expect(chip.handle([0x42, 0x26]).answer?.data == [0x01])
    }

    // MARK: Faults

    @Test func corruptNextWriteFlipsTheLastByteOnce() {
        let tag = TestType2Tag()
        let (chip, field) = makeChip([("ntag", tag)])
        _ = chip.handle([0x4A, 0x01, 0x00])
        field.corruptNextWrite()
        _ = chip.handle([0x40, 0x01, 0x30, 0x04])  // reads are left alone
        #expect(chip.handle([0x40, 0x01, 0xA2, 0x05, 1, 2, 3, 4]).immediate == [0x00])
        #expect(chip.handle([0x40, 0x01, 0xA2, 0x06, 1, 2, 3, 4]).immediate == [0x00])
        #expect(Array(tag.memory[20..<28]) == [1, 2, 3, 0xFB, 1, 2, 3, 4])
    }

    @Test func removeAfterCommandsTakesTheTagAway() {
        let (chip, field) = makeChip([("ntag", TestType2Tag())])
        _ = chip.handle([0x4A, 0x01, 0x00])
        field.removeAfterCommands(2, id: "ntag")
        #expect(chip.handle([0x40, 0x01, 0x30, 0x00]).immediate?.first == 0x00)
        #expect(chip.handle([0x40, 0x01, 0x30, 0x04]).immediate?.first == 0x00)
        #expect(chip.handle([0x40, 0x01, 0x30, 0x08]).answer?.data == [0x01])
        #expect(!field.contains(id: "ntag"))
    }
}
