import Foundation
import NFCCore
import Testing

/// ``ScanReport``: the `scan --json` line and the agent's scan-event payload.
@Suite struct ScanReportTests {
    private let ntag215 = CardInfo(
        type: .ntag215, uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6], atqa: [0x00, 0x44], sak: 0x00,
        product: Product(Type2Product.ntag215), version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])

    @Test func type2TagWithURIRecordGivesTheDocumentedLine() {
        // D1 01 08 55 01 "abc.com": a URI record with prefix 01 (http://www.).
        let message = [UInt8](hex: "D1010855016162632E636F6D") ?? []
        let line = ScanReport(cardInfo: ntag215, ndefMessage: message).jsonLine()
        #expect(
            line
                == #"{"atqa":"0044","cardFamily":"NTAG","cardType":"NTAG215","ndef":{"hex":"D1010855016162632E636F6D","records":[{"idHex":"","payloadHex":"016162632E636F6D","tnf":1,"type":"U","typeHex":"55","uri":"http://www.abc.com"}]},"product":"NTAG215","sak":"00","uid":"04A1B2C3D4E5F6","version":"0004040201001103"}"#
        )
    }

    @Test func unknownValuesAreLeftOut() {
        let felica = CardInfo(
            type: .felicaLiteS, uid: [0x01, 0x2E, 0x4C, 0x6D, 0x00, 0x00, 0x00, 0x01],
            pmm: [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00], systemCode: [0x88, 0xB4])
        let line = ScanReport(cardInfo: felica).jsonLine()
        #expect(
            line
                == #"{"cardFamily":"FeliCa","cardType":"FeliCa Lite-S","pmm":"00F1000000014300","systemCode":"88B4","uid":"012E4C6D00000001"}"#
        )
    }

    @Test func undecodableNDEFKeepsTheBytesAndSaysWhy() throws {
        let report = ScanReport(cardInfo: ntag215, ndefMessage: [0xD1, 0x01, 0x09])
        let ndef = try #require(report.ndef)
        #expect(ndef.hex == "D10109")
        #expect(ndef.records.isEmpty)
        #expect(ndef.error != nil)
        #expect(report.summaryLine.hasSuffix("NDEF 0 records (undecodable)"))
    }

    @Test func emptyMessageIsReportedAsNDEF() throws {
        let report = ScanReport(cardInfo: ntag215, ndefMessage: [])
        #expect(try #require(report.ndef) == ScanReport.NDEFContent(message: []))
        #expect(report.jsonLine().contains(#""ndef":{"hex":"","records":[]}"#))
    }

    @Test func theLineDecodesBackToTheSameReport() throws {
        let report = ScanReport(cardInfo: ntag215, ndefMessage: [UInt8](hex: "D101055402656E4869"))
        let decoded = try JSONDecoder().decode(ScanReport.self, from: Data(report.jsonLine().utf8))
        #expect(decoded == report)
        #expect(report.summaryLine == "04A1B2C3D4E5F6  NTAG215  ATQA 0044 SAK 00  NDEF 1 record: Text Hi")
    }

    @Test func anUnreadableMessageSaysWhyAndKeepsTheIdentification() throws {
        let report = ScanReport(cardInfo: ntag215, ndef: .unreadable(.authenticationRequired))
        #expect(
            report.jsonLine()
                == #"{"atqa":"0044","cardFamily":"NTAG","cardType":"NTAG215","ndefError":{"code":"auth_required","message":"The tag is password protected: a password is needed"},"ndefStatus":"unreadable","product":"NTAG215","sak":"00","uid":"04A1B2C3D4E5F6","version":"0004040201001103"}"#
        )
        #expect(report.summaryLine == "04A1B2C3D4E5F6  NTAG215  ATQA 0044 SAK 00  NDEF unreadable (auth_required)")
        let decoded = try JSONDecoder().decode(ScanReport.self, from: Data(report.jsonLine().utf8))
        #expect(decoded == report)
    }

    @Test func aMessageReadOrAbsentCarriesNoStatus() {
        let message: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69]
        #expect(ScanReport(cardInfo: ntag215, ndef: .message(message)) == ScanReport(cardInfo: ntag215, ndefMessage: message))
        #expect(ScanReport(cardInfo: ntag215, ndef: .noMessage) == ScanReport(cardInfo: ntag215))
        #expect(ScanReport(cardInfo: ntag215, ndef: .noMessage).ndefStatus == nil)
    }

    @Test func aTypeNDEFIsNotReadFromSaysSo() {
        let info = CardInfo(type: .iso14443B_generic, uid: [0x01, 0x02, 0x03, 0x04])
        let report = ScanReport(cardInfo: info, ndef: .notRead(.unsupportedOperation("NDEF is not read from ISO 14443-B tags")))
        #expect(report.ndefStatus == "not_read")
        #expect(report.ndefError == ScanReport.ErrorDetail(.unsupportedOperation("NDEF is not read from ISO 14443-B tags")))
        #expect(report.summaryLine.hasSuffix("NDEF not read (unsupported)"))
    }
}
