import Testing
@testable import PN532Sim

/// Each virtual Type 2 product answers the commands its datasheet lists and refuses the others as the
/// chip does (NAK 0h and IDLE; the original Ultralight stays silent). The expected sets are written
/// here from the datasheets' command overviews, apart from the simulator's rows
/// (``VirtualType2Product/features``), so a row that gives a product a command it lacks fails.
@Suite struct VirtualType2CommandSetTests {
    static let uid: [UInt8] = [0x04, 0x58, 0x69, 0xD2, 0x9C, 0x39, 0x80]

    /// The command codes beyond READ (30h), WRITE (A2h) and HALT (50h), each with a frame the products
    /// that list it answer (the factory state; NTAG21x with NFC_CNT_EN set for READ_CNT).
    static let catalog: [(code: UInt8, frame: [UInt8])] = [
        (0x60, [0x60]),  // GET_VERSION
        (0x3A, [0x3A, 0x04, 0x05]),  // FAST_READ pages 04h–05h
        (0x3C, [0x3C, 0x00]),  // READ_SIG
        (0x39, [0x39, 0x02]),  // READ_CNT counter 2 (the NTAG21x NFC counter; EV1 has 0–2)
        (0x3E, [0x3E, 0x00]),  // CHECK_TEARING_EVENT counter 0
        (0x1B, [0x1B, 0xFF, 0xFF, 0xFF, 0xFF]),  // PWD_AUTH with the factory password
        (0x1A, [0x1A, 0x00]),  // AUTHENTICATE part 1 (3DES)
        (0xA0, [0xA0, 0x04]),  // COMPATIBILITY_WRITE, first frame
        (0xA5, [0xA5, 0x00, 0x01, 0x00, 0x00, 0x00]),  // INCR_CNT counter 0 by 1
        (0x4B, [0x4B] + [UInt8](repeating: 0x00, count: 20)),  // VCSL: IID (16 bytes), PCDCAPS (4 bytes)
    ]

    /// Per product, the catalog codes its datasheet lists:
    /// - MF0ICU1 §9 (Ultralight): READ, WRITE, COMPATIBILITY_WRITE, HALT; nothing answers the rest.
    /// - MF0ICU2 §9 (Ultralight C): adds AUTHENTICATE 1Ah.
    /// - MF0ULX1 §9.1, §10 (Ultralight EV1): GET_VERSION, FAST_READ, READ_CNT, INCR_CNT, READ_SIG,
    ///   CHECK_TEARING_EVENT, PWD_AUTH, VCSL.
    /// - NTAG203 §9: READ, WRITE, COMPATIBILITY_WRITE, HALT.
    /// - NTAG210_212 §9.1, §10: GET_VERSION, FAST_READ, READ_SIG, PWD_AUTH (no counter command, no tearing
    ///   flag, no VCSL).
    /// - NTAG213/215/216 §9.1, §10: GET_VERSION, FAST_READ, READ_CNT, READ_SIG, PWD_AUTH (no INCR_CNT, no
    ///   tearing flag, no VCSL).
    static let listed: [(VirtualType2Model, Set<UInt8>)] = [
        (.ultralight, [0xA0]),
        (.ultralightC, [0xA0, 0x1A]),
        (.ultralightEV1_11, [0x60, 0x3A, 0x3C, 0x39, 0xA5, 0x3E, 0x1B, 0xA0, 0x4B]),
        (.ultralightEV1_21, [0x60, 0x3A, 0x3C, 0x39, 0xA5, 0x3E, 0x1B, 0xA0, 0x4B]),
        (.ntag203, [0xA0]),
        (.ntag210, [0x60, 0x3A, 0x3C, 0x1B, 0xA0]),
        (.ntag212, [0x60, 0x3A, 0x3C, 0x1B, 0xA0]),
        (.ntag213, [0x60, 0x3A, 0x3C, 0x39, 0x1B, 0xA0]),
        (.ntag215, [0x60, 0x3A, 0x3C, 0x39, 0x1B, 0xA0]),
        (.ntag216, [0x60, 0x3A, 0x3C, 0x39, 0x1B, 0xA0]),
    ]

    static func fresh(_ model: VirtualType2Model) -> VirtualType2Tag {
        let tag = VirtualType2Tag(model: model, uid: uid)
        if [.ntag213, .ntag215, .ntag216].contains(model) { tag.setNFCCounterEnabled(true) }
        _ = tag.activate()
        return tag
    }

    /// Every named model is in the table once.
    @Test func everyNamedModelHasASet() {
        #expect(Self.listed.map(\.0) == VirtualType2Model.named)
    }

