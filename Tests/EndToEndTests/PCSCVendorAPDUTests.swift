import NFCCore
import Testing
@testable import PCSCReader

/// The vendor commands of the reader profiles, byte for byte as their manuals give them, and the
/// profile table's choices by reader name.
@Suite struct PCSCVendorAPDUTests {
    /// ACR122U API v2.04, Pseudo-APDUs: Direct Transmit wraps the PN532 command; InCommunicateThru is D4 42.
    @Test func directTransmitWrapsInCommunicateThru() throws {
        #expect(PCSCVendorAPDU.inCommunicateThru([0x60]).hexString == "FF00000003D44260")
        #expect(try PCSCVendorAPDU.thruAnswer([0xD5, 0x43, 0x00, 0x00, 0x04, 0x90, 0x00]) == .data([0x00, 0x04]))
        #expect(try PCSCVendorAPDU.thruAnswer([0xD5, 0x43, 0x01, 0x90, 0x00]) == .timeout)
        #expect(try PCSCVendorAPDU.thruAnswer([0xD5, 0x43, 0x02, 0x90, 0x00]) == .pn532Error(0x02))
        #expect(try PCSCVendorAPDU.thruAnswer([0x63, 0x00]) == .refused(0x63, 0x00))
        #expect(throws: NFCError.self) { try PCSCVendorAPDU.thruAnswer([0x90]) }
    }

    /// Bi-color LED and Buzzer Control: P2 = final red (bit 0) / green (bit 1) with both update masks
    /// (bits 2, 3); T1 100 ms units, T2 100 ms, repetitions, link to buzzer during T1.
    @Test func ledAndBuzzerPseudoAPDU() {
        #expect(PCSCVendorAPDU.ledAndBuzzer(red: true, green: false, beeps: 2, beepUnits: 1).hexString == "FF00400D0401010201")
        #expect(PCSCVendorAPDU.ledAndBuzzer(red: false, green: true, beeps: 0, beepUnits: 1).hexString == "FF00400E0401010100")
        #expect(PCSCVendorAPDU.firmwareVersion.hexString == "FF00480000")
    }

    /// ACS escape commands (ACR1252U / ACR1552U reference manuals, peripherals control): LED Control
    /// E0 00 00 29 01 state, Buzzer Control E0 00 00 28 01 duration; answers start E1; IOCTL 3500.
    @Test func escapeCommands() {
        #expect(PCSCVendorAPDU.escapeLED(red: true, green: true).hexString == "E00000290103")
        #expect(PCSCVendorAPDU.escapeBuzzer(tenMilliseconds: 10).hexString == "E0000028010A")
        #expect(PCSCVendorAPDU.escapeSucceeded([0xE1, 0x00, 0x00, 0x00, 0x01, 0x03]))
        #expect(!PCSCVendorAPDU.escapeSucceeded([0x63, 0x00]))
        #expect(PCSCVendorAPDU.escapeControlCode == 0x4200_0DAC)
    }

    /// Profiles by the names pcscd gives the readers; names no row knows are left to the reader's answers.
    @Test func profilesByReaderName() {
        #expect(PCSCReaderProfile.matching(readerName: "ACS ACR122U PICC Interface 00 00")?.model == .acr122u)
        #expect(PCSCReaderProfile.matching(readerName: "ACS ACR1252 1S CL Reader PICC 00 00")?.model == .acr1252u)
        #expect(PCSCReaderProfile.matching(readerName: "ACS ACR1552 1S CL Reader [ACR1552 1S CL Reader PICC] 00 00")?.model == .acr1552u)
        #expect(PCSCReaderProfile.matching(readerName: "Identiv uTrust 3700 F CL Reader 00 00") == nil)
        let acr122u = PCSCReaderProfile.row(.acr122u).capabilities
        #expect(acr122u.sendsRawFrames && acr122u.drivesIndicators && !acr122u.contains(.iso15693))
        let generic = PCSCReaderProfile.row(.generic).capabilities
        #expect(!generic.sendsRawFrames && !generic.drivesIndicators)
    }
}
