import Testing
@testable import NFCCore

/// CRC_A / CRC_B / BCC vectors (ISO/IEC 14443-3; re-verified values from the reference notes).
@Suite struct CRCTests {
    @Test(arguments: [
        ([0x00], [0xFE, 0x51]),
        ([0x30, 0x04], [0x26, 0xEE]),
        ([0x60, 0x00], [0xF5, 0x7B]),
        ([0x50, 0x00], [0x57, 0xCD]),
        ([0x60], [0xF8, 0x32]),
    ] as [([UInt8], [UInt8])])
    func crcA(input: [UInt8], expected: [UInt8]) {
        #expect(ISO14443.crcA(input) == expected)
        #expect(ISO14443.hasValidCRCA(input + expected))
    }

    @Test(arguments: [
        ([0x05, 0x00], [0xFF, 0x71]),
        ([0x01, 0x02, 0x03], [0x3B, 0x9D]),
    ] as [([UInt8], [UInt8])])
    func crcB(input: [UInt8], expected: [UInt8]) {
        #expect(ISO14443.crcB(input) == expected)
    }

    @Test func bccOfSevenByteUID() {
        // 04 58 69 | BD and D2 9C 39 80 | F7 (Proxmark3 ntag216-empty.json).
        #expect(ISO14443.bcc([0x88, 0x04, 0x58, 0x69]) == 0xBD)
        #expect(ISO14443.bcc([0xD2, 0x9C, 0x39, 0x80]) == 0xF7)
    }

    @Test func hexRoundTrip() {
        #expect([UInt8](hex: "04 a1:B2-0c") == [0x04, 0xA1, 0xB2, 0x0C])
        #expect([UInt8](hex: "0x0A") == [0x0A])
        #expect([UInt8](hex: "ABC") == nil)
        #expect([UInt8](hex: "zz") == nil)
        #expect([0x04, 0xA1].hexString == "04A1")
        #expect([0x04, 0xA1].spacedHexString == "04 A1")
    }
}
