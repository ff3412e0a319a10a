import NFCCore
import Testing

@testable import PN532Sim

/// The simulator computes the frames' checks and the scenario's NDEF messages itself. These tests hold
/// its own code to the published examples, and decode what it encodes with NFCCore's decoder: two
/// independent implementations that must agree.
@Suite struct SimulatorIndependenceTests {
    /// ISO/IEC 14443-3 Annex B's worked examples of CRC_A and CRC_B, and CRC_B's standard check value
    /// (it is CRC-16/X-25: "123456789" → 906Eh, the CRC catalogue's check).
    @Test func airChecksumsMatchISO14443Part3AnnexB() {
        #expect(AirChecksum.crcA([0x00, 0x00]) == [0xA0, 0x1E])
        #expect(AirChecksum.crcA([0x12, 0x34]) == [0x26, 0xCF])
        #expect(AirChecksum.crcB(Array("123456789".utf8)) == [0x6E, 0x90])
        #expect(AirChecksum.crcB([0x0F, 0xAA, 0xFF]) == [0xFC, 0xD1])
        #expect(AirChecksum.endsWithCRCA([0x12, 0x34, 0x26, 0xCF]))
        #expect(!AirChecksum.endsWithCRCA([0x12, 0x34, 0xCF, 0x26]))
        #expect(!AirChecksum.endsWithCRCA([0x26, 0xCF]), "no data before the CRC")
    }

    /// BCC (ISO/IEC 14443-3 §6.5.3.2) of a cascade level: CT 88h and 3 UID bytes.
    @Test func bccIsTheExclusiveOrOfTheLevel() {
        #expect(AirChecksum.bcc([0x88, 0x04, 0xA1, 0xB2]) == 0x88 ^ 0x04 ^ 0xA1 ^ 0xB2)
        #expect(AirChecksum.bcc([]) == 0)
    }

    /// NFC Forum URI RTD 1.0 §3.2.2: "https://www." is code 02h; a single short record has MB, ME and SR set.
    @Test func aURIRecordIsAbbreviatedAndFramed() throws {
        let message = try #require(ScenarioNDEF.message([.uri("https://www.example.com")]))
        #expect(message == [0xD1, 0x01, 0x0C, 0x55, 0x02] + Array("example.com".utf8))
        // The longest matching prefix, not the first: urn:epc:id: (1Eh) rather than urn: (13h).
        let epc = try #require(ScenarioNDEF.message([.uri("urn:epc:id:sgtin:1")]))
        #expect(epc[4] == 0x1E)
        #expect(ScenarioNDEF.message([.uri("example")])?[4] == 0x00)
    }

    @Test func whatTheSimulatorEncodesNFCCoreDecodes() throws {
        let long = String(repeating: "x", count: 300)
        let bytes = try #require(ScenarioNDEF.message([
            .uri("https://example.com/a"), .text("hallo", language: "de"), .mime(type: "text/plain", payload: Array(long.utf8)),
        ]))
        let message = try NDEFMessage(bytes: bytes)
        #expect(message.records.count == 3)
        #expect(message.records[0].uri == "https://example.com/a")
        #expect(message.records[1].text?.text == "hallo")
        #expect(message.records[1].text?.language == "de")
        #expect(message.records[2].mimeType == "text/plain")
        #expect(message.records[2].payload.count == 300, "a long record: 4-byte PAYLOAD_LENGTH")
    }

    @Test func whatDoesNotFitIsRefused() {
        #expect(ScenarioNDEF.message([.text("x", language: String(repeating: "a", count: 64))]) == nil)
        #expect(ScenarioNDEF.message([.mime(type: String(repeating: "a", count: 256), payload: [])]) == nil)
        #expect(ScenarioNDEF.message([]) == [])
    }
}
