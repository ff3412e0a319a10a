import Testing
import NFCCore

/// Smart Poster vectors (ndeflib tests/test_smartposter.py, upstream NDEFTests), decoded, then
/// encoded from the same table reversed.
@Suite struct NDEFSmartPosterTests {
    static let roundTrips: [(String, SmartPoster)] = [
        ("d102055370 d101015500", SmartPoster(uri: "")),
        ("d1020e5370 d1010a55036e666370792e6f7267", SmartPoster(uri: "http://nfcpy.org")),
        ("d1021a5370 91010a55036e666370792e6f7267 5101085402656e6e66637079",
         SmartPoster(uri: "http://nfcpy.org", titles: [TextRecord(text: "nfcpy", language: "en")])),
        ("d102215370 91010a55036e666370792e6f7267 1101085402656e6e66637079 51030161637400",
         SmartPoster(uri: "http://nfcpy.org", titles: [TextRecord(text: "nfcpy", language: "en")], action: .execute)),
        // Upstream NDEFTests: smartPoster(uri: "https://openai.com", title: "OpenAI").
        ("D1021C5370 91010B5504 6F70656E61692E636F6D 5101095402656E 4F70656E4149",
         SmartPoster(uri: "https://openai.com", titles: [TextRecord(text: "OpenAI", language: "en")])),
    ]

    @Test(arguments: roundTrips)
    func decodes(hex: String, expected: SmartPoster) throws {
        let record = try #require(try NDEFMessage(bytes: ndefHex(hex)).records.first)
        #expect(record.smartPoster == expected)
        #expect(try SmartPoster(payload: record.payload) == expected)
        #expect(record.uri == expected.uri)
    }

    @Test(arguments: roundTrips.reversed())
    func encodes(hex: String, expected: SmartPoster) throws {
        let record = NDEFRecord.smartPoster(uri: expected.uri ?? "", title: expected.title,
                                            language: expected.titles.first?.language ?? "en", action: expected.action)
        #expect(try NDEFMessage(records: [record]).bytes == ndefHex(hex))
        let fromValue = NDEFRecord(tnf: .wellKnown, type: SmartPoster.recordType, payload: try expected.payload)
        #expect(try NDEFMessage(records: [fromValue]).bytes == ndefHex(hex))
    }

    @Test func upstreamOpenAIPosterDisplays() throws {
        let record = NDEFRecord.smartPoster(uri: "https://openai.com", title: "OpenAI")
        let decoded = try #require(try NDEFMessage(bytes: NDEFMessage(records: [record]).bytes).records.first)
        #expect(decoded.displayType == "Smart Poster")
        #expect(decoded.displayValue == "OpenAI · https://openai.com")
        #expect(decoded.uri == "https://openai.com")
    }

    @Test func everyFieldRoundTrips() throws {
        let poster = SmartPoster(
            uri: "https://www.example.com/menu",
            titles: [TextRecord(text: "Menu", language: "en"), TextRecord(text: "Μενού", language: "el", encoding: .utf16)],
            action: .save, size: 123_456, type: "text/html",
            otherRecords: [.mime(type: "image/png", payload: [0x89, 0x50, 0x4E, 0x47])])
        let decoded = try SmartPoster(payload: try poster.payload)
        #expect(decoded == poster)
        #expect(decoded.title == "Menu")
        // act, s and t records as the RTD lays them out.
        let nested = try NDEFMessage(bytes: try poster.payload).records
        #expect(nested.map { String(decoding: $0.type, as: UTF8.self) } == ["U", "T", "T", "act", "s", "t", "image/png"])
        #expect(nested[4].payload == [0x00, 0x01, 0xE2, 0x40])
    }

    static let strictErrors: [(String, String)] = [
        ("d101085402656e6e66637079", "smart poster has no URI record"),
        ("91010a55036e666370792e6f7267 51010a55046e666370792e6f7267",
         "smart poster record 1: a smart poster holds exactly one URI record"),
        ("91010a55036e666370792e6f7267 51030161637403",
         "smart poster record 1: action record must hold one byte 00, 01 or 02, found 03"),
        ("91010a55036e666370792e6f7267 510102730001", "smart poster record 1: size record must hold 4 bytes, found 2"),
        ("91010155 24 51010155 00", "smart poster record 0: offset 0: URI identifier code 0x24 is reserved"),
        ("d1010a55036e666370792e", "smart poster payload: offset 4: PAYLOAD of the record at offset 0 needs 10 bytes but only 7 remain"),
    ]

    @Test(arguments: strictErrors)
    func strictDecodingRefuses(payloadHex: String, problem: String) {
        #expect(throws: NFCError.invalidNDEF(problem)) { try SmartPoster(payload: ndefHex(payloadHex)) }
    }

    @Test func relaxedTakesTheFirstOfEachAndKeepsTheRest() throws {
        let poster = try SmartPoster(
            payload: ndefHex("110108 5402656e6e66637079 11010a55036e666370792e6f7267 11010a55046e666370792e6f7267 51030161637409"),
            leniency: .relaxed)
        #expect(poster.uri == "http://nfcpy.org")
        #expect(poster.title == "nfcpy")
        #expect(poster.action == nil)
        #expect(poster.otherRecords.count == 2)
        let untitled = NDEFRecord(tnf: .wellKnown, type: SmartPoster.recordType, payload: ndefHex("d101085402656e6e66637079"))
        #expect(untitled.smartPoster?.uri == nil)
        #expect(untitled.displayValue == "nfcpy")
        let noURINoTitle = NDEFRecord(tnf: .wellKnown, type: SmartPoster.recordType, payload: ndefHex("D00000"))
        #expect(noURINoTitle.displayValue == "Untitled")
    }
}
