import Testing
import NFCCore

/// Text record vectors (ndeflib tests/test_text.py, upstream "Hi"), decoded, then encoded from the
/// same table reversed.
@Suite struct NDEFTextRecordTests {
    static let roundTrips: [(String, TextRecord)] = [
        ("D101075402656e54455854", TextRecord(text: "TEXT", language: "en", encoding: .utf8)),
        ("D101055402656E4869", TextRecord(text: "Hi", language: "en")),
        ("D1010F54 82656efffe480065006c006c006f00", TextRecord(text: "Hello", language: "en", encoding: .utf16)),
        ("D1010554 02656cce94", TextRecord(text: "Δ", language: "el")),
        ("D1010854 05656E2D5553 4869", TextRecord(text: "Hi", language: "en-US")),
        ("D1010354 02656E", TextRecord(text: "", language: "en")),
    ]

    @Test(arguments: roundTrips)
    func decodes(hex: String, expected: TextRecord) throws {
        let record = try #require(try NDEFMessage(bytes: ndefHex(hex)).records.first)
        #expect(record.text == expected)
        #expect(try TextRecord(payload: record.payload) == expected)
    }

    @Test(arguments: roundTrips.reversed())
    func encodes(hex: String, expected: TextRecord) throws {
        let record = NDEFRecord.text(expected.text, language: expected.language, encoding: expected.encoding)
        #expect(try NDEFMessage(records: [record]).bytes == ndefHex(hex))
    }

    /// UTF-16 byte order: the BOM decides; without one it is big-endian (Text RTD §3.4).
    @Test(arguments: [
        ("82656E 00480069", "Hi"),
        ("82656E FEFF 00480069", "Hi"),
        ("82656E FFFE 48006900", "Hi"),
        ("82656E 03940391", "ΔΑ"),
        ("82656E D83DDE00", "😀"),
    ])
    func utf16ByteOrder(payloadHex: String, text: String) throws {
        let decoded = try TextRecord(payload: ndefHex(payloadHex))
        #expect(decoded.text == text)
        #expect(decoded.encoding == .utf16)
    }

    @Test func utf16RoundTripsOutsideTheBMP() throws {
        let record = NDEFRecord.text("Grüße 😀", language: "de", encoding: .utf16)
        #expect(record.text == TextRecord(text: "Grüße 😀", language: "de", encoding: .utf16))
    }

    static let strictErrors: [(String, String)] = [
        ("00", "offset 0: Text record language code length can not be zero"),
        ("02656EFF", "offset 3: Text record text is not valid UTF-8"),
        ("82656E004800", "offset 3: Text record UTF-16 text has an odd number of bytes"),
        ("82656EDC00", "offset 3: Text record text is not valid UTF-16"),
        ("02FF65", "offset 1: Text record language code is not ASCII"),
    ]

    @Test(arguments: strictErrors)
    func strictErrorsRelaxedDecodesLossily(payloadHex: String, problem: String) throws {
        #expect(throws: NFCError.invalidNDEF(problem)) { try TextRecord(payload: ndefHex(payloadHex)) }
        #expect(throws: Never.self) { try TextRecord(payload: ndefHex(payloadHex), leniency: .relaxed) }
    }

    @Test func shortPayloadsFailInBothModes() {
        for leniency in [NDEFLeniency.strict, .relaxed] {
            #expect(throws: NFCError.invalidNDEF("Text record payload is empty (offset 0: status byte missing)")) {
                try TextRecord(payload: [], leniency: leniency)
            }
            #expect(throws: NFCError.invalidNDEF("offset 1: Text record language code needs 5 bytes but only 2 remain")) {
                try TextRecord(payload: ndefHex("05656E"), leniency: leniency)
            }
        }
        #expect(NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x05]).text == nil)
    }

    @Test func relaxedValues() throws {
        #expect(try TextRecord(payload: [0x00], leniency: .relaxed) == TextRecord(text: "", language: ""))
        #expect(try TextRecord(payload: ndefHex("02656EFF41"), leniency: .relaxed).text == "\u{FFFD}A")
        #expect(try TextRecord(payload: ndefHex("82656E00480069 00"), leniency: .relaxed).text == "Hi")
    }

    @Test func languageLongerThan63BytesIsCutToTheLengthField() throws {
        let payload = NDEFRecord.text("x", language: String(repeating: "a", count: 70)).payload
        #expect(payload.first == 63)
        #expect(payload.count == 1 + 63 + 1)
    }
}
