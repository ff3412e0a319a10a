import Testing
import NFCCore

/// URI record vectors (ndeflib tests/test_uri.py, upstream NDEFTests) and the prefix table of the
/// NFC Forum URI RTD 1.0, Table 3, restated here independently of the implementation's table.
@Suite struct NDEFURIRecordTests {
    static let roundTrips: [(String, [String])] = [
        ("D1010a55036e666370792e6f7267", ["http://nfcpy.org"]),
        ("91010a55036e666370792e6f7267 51010a55046e666370792e6f7267", ["http://nfcpy.org", "https://nfcpy.org"]),
        ("D101115500736d74703a2f2f6e666370792e6f7267", ["smtp://nfcpy.org"]),
        ("D1010655 116e66637079", ["imap:nfcpy"]),
        ("D101115502 6578616D706C652E636F6D2F70617468", ["https://www.example.com/path"]),
        ("D1010155 00", [""]),
    ]

    @Test(arguments: roundTrips)
    func decodes(hex: String, uris: [String]) throws {
        let records = try NDEFMessage(bytes: ndefHex(hex)).records
        #expect(records.map(\.uri) == uris)
        #expect(records.map { try? URIRecord(payload: $0.payload).uri } == uris)
    }

    @Test(arguments: roundTrips.reversed())
    func encodes(hex: String, uris: [String]) throws {
        #expect(try NDEFMessage(records: uris.map { NDEFRecord.uri($0) }).bytes == ndefHex(hex))
    }

    static let table: [String] = [
        "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:", "ftp://anonymous:anonymous@",
        "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://", "ftp://", "dav://", "news:", "telnet://", "imap:",
        "rtsp://", "urn:", "pop:", "sip:", "sips:", "tftp:", "btspp://", "btl2cap://", "btgoep://", "tcpobex://",
        "irdaobex://", "file://", "urn:epc:id:", "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
    ]

    @Test func everyIdentifierCodeDecodesAndEncodesBack() throws {
        #expect(Self.table.count == 0x24)
        for (code, prefix) in Self.table.enumerated() {
            let payload = [UInt8(code)] + ndefASCII("x")
            #expect(try URIRecord(payload: payload).uri == prefix + "x", "code \(code)")
            // Each prefix + "x" is abbreviated to its own code: it is the longest match.
            #expect(NDEFRecord.uri(prefix + "x").payload == payload, "code \(code)")
        }
    }

    /// Upstream scanned from 0x23 down and took the first match (https://www. → 0x04 + "www.").
    @Test(arguments: [
        ("https://www.example.com", 0x02, "example.com"),
        ("http://www.a", 0x01, "a"),
        ("ftp://ftp.a", 0x08, "a"),
        ("ftp://anonymous:anonymous@a", 0x07, "a"),
        ("ftp://a", 0x0D, "a"),
        ("urn:epc:id:a", 0x1E, "a"),
        ("urn:epc:a", 0x22, "a"),
        ("urn:nfc:a", 0x23, "a"),
        ("urn:a", 0x13, "a"),
        ("sips:a", 0x16, "a"),
        ("nfc://x", 0x00, "nfc://x"),
        ("HTTPS://x", 0x00, "HTTPS://x"),
    ] as [(String, UInt8, String)])
    func abbreviatesWithTheLongestPrefix(uri: String, code: UInt8, rest: String) {
        #expect(NDEFRecord.uri(uri).payload == [code] + ndefASCII(rest))
    }

    /// Upstream [BUG]: codes above 0x23 indexed past the table and crashed. The URI RTD reserves
    /// them; strict decoding names the code, relaxed decoding (and the record view) uses no prefix.
    @Test(arguments: [0x24, 0x80, 0xFF] as [UInt8])
    func reservedCodesReadAsNoPrefix(code: UInt8) throws {
        let payload = [code] + ndefASCII("nfcpy")
        #expect(throws: NFCError.invalidNDEF("offset 0: URI identifier code 0x\(code.hexString) is reserved")) {
            try URIRecord(payload: payload, leniency: .strict)
        }
        #expect(try URIRecord(payload: payload, leniency: .relaxed).uri == "nfcpy")
        let message = try NDEFMessage(bytes: [0xD1, 0x01, UInt8(payload.count), 0x55] + payload)
        #expect(message.records.first?.uri == "nfcpy")
        #expect(message.records.first?.displayType == "URI")
        #expect(message.records.first?.displayValue == "nfcpy")
    }

    @Test func malformedPayloads() throws {
        #expect(throws: NFCError.invalidNDEF("URI record payload is empty (offset 0: identifier code missing)")) {
            try URIRecord(payload: [], leniency: .relaxed)
        }
        #expect(throws: NFCError.invalidNDEF("offset 1: URI record remainder is not valid UTF-8")) {
            try URIRecord(payload: [0x03, 0xFF, 0x61])
        }
        #expect(try URIRecord(payload: [0x03, 0xFF, 0x61], leniency: .relaxed).uri == "http://\u{FFFD}a")
        #expect(NDEFRecord(tnf: .wellKnown, type: [0x55]).uri == nil)
        #expect(NDEFRecord.text("not a URI").uri == nil)
    }

    /// Upstream [BUG]: it read an absolute URI (TNF 3) from the payload; NDEF puts it in TYPE.
    @Test func absoluteURILivesInTheTypeField() throws {
        let message = try NDEFMessage(bytes: ndefHex("D30C03 687474703a2f2f612e622f63 7a7a7a"))
        let record = try #require(message.records.first)
        #expect(record.tnf == .absoluteURI)
        #expect(record.uri == "http://a.b/c")
        #expect(record.displayValue == "http://a.b/c")
        #expect(NDEFRecord.absoluteURI("http://a.b/c") == NDEFRecord(tnf: .absoluteURI, type: ndefASCII("http://a.b/c")))
        #expect(try NDEFMessage(records: [.absoluteURI("http://a.b/c")]).bytes == ndefHex("D30C00 687474703a2f2f612e622f63"))
    }
}
