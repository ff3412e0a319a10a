import Testing
@testable import NFCCore

/// The ATS split as ISO/IEC 14443-4 §5.2 lays it out, and written as Flipper's ISO 14443-4A keys
/// (flipperzero-firmware `lib/nfc/protocols/iso14443_4a/iso14443_4a.c` `iso14443_4a_save`).
@Suite struct AnswerToSelectTests {
    /// A DESFire EV1's ATS (without TL): T0 75h announces TA(1), TB(1), TC(1); one historical byte.
    @Test func allInterfaceBytes() throws {
        let ats = try #require(AnswerToSelect(withoutLength: [0x75, 0x77, 0x81, 0x02, 0x80]))
        #expect(ats == AnswerToSelect(t0: 0x75, ta1: 0x77, tb1: 0x81, tc1: 0x02, historicalBytes: [0x80]))
        #expect(try DESFireFlipperExport.atsLines([0x75, 0x77, 0x81, 0x02, 0x80])
            == ["# ISO14443-4A specific data", "T0: 75", "TA(1): 77", "TB(1): 81", "TC(1): 02", "T1...Tk: 80"])
    }

    /// Only the interface bytes T0 announces are read, in the order TA, TB, TC; what follows is historical.
    @Test func onlyAnnouncedInterfaceBytes() throws {
        #expect(AnswerToSelect(withoutLength: [0x40, 0x02, 0xC1, 0x05])
            == AnswerToSelect(t0: 0x40, ta1: nil, tb1: nil, tc1: 0x02, historicalBytes: [0xC1, 0x05]))
        #expect(AnswerToSelect(withoutLength: [0x05]) == AnswerToSelect(t0: 0x05, ta1: nil, tb1: nil, tc1: nil, historicalBytes: []))
        #expect(try DESFireFlipperExport.atsLines([0x05]) == ["# ISO14443-4A specific data", "T0: 05"])
        #expect(try DESFireFlipperExport.atsLines([0x20, 0x81]) == ["# ISO14443-4A specific data", "T0: 20", "TB(1): 81"])
        #expect(try DESFireFlipperExport.atsLines([]) == [])
    }

    /// An ATS cut before an announced interface byte is not split, and not written to a Flipper file
    /// (whose loader would refuse the missing key).
    @Test func aTruncatedATSIsRefused() {
        #expect(AnswerToSelect(withoutLength: []) == nil)
        #expect(AnswerToSelect(withoutLength: [0x75, 0x77, 0x81]) == nil)
        #expect(AnswerToSelect(withoutLength: [0x70]) == nil)
        #expect(throws: NFCError.self) { try DESFireFlipperExport.atsLines([0x75, 0x77]) }
    }
}
