import NFCCore
import Testing
@testable import PN532Sim

/// MIFARE Classic Mini / 1K / 4K refuse what MF1S50yyX/V1 and MF1S70yyX/V1 §9.1 Table 9 do not list
/// (``VirtualClassicCommandSet``): no answer, and the card leaves ACTIVE (ISO/IEC 14443-3 §6.3), so the
/// authenticated session is gone too.
@Suite struct VirtualClassicCommandSetTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]

    /// An ACTIVE card authenticated to sector 1 with the transport key A.
    static func authenticated(_ model: VirtualClassicTag.Model) throws -> VirtualClassicTag {
        let tag = try VirtualClassicTag(model: model, uid: uid)
        _ = tag.activate()
        #expect(tag.authenticate(block: 4, keyType: .a, key: VirtualClassicTag.factoryKey, uid: uid))
        return tag
    }

    /// Frames of the Ultralight / NTAG command sets (MF0ULx1 §10, NTAG213/215/216 §10) and of
    /// ISO/IEC 14443-4, none of them in Table 9: page WRITE A2h, FAST_READ 3Ah, PWD_AUTH 1Bh, READ_SIG 3Ch, READ_CNT 39h, Ultralight C AUTHENTICATE 1Ah,
    /// CHECK_TEARING_EVENT 3Eh, VCSL 4Bh, RATS E0h, an I-block 02h.
    static let unlisted: [[UInt8]] = [
        [0xA2, 0x04, 1, 2, 3, 4], [0x3A, 0x04, 0x05], [0x1B, 0xFF, 0xFF, 0xFF, 0xFF], [0x3C, 0x00], [0x39, 0x02],
        [0x1A, 0x00], [0x3E, 0x00], [0x4B] + [UInt8](repeating: 0, count: 20), [0xE0, 0x50], [0x02, 0x00, 0xA4],
    ]

    @Test(arguments: VirtualClassicTag.Model.allCases)
    func aCommandOutsideTable9IsNotAnsweredAndEndsTheSession(model: VirtualClassicTag.Model) throws {
        for frame in Self.unlisted {
            let tag = try Self.authenticated(model)
            #expect(tag.receive([0x30, 0x04]) == .data([UInt8](repeating: 0, count: 16)), "\(model): readable before")
            #expect(tag.receive(frame) == .silent, "\(model) \(frame.hexString)")
            #expect(tag.receive([0x30, 0x04]) == .silent, "\(model) \(frame.hexString): the card left ACTIVE")
            #expect(!tag.authenticate(block: 4, keyType: .a, key: VirtualClassicTag.factoryKey, uid: Self.uid),
                    "\(model) \(frame.hexString): halted until woken")
            _ = tag.activate()
            #expect(tag.authenticate(block: 4, keyType: .a, key: VirtualClassicTag.factoryKey, uid: Self.uid))
        }
    }

    /// Listed but not modelled (value operations C0h/C1h/C2h/B0h, Personalize UID Usage 40h,
    /// SET_MOD_TYPE 43h): silence, never a made-up ACK.
    @Test(arguments: [[0xC0, 0x05], [0xC1, 0x05], [0xC2, 0x05], [0xB0, 0x05], [0x40, 0x00], [0x43, 0x00]] as [[UInt8]])
    func aListedCommandNotModelledGetsNoAnswer(frame: [UInt8]) throws {
        let tag = try Self.authenticated(.classic1K)
        #expect(tag.receive(frame) == .silent)
        #expect(tag.receive([0x30, 0x04]) == .silent)
    }

    /// The listed READ / WRITE of a wrong length: NAK 4h (Table 10, invalid operation), card halted.
    @Test func aListedCommandOfTheWrongLengthIsNAKed() throws {
        let tag = try Self.authenticated(.classic4K)
        #expect(tag.receive([0x30, 0x04, 0x00]) == .nak(0x4))
        #expect(tag.receive([0x30, 0x04]) == .silent)
    }

    @Test func theTableListsEachCodeOnceAndNoUltralightCommand() {
        let codes = VirtualClassicCommandSet.rows.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.count == 11)
        for code: UInt8 in [0xA2, 0x3A, 0x1B, 0x3C, 0x39, 0x1A, 0x3E, 0x4B, 0xE0] {
            #expect(VirtualClassicCommandSet.handling(of: code) == nil)
        }
    }
}

/// The type B card refuses what ISO/IEC 14443-3 §7 does not give a type B PICC (REQB/WUPB 05h,
/// Slot-MARKER, ATTRIB 1Dh, HLTB 50h): type A frames and Type 2 commands get no answer and do not move
/// the card; its Type 4 application refuses APDUs outside NFC Forum T4T §5 with ISO/IEC 7816-4 §5.1.3
/// status words.
@Suite struct TypeBCommandSetTests {
    static let pupi: [UInt8] = [0x1A, 0x2B, 0x3C, 0x4D]

