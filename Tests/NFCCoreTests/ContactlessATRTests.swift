import NFCCore
import Testing

/// The PC/SC part 3 contactless ATR table (`ContactlessATR`) and the target it builds. The ATR vectors
/// are real readers' ATRs as pcsc-tools' smartcard_list.txt records them.
@Suite struct ContactlessATRTests {
    private func atr(_ hex: String) throws -> ContactlessATR {
        let bytes = try #require([UInt8](hex: String(hex.filter { $0 != " " })))
        return try #require(ContactlessATR(bytes))
    }

    @Test func storageCardsGiveStandardAndName() throws {
        let classic = try atr("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A")
        #expect(classic.kind == .storage(standard: 0x03, cardName: 0x0001))
        #expect(classic.cardName?.name == "MIFARE Classic 1K")
        #expect(classic.modulation == .iso14443a)
        #expect(classic.summary == "MIFARE Classic 1K (ISO 14443 A, part 3)")

        let ultralight = try atr("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68")
        #expect(ultralight.cardName?.name == "MIFARE Ultralight")

        let icode = try atr("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 14 00 00 00 00 77")
        #expect(icode.kind == .storage(standard: 0x0B, cardName: 0x0014))
        #expect(icode.modulation == .iso15693)
        #expect(icode.cardName?.name == "ICODE SLI")
    }

    @Test func isoDEPCardsKeepTheirHistoricalBytes() throws {
        let desfire = try atr("3B 81 80 01 80 80")
        #expect(desfire.kind == .isoDEP(historicalBytes: [0x80]))
        #expect(desfire.modulation == .iso14443a)
        let ev1 = try atr("3B 86 80 01 06 75 77 81 02 80 00")
        #expect(ev1.kind == .isoDEP(historicalBytes: [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]))
    }

    @Test func otherATRsAreRefused() throws {
        // A wrong TCK, a contact card's ATR, a truncated one.
        #expect(ContactlessATR([0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x6B]) == nil)
        #expect(ContactlessATR([0x3B, 0x9F, 0x95, 0x81, 0x31, 0xFE, 0x9F, 0x00, 0x66, 0x46, 0x53, 0x05]) == nil)
        #expect(ContactlessATR([0x3B, 0x8F, 0x80, 0x01]) == nil)
        #expect(ContactlessATR([]) == nil)
    }

    /// A reader that answers ATQA and SAK gives the libnfc target; one that does not gets the card name's.
    @Test func targetsClassifyLikeLibNFCTargets() throws {
        let classicATR = try atr("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A")
        let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
        let answered = try #require(Target(contactlessATR: classicATR, uid: uid, atqa: [0x00, 0x04], sak: 0x08, ats: nil))
        #expect(answered == Target(uid: uid, atqa: [0x00, 0x04], sak: 0x08))
        let fromName = try #require(Target(contactlessATR: classicATR, uid: uid, atqa: nil, sak: nil, ats: nil))
        #expect(CardClassifier.classify(fromName) == .mifareClassic1K)

        let ultralight = try atr("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68")
        let ntag = try #require(Target(contactlessATR: ultralight, uid: [0x04, 1, 2, 3, 4, 5, 6], atqa: nil, sak: nil, ats: nil))
        #expect(CardClassifier.classify(ntag) == .mifareUltralight)

        // ISO-DEP without ATQA: the SAK-only rows (generic ISO 7816, probed further by the family).
        let desfire = try atr("3B 81 80 01 80 80")
        let card = try #require(Target(contactlessATR: desfire, uid: [0x04, 1, 2, 3, 4, 5, 6], atqa: nil, sak: nil, ats: nil))
        #expect(card.sak == 0x20)
        #expect(card.ats == [0x78, 0x77, 0x81, 0x02, 0x80])
        #expect(CardClassifier.classify(card) == .smartMX)
        let withATQA = try #require(Target(contactlessATR: desfire, uid: [0x04, 1, 2, 3, 4, 5, 6], atqa: [0x03, 0x44], sak: 0x20, ats: [0x75, 0x77, 0x81, 0x02, 0x80]))
        #expect(CardClassifier.classify(withATQA) == .mifareDesfire)
    }

    /// ISO 15693 UIDs are held MSB first (E0h first) whichever order the reader gave.
    @Test func vicinityUIDsAreMSBFirst() throws {
        let icode = try atr("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 14 00 00 00 00 77")
        let onAir: [UInt8] = [0x08, 0x07, 0x06, 0x05, 0x04, 0x01, 0x04, 0xE0]
        let target = try #require(Target(contactlessATR: icode, uid: onAir, atqa: nil, sak: nil, ats: nil))
        #expect(target.modulation == .iso15693)
        #expect(target.uid == Array(onAir.reversed()))
        let already = try #require(Target(contactlessATR: icode, uid: Array(onAir.reversed()), atqa: nil, sak: nil, ats: nil))
        #expect(already.uid == Array(onAir.reversed()))
        #expect(CardClassifier.classify(target) == .iso15693_generic)
    }
}
