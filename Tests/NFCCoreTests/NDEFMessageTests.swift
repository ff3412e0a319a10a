import Testing
import NFCCore

/// Message and record-header vectors from ndeflib (tests/test_message.py, test_record.py; see
/// peers-nfc.md §2.3), decoded, then encoded from the same table in reverse. ndeflib's record-level
/// vectors carry no MB/ME bits; as whole messages they gain MB|ME (0xC0) on their header byte.
@Suite struct NDEFMessageTests {
    static let x = ndefASCII("X")

    /// (message hex, records): both directions hold.
    static let roundTrips: [(String, [NDEFRecord])] = [
        ("D00000", [.empty]),
        ("900000 500000", [.empty, .empty]),
        ("910301414243005903010158595a30ff", [
            NDEFRecord(tnf: .wellKnown, type: ndefASCII("ABC"), payload: [0x00]),
            NDEFRecord(tnf: .wellKnown, type: ndefASCII("XYZ"), identifier: ndefASCII("0"), payload: [0xFF]),
        ]),
        ("D10100 58", [NDEFRecord(tnf: .wellKnown, type: x)]),
        ("D20a00 746578742f706c61696e", [NDEFRecord(tnf: .mimeMedia, type: ndefASCII("text/plain"))]),
        ("D30c00 687474703a2f2f612e622f63", [NDEFRecord(tnf: .absoluteURI, type: ndefASCII("http://a.b/c"))]),
        ("D40A00 612e636f6d3a74797065", [NDEFRecord(tnf: .external, type: ndefASCII("a.com:type"))]),
        ("D50000", [NDEFRecord(tnf: .unknown)]),
        ("D9010702 58 6964 7061796c6f6164",
         [NDEFRecord(tnf: .wellKnown, type: x, identifier: ndefASCII("id"), payload: ndefASCII("payload"))]),
        ("C9010000010002 58 6964" + String(repeating: "70", count: 256),
         [NDEFRecord(tnf: .wellKnown, type: x, identifier: ndefASCII("id"), payload: Array(repeating: 0x70, count: 256))]),
        ("D1 01 FF 58" + String(repeating: "AB", count: 255),
         [NDEFRecord(tnf: .wellKnown, type: x, payload: Array(repeating: 0xAB, count: 255))]),
    ]

    @Test(arguments: roundTrips)
    func decodes(hex: String, records: [NDEFRecord]) throws {
        #expect(try NDEFMessage(bytes: ndefHex(hex)).records == records)
        #expect(try NDEFMessage(bytes: ndefHex(hex), leniency: .relaxed).records == records)
    }

    @Test(arguments: roundTrips.reversed())
    func encodes(hex: String, records: [NDEFRecord]) throws {
        #expect(try NDEFMessage(records: records).bytes == ndefHex(hex))
    }

    @Test func emptyMessageIsNoBytesBothWays() throws {
        #expect(try NDEFMessage(records: []).bytes == [])
        #expect(try NDEFMessage(bytes: []).records == [])
    }

    @Test func bytesAfterTheMessageEndAreIgnored() throws {
        #expect(try NDEFMessage(bytes: ndefHex("D00000 FE 00 00")).records == [.empty])
    }

    // MARK: Chunked records (NDEF §3.2.3) are reassembled