    /// A code the datasheet does not list is refused: NAK 0h (silence on the original Ultralight), and
    /// the tag is IDLE afterwards (a READ gets no answer until it is selected again).
    @Test(arguments: listed) func anUnlistedCommandIsRefused(model: VirtualType2Model, codes: Set<UInt8>) {
        let refusal: VirtualTagReply = model == .ultralight ? .silent : .nak(0)
        for (code, frame) in Self.catalog where !codes.contains(code) {
            let tag = Self.fresh(model)
            #expect(tag.receive(frame) == refusal, "\(model) \(code)")
            #expect(tag.receive([0x30, 0x00]) == .silent, "\(model) \(code): not IDLE after the refusal")
        }
    }

    /// A code the datasheet lists is answered (data or ACK), never refused.
    @Test(arguments: listed) func aListedCommandIsAnswered(model: VirtualType2Model, codes: Set<UInt8>) {
        for (code, frame) in Self.catalog where codes.contains(code) {
            let answer = Self.fresh(model).receive(frame)
            #expect(answer != .silent && answer != .nak(0), "\(model) \(code): \(answer)")
        }
    }

    /// Every catalog code is listed by some product, so a listed command is answered somewhere.
    @Test func everyCatalogCodeIsListedBySomeProduct() {
        for (code, _) in Self.catalog {
            #expect(Self.listed.contains { $0.1.contains(code) }, "\(code): no product lists it")
        }
    }

    // MARK: INCR_CNT and VCSL (MF0ULX1 §10.7, §10.11)

    /// INCR_CNT adds the 24-bit increment (least significant byte first, the fourth byte ignored) to the
    /// addressed counter and ACKs; READ_CNT then shows the sum. An increment of 0 is accepted.
    @Test(arguments: [VirtualType2Model.ultralightEV1_11, .ultralightEV1_21])
    func incrementCounterAddsToTheCounter(model: VirtualType2Model) {
        let tag = Self.fresh(model)
        #expect(tag.receive([0xA5, 0x01, 0x34, 0x12, 0x00, 0xFF]) == .ack)
        #expect(tag.receive([0xA5, 0x01, 0x01, 0x00, 0x00, 0x00]) == .ack)
        #expect(tag.receive([0xA5, 0x01, 0x00, 0x00, 0x00, 0x00]) == .ack)
        #expect(tag.receive([0x39, 0x01]) == .data([0x35, 0x12, 0x00]))
        #expect(tag.receive([0x39, 0x00]) == .data([0x00, 0x00, 0x00]), "counter 0 untouched")
        #expect(tag.counters == [0, 0x1235, 0])
    }

    /// A sum above FFFFFFh is NAKed and the counter keeps its value; a counter number above 02h is NAKed.
    @Test func incrementCounterRefusesAnOverflowAndAWrongCounter() {
        let tag = Self.fresh(.ultralightEV1_11)
        tag.counters = [0xFF_FFFE, 0, 0]
        #expect(tag.receive([0xA5, 0x00, 0x01, 0x00, 0x00, 0x00]) == .ack)
        #expect(tag.receive([0xA5, 0x00, 0x01, 0x00, 0x00, 0x00]) == .nak(0x4))
        #expect(tag.counters == [0xFF_FFFF, 0, 0])
        _ = tag.activate()
        #expect(tag.receive([0xA5, 0x00, 0x00, 0x00, 0x00, 0x00]) == .ack, "an increment of 0 at FFFFFFh")
        #expect(tag.receive([0xA5, 0x03, 0x01, 0x00, 0x00, 0x00]) == .nak(0x0))
        #expect(tag.receive([0x30, 0x00]) == .silent, "IDLE after the NAK")
    }

    /// VCSL answers VCTID, byte 1 of CFG1: 05h at delivery, then whatever was written there. IID and
    /// PCDCAPS are not checked, their length is.
    @Test(arguments: [(VirtualType2Model.ultralightEV1_11, 0x11), (.ultralightEV1_21, 0x26)])
    func virtualCardSelectAnswersVCTID(model: VirtualType2Model, cfg1: Int) {
        let tag = Self.fresh(model)
        let iid = [UInt8](repeating: 0xA1, count: 16)
        #expect(tag.receive([0x4B] + iid + [0x01, 0x02, 0x03, 0x04]) == .data([0x05]))
        #expect(tag.receive([0xA2, UInt8(cfg1), 0x00, 0x42, 0x00, 0x00]) == .ack)
        #expect(tag.receive([0x4B] + iid + [0x00, 0x00, 0x00, 0x00]) == .data([0x42]))
        #expect(tag.receive([0x4B] + iid + [0x00]) == .nak(0x0), "a short VCSL")
    }
}