    static func card() throws -> VirtualTypeBTag {
        let application = try VirtualType4Tag(uid: [0x04, 1, 2, 3, 4, 5, 6], ndef: [0xD0, 0x00, 0x00], capacity: 64)
        return try VirtualTypeBTag(pupi: pupi, application: application)
    }

    static func send(_ card: VirtualTypeBTag, _ frame: [UInt8]) -> [UInt8]? {
        card.receiveAir(frame + ISO14443.crcB(frame)).map { Array($0.dropLast(2)) }
    }

    /// REQA 26h, WUPA 52h, type A anticollision 93 20, RATS E0 80, Type 2 READ 30h and GET_VERSION 60h,
    /// and a Slot-MARKER (APn 15h) when the card already answered in slot 1.
    static let typeAFrames: [[UInt8]] = [[0x26], [0x52], [0x93, 0x20], [0xE0, 0x80], [0x30, 0x04], [0x60], [0x15]]

    @Test func framesOutsideTheTypeBSetAreIgnoredInEveryState() throws {
        let card = try Self.card()
        for frame in Self.typeAFrames { #expect(Self.send(card, frame) == nil, "IDLE \(frame.hexString)") }
        #expect(Self.send(card, [0x05, 0x00, 0x00])?.first == 0x50)
        for frame in Self.typeAFrames { #expect(Self.send(card, frame) == nil, "READY \(frame.hexString)") }
        // Still READY: ATTRIB for its PUPI is answered.
        #expect(Self.send(card, [0x1D] + Self.pupi + [0x00, 0x08, 0x01, 0x00]) == [0x00])
    }

    /// ACTIVE: an UPDATE BINARY is fine, GET CHALLENGE 84h, GET DATA CAh and INTERNAL AUTHENTICATE 88h
    /// are not T4T commands (6D00), DESFire-wrapped GetVersion is another class (6E00).
    @Test func theApplicationRefusesAPDUsOutsideTheT4TSet() throws {
        let card = try Self.card()
        _ = Self.send(card, [0x05, 0x00, 0x00])
        #expect(Self.send(card, [0x1D] + Self.pupi + [0x00, 0x08, 0x01, 0x00]) == [0x00])
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        #expect(Self.send(card, [0x02] + select) == [0x02, 0x90, 0x00])
        #expect(Self.send(card, [0x03, 0x00, 0x84, 0x00, 0x00, 0x08]) == [0x03, 0x6D, 0x00])
        #expect(Self.send(card, [0x02, 0x00, 0xCA, 0x00, 0x6E, 0x00]) == [0x02, 0x6D, 0x00])
        #expect(Self.send(card, [0x03, 0x00, 0x88, 0x00, 0x00, 0x08, 1, 2, 3, 4, 5, 6, 7, 8, 0x00]) == [0x03, 0x6D, 0x00])
        #expect(Self.send(card, [0x02, 0x90, 0x60, 0x00, 0x00, 0x00]) == [0x02, 0x6E, 0x00])
    }
}

/// The eMRTD chip refuses what ICAO Doc 9303-10 §3.6 / 9303-11 §4 do not give it without access keys
/// (``VirtualEMRTDTag``): unknown INS 6D00, a DESFire-wrapped command 6E00, the NFC Forum NDEF
/// application 6A82, and a short frame 6700.
@Suite struct EMRTDCommandSetTests {
    @Test(arguments: [
        ([UInt8]([0x00, 0xD6, 0x00, 0x00, 0x01, 0x00]), [UInt8]([0x6D, 0x00])),  // UPDATE BINARY
        ([0x00, 0xCA, 0x00, 0x6E, 0x00], [0x6D, 0x00]),  // GET DATA
        ([0x00, 0xE2, 0x00, 0x00, 0x01, 0x00], [0x6D, 0x00]),  // APPEND RECORD
        ([0x90, 0x60, 0x00, 0x00, 0x00], [0x6E, 0x00]),  // DESFire GetVersion
        ([0x90, 0xBD, 0x00, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 0x00], [0x6E, 0x00]),  // DESFire ReadData
        ([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x6A, 0x82]),  // T4T NDEF app
        ([0x60], [0x67, 0x00]),  // native DESFire / Type 2 GET_VERSION
    ])
    func aCommandThePassportDoesNotTakeIsRefused(apdu: [UInt8], status: [UInt8]) throws {
        let tag = try VirtualEMRTDTag(uid: [0x08, 0x01, 0x02, 0x03])
        _ = tag.activate()
        #expect(tag.process(apdu: apdu) == status)
        // The LDS application is still reachable afterwards: a refusal changes no state.
        #expect(tag.process(apdu: [0x00, 0xA4, 0x04, 0x0C, 0x07] + VirtualEMRTDTag.ldsApplication) == [0x90, 0x00])
    }
}
