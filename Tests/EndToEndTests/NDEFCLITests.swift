import Foundation
import Testing
import NFCCore
import TestSupport

/// `nfcbridge ndef decode|encode`, run as the built binary.
@Suite struct NDEFCLITests {
    static let binary = Binaries.path("nfcbridge")

    static func run(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try runProcess(binary, arguments, input: input.map { Data($0.utf8) })
    }

    /// The one-line JSON error on stderr: (code, message).
    static func errorLine(_ result: ProcessResult) throws -> (String, String) {
        let lines = result.err.split(separator: "\n")
        let first = try #require(lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any])
        return (try #require(error["code"] as? String), try #require(error["message"] as? String))
    }

    @Test func decodesHexWithSpaces() throws {
        let result = try Self.run(["ndef", "decode", "D1 01 05 54 02 65 6E 48 69"])
        #expect(result.status == 0)
        #expect(result.out == """
            {"records":[{"encoding":"utf-8","idHex":"","lang":"en","payloadHex":"02656E4869","text":"Hi","tnf":1,"type":"T","typeHex":"54"}]}

            """)
        #expect(result.err.isEmpty)
    }

    @Test func decodesHexSplitOverArgumentsAndFromStdin() throws {
        let split = try Self.run(["ndef", "decode", "D1010a55", "036e666370792e6f7267"])
        let stdin = try Self.run(["ndef", "decode", "-"], input: "D1 01 0a 55 03 6e 66 63 70 79 2e 6f 72 67\n")
        #expect(split.status == 0 && stdin.status == 0)
        #expect(split.out == stdin.out)
        #expect(split.out.contains(#""uri":"http://nfcpy.org""#))
    }

    /// Hex saved by a Windows editor (a byte-order mark, CR LF) decodes the same; standard input is
    /// bounded where it enters (1 MiB), with a clear error.
    @Test func standardInputFromWindowsDecodesAndATooLongOneIsRefused() throws {
        let windows = try Self.run(["ndef", "decode", "-"], input: "\u{FEFF}D1 01 0a 55 03 6e 66\r\n63 70 79 2e 6f 72 67\r\n")
        #expect(windows.status == 0)
        #expect(windows.out.contains(#""uri":"http://nfcpy.org""#))
        for action in ["decode", "encode"] {
            let long = try Self.run(["ndef", action, "-"], input: String(repeating: " ", count: (1 << 20) + 1))
            #expect(long.status == 1)
            let (code, message) = try Self.errorLine(long)
            #expect(code == "invalid_argument")
            #expect(message.contains("standard input holds more than 1048576 bytes"), "\(message)")
        }
    }

    @Test func encodesShorthandJSON() throws {
        let result = try Self.run(["ndef", "encode"], input: #"{"records":[{"uri":"https://www.example.com/path"}]}"#)
        #expect(result.status == 0)
        #expect(result.out == "D101115502" + "6578616D706C652E636F6D2F70617468" + "\n")
    }

    @Test func decodeThenEncodeRoundTrips() throws {
        let message = NDEFMessage(records: [
            .smartPoster(uri: "https://openai.com", title: "OpenAI"), .text("Hello", encoding: .utf16),
            .mime(type: "application/json", payload: Array("{}".utf8)), .absoluteURI("urn:x"),
        ])
        let hex = try message.bytes.hexString
        let decoded = try Self.run(["ndef", "decode", hex])
        #expect(decoded.status == 0)
        let encoded = try Self.run(["ndef", "encode"], input: decoded.out)
        #expect(encoded.status == 0)
        #expect(encoded.out == hex + "\n")
    }

    @Test func relaxedFlagAcceptsWhatStrictRefuses() throws {
        let strict = try Self.run(["ndef", "decode", "100000"])
        #expect(strict.status == 1)
        #expect(try Self.errorLine(strict) == ("invalid_ndef", "Invalid NDEF: offset 0: MB flag not set in the first record"))
        let relaxed = try Self.run(["ndef", "decode", "--relaxed", "100000"])
        #expect(relaxed.status == 0)
        #expect(relaxed.out.hasPrefix(#"{"records":[{"idHex":"","payloadHex":"","tnf":0"#))
    }

    @Test(arguments: [
        (["ndef", "decode", "D1010554"], "", "invalid_ndef",
         "Invalid NDEF: offset 4: PAYLOAD of the record at offset 0 needs 5 bytes but only 0 remain"),
        (["ndef", "decode", "D1 0"], "", "invalid_argument",
         "HEX: not valid hex (an odd number of digits or a non-hex character)"),
        (["ndef", "encode"], #"{"records":[{"uri":"a","colour":"red"}]}"#, "invalid_argument", "records[0].colour: unknown field"),
        (["ndef", "encode"], #"{"tnf":0,"payloadHex":"AABB"}"#, "invalid_argument",
         "records[0].payloadHex: PAYLOAD_LENGTH must be 0 for TNF 0 (empty), NDEF 1.0 §3.3: drop payloadHex or give another tnf"),
        (["ndef", "encode"], "not json", "invalid_argument", nil),
        // No records is no message (it printed an empty line, exit 0).
        (["ndef", "encode"], #"{"records":[]}"#, "invalid_argument",
         #"records: an NDEF message holds at least one record; the empty message is one empty record, {"tnf":0} (D00000)"#),
    ] as [([String], String, String, String?)])
    func badInputExitsOneWithAJSONErrorLine(arguments: [String], input: String, code: String, message: String?) throws {
        let result = try Self.run(arguments, input: input)
        #expect(result.status == 1)
        #expect(result.out.isEmpty)
        #expect(result.err.split(separator: "\n").count == 1)
        let (gotCode, gotMessage) = try Self.errorLine(result)
        #expect(gotCode == code)
        if let message { #expect(gotMessage == message) }
    }

    @Test(arguments: [
        ["ndef"], ["ndef", "decode"], ["ndef", "transcode"], ["ndef", "decode", "--strictly", "D00000"],
        ["ndef", "encode", "extra"], ["ndef", "decode", "-", "D0"],
    ])
    func usageErrorsExitTwo(arguments: [String]) throws {
        let result = try Self.run(arguments, input: "")
        #expect(result.status == 2)
        #expect(try Self.errorLine(result).0 == "usage")
    }
}