    @Test func chunksAreReassembledIntoOneRecord() throws {
        // first: MB|CF|SR|IL mime text/plain, id "c", "abc"; middle: CF|SR TNF 6 "def"; last: ME|SR TNF 6 "gh".
        let bytes = ndefHex("BA 0A 03 01 746578742f706c61696e 63 616263" + "36 00 03 646566" + "56 00 02 6768")
        let expected = NDEFRecord(tnf: .mimeMedia, type: ndefASCII("text/plain"), identifier: ndefASCII("c"),
                                  payload: ndefASCII("abcdefgh"))
        #expect(try NDEFMessage(bytes: bytes).records == [expected])
        // Re-encoding writes one unchunked record.
        #expect(try NDEFMessage(records: [expected]).bytes
            == ndefHex("DA 0A 08 01 746578742f706c61696e 63 6162636465666768"))
    }

    @Test func chunkedRecordBetweenOthers() throws {
        let bytes = ndefHex("90 00 00" + "35 00 01 AA" + "16 00 01 BB" + "51 01 01 58 CC")
        #expect(try NDEFMessage(bytes: bytes).records == [
            .empty, NDEFRecord(tnf: .unknown, payload: [0xAA, 0xBB]), NDEFRecord(tnf: .wellKnown, type: Self.x, payload: [0xCC]),
        ])
    }

    @Test func ndeflibChunkPairIsMerged() throws {
        // ndeflib keeps "B50000 560000" as [unknown, unchanged]; we reassemble it.
        #expect(try NDEFMessage(bytes: ndefHex("B50000 560000")).records == [NDEFRecord(tnf: .unknown)])
    }

    @Test func chunkLongerThan255BytesInTotal() throws {
        let first = "B5 00 C8" + String(repeating: "11", count: 200)
        let last = "56 00 C8" + String(repeating: "22", count: 200)
        let records = try NDEFMessage(bytes: ndefHex(first + last)).records
        #expect(records.count == 1)
        #expect(records.first?.payload == Array(repeating: 0x11, count: 200) + Array(repeating: 0x22, count: 200))
        // Re-encoded without SR: a 4-byte length 0x190.
        #expect(try NDEFMessage(records: records).bytes.prefix(6) == [0xC5, 0x00, 0x00, 0x00, 0x01, 0x90])
    }

    // MARK: Leniency

    /// (hex, offset and problem the strict error names); relaxed decoding accepts each one.
    static let strictOnlyErrors: [(String, String)] = [
        ("100000", "offset 0: MB flag not set in the first record"),
        ("900000 D00000", "offset 3: MB flag set in a record that is not the first"),
        ("900000 100000", "offset 6: the data ends but no record had the ME flag"),
        ("F50000", "offset 0: CF flag set in the last record"),
        ("D10000", "offset 0: TYPE_LENGTH must be > 0 for TNF 1"),
        ("D0010058", "offset 0: TYPE_LENGTH must be 0 for TNF 0 (empty)"),
        ("D8000001 41", "offset 0: ID_LENGTH must be 0 for TNF 0 (empty)"),
        ("D00001 41", "offset 0: PAYLOAD_LENGTH must be 0 for TNF 0 (empty)"),
        ("D5010058", "offset 0: TYPE_LENGTH must be 0 for TNF 5 (unknown)"),
        ("D60000", "offset 0: TNF 6 (unchanged) outside a chunked record"),
        ("D70000", "offset 0: TNF 7 is reserved"),
        ("B50001 AA 51010158 BB", "offset 4: a middle or last chunk must have TNF 6 (unchanged), found 1"),
        ("B50001 AA 56010158 BB", "offset 4: TYPE_LENGTH must be 0 in a middle or last chunk"),
        ("B50001 AA 5E00000101 BB", "offset 4: IL flag must not be set in a middle or last chunk"),
    ]

    @Test(arguments: strictOnlyErrors)
    func strictRefusesRelaxedAccepts(hex: String, problem: String) throws {
        #expect(ndefDecodeError(hex) == "Invalid NDEF: " + problem)
        #expect(ndefDecodeError(hex, leniency: .relaxed) == nil)
    }

    @Test func relaxedKeepsRecordsAsFound() throws {
        #expect(try NDEFMessage(bytes: ndefHex("100000"), leniency: .relaxed).records == [.empty])
        #expect(try NDEFMessage(bytes: ndefHex("D60000"), leniency: .relaxed).records == [NDEFRecord(tnf: .unchanged)])
        #expect(try NDEFMessage(bytes: ndefHex("D70000"), leniency: .relaxed).records == [NDEFRecord(tnf: .reserved)])
        // A chunk left open at the end is kept as far as it goes.
        #expect(try NDEFMessage(bytes: ndefHex("B50001 AA 3600 01 BB"), leniency: .relaxed).records
            == [NDEFRecord(tnf: .unknown, payload: [0xAA, 0xBB])])
    }

    /// Truncation fails in both modes, naming the offset.
    static let truncated: [(String, String)] = [
        ("D1", "offset 1: TYPE_LENGTH is missing (the data ends there)"),
        ("D101", "offset 2: PAYLOAD_LENGTH is missing (the data ends there)"),
        ("C10100", "offset 2: PAYLOAD_LENGTH (4 bytes, SR not set) needs 4 bytes but only 1 remain"),
        ("D90100", "offset 3: ID_LENGTH is missing (the data ends there)"),
        ("D1010554 02656E", "offset 4: PAYLOAD of the record at offset 0 needs 5 bytes but only 3 remain"),
        ("D10A00 5455", "offset 3: TYPE of the record at offset 0 needs 10 bytes but only 2 remain"),
        ("C101FFFFFFFF54 00", "offset 7: PAYLOAD of the record at offset 0 needs 4294967295 bytes but only 1 remain"),
        ("900000 D10105", "offset 6: TYPE of the record at offset 3 needs 1 bytes but only 0 remain"),
    ]

    @Test(arguments: truncated)
    func truncationFailsInBothModes(hex: String, problem: String) {
        #expect(ndefDecodeError(hex) == "Invalid NDEF: " + problem)
        #expect(ndefDecodeError(hex, leniency: .relaxed) == "Invalid NDEF: " + problem)
    }

    // MARK: Encoding rules

    @Test func shortRecordFlagFollowsPayloadLength() throws {
        let short = try NDEFMessage(records: [NDEFRecord(tnf: .unknown, payload: Array(repeating: 0, count: 255))]).bytes
        let long = try NDEFMessage(records: [NDEFRecord(tnf: .unknown, payload: Array(repeating: 0, count: 256))]).bytes
        #expect(short.prefix(3) == [0xD5, 0x00, 0xFF])
        #expect(long.prefix(6) == [0xC5, 0x00, 0x00, 0x00, 0x01, 0x00])
    }

    @Test func typeOrIdentifierOver255BytesIsAnErrorNotATrap() {
        let longType = NDEFRecord(tnf: .mimeMedia, type: Array(repeating: 0x61, count: 256))
        let longID = NDEFRecord(tnf: .unknown, identifier: Array(repeating: 0x61, count: 300))
        #expect(throws: NFCError.invalidNDEF("record 0: TYPE is 256 bytes, at most 255 fit")) {
            try NDEFMessage(records: [longType]).bytes
        }
        #expect(throws: NFCError.invalidNDEF("record 1: ID is 300 bytes, at most 255 fit")) {
            try NDEFMessage(records: [.empty, longID]).bytes
        }
        #expect(throws: Never.self) {
            try NDEFMessage(records: [NDEFRecord(tnf: .mimeMedia, type: Array(repeating: 0x61, count: 255))]).bytes
        }
    }

    // MARK: Display strings (upstream's)

    static let displays: [(NDEFRecord, String, String)] = [
        (.empty, "Empty", "No payload"),
        (.text("Hi"), "Text", "[en] Hi"),
        (.uri("https://www.example.com/path"), "URI", "https://www.example.com/path"),
        (.absoluteURI("http://a.b/c"), "URI", "http://a.b/c"),
        (.mime(type: "text/plain", payload: ndefASCII("hello")), "MIME: text/plain", "text/plain (5 bytes)"),
        (.smartPoster(uri: "https://openai.com", title: "OpenAI"), "Smart Poster", "OpenAI · https://openai.com"),
        (.smartPoster(uri: "https://openai.com"), "Smart Poster", "Untitled · https://openai.com"),
        (.external(type: "android.com:pkg", payload: ndefASCII("com.example")), "External: android.com:pkg", "11 bytes"),
        (NDEFRecord(tnf: .unknown, payload: [1, 2, 3]), "Unknown", "3 bytes"),
        (NDEFRecord(tnf: .wellKnown, type: ndefASCII("Hc"), payload: [1]), "Type Hc", "1 bytes"),
        (NDEFRecord(tnf: .wellKnown, type: ndefASCII("T")), "Type T", "0 bytes"),
    ]

    @Test(arguments: displays)
    func displayStrings(record: NDEFRecord, type: String, value: String) {
        #expect(record.displayType == type)
        #expect(record.displayValue == value)
    }
}
