import Foundation
import Testing
import NFCCore

/// The JSON form shared by the CLI and MQTT: output, raw round trip, shorthand inputs, errors.
@Suite struct NDEFJSONTests {
    static func decode(_ json: String) throws -> [NDEFRecord] {
        try NDEFJSON.decodeRecords(Data(json.utf8))
    }

    @Test func encodesTextWithSortedKeys() {
        let message = NDEFMessage(records: [.text("Hi")])
        #expect(NDEFJSON.encode(message) == """
            {"records":[{"encoding":"utf-8","idHex":"","lang":"en","payloadHex":"02656E4869","text":"Hi","tnf":1,"type":"T","typeHex":"54"}]}
            """)
    }

    @Test func encodesURIWithoutEscapedSlashes() {
        let message = NDEFMessage(records: [.uri("https://www.example.com/path")])
        #expect(NDEFJSON.encode(message) == """
            {"records":[{"idHex":"","payloadHex":"026578616D706C652E636F6D2F70617468","tnf":1,"type":"U","typeHex":"55","uri":"https://www.example.com/path"}]}
            """)
    }

    @Test func smartPosterCarriesTitleURIAndNestedRecords() {
        let json = NDEFRecordJSON(record: .smartPoster(uri: "https://openai.com", title: "OpenAI"))
        #expect(json.uri == "https://openai.com")
        #expect(json.title == "OpenAI")
        #expect(json.records?.map(\.type) == ["U", "T"])
        #expect(json.records?.last?.text == "OpenAI")
        #expect(json.records?.first?.records == nil)
    }

    @Test func mimeExternalAbsoluteAndBinaryTypes() {
        let mime = NDEFRecordJSON(record: .mime(type: "text/plain", payload: ndefASCII("hi")))
        #expect(mime.mimeType == "text/plain" && mime.type == "text/plain" && mime.payloadHex == "6869")
        let external = NDEFRecordJSON(record: .external(type: "urn:nfc:ext:android.com:pkg", payload: []))
        #expect(external.type == "android.com:pkg" && external.tnf == 4 && external.mimeType == nil)
        let absolute = NDEFRecordJSON(record: .absoluteURI("http://a.b/c"))
        #expect(absolute.uri == "http://a.b/c" && absolute.tnf == 3)
        let binary = NDEFRecordJSON(record: NDEFRecord(tnf: .external, type: [0xFF, 0xFE], identifier: [1], payload: [2]))
        #expect(binary.type == nil && binary.typeHex == "FFFE" && binary.idHex == "01")
    }

    static let messages: [NDEFMessage] = [
        NDEFMessage(records: [.text("Hi"), .uri("https://www.example.com/path")]),
        NDEFMessage(records: [
            .empty, .smartPoster(uri: "tel:+123", title: "Call", language: "en", action: .execute),
            .mime(type: "application/json", payload: ndefASCII("{\"a\":\"/\"}")),
            .external(type: "android.com:pkg", payload: ndefASCII("com.example")),
            .absoluteURI("urn:x:y"), .text("Ünïcode ✓", language: "de", encoding: .utf16),
            NDEFRecord(tnf: .unknown, identifier: ndefASCII("id"), payload: [0, 1, 2]),
            NDEFRecord(tnf: .wellKnown, type: ndefASCII("T"), payload: ndefHex("02656EFF")),
        ]),
    ]

    @Test(arguments: messages)
    func rawFormRoundTrips(message: NDEFMessage) throws {
        #expect(try NDEFJSON.decodeRecords(Data(NDEFJSON.encode(message).utf8)) == message.records)
    }

    @Test(arguments: [
        (#"{"records":[{"uri":"https://www.example.com/path"}]}"#, [NDEFRecord.uri("https://www.example.com/path")]),
        (#"[{"text":"Hi"}]"#, [NDEFRecord.text("Hi")]),
        (#"{"text":"Hello","lang":"en","encoding":"utf-16"}"#, [NDEFRecord.text("Hello", encoding: .utf16)]),
        (#"[{"text":"Δ","lang":"el","encoding":"UTF-8","idHex":"01"}]"#,
         [NDEFRecord(tnf: .wellKnown, type: [0x54], identifier: [1], payload: ndefHex("02656cce94"))]),
        (#"[{"mimeType":"text/plain","payloadHex":"68 69"}]"#, [NDEFRecord.mime(type: "text/plain", payload: ndefASCII("hi"))]),
        (#"[{"uri":"https://openai.com","title":"OpenAI"}]"#, [NDEFRecord.smartPoster(uri: "https://openai.com", title: "OpenAI")]),
        (#"[{"tnf":4,"type":"a.com:type","payloadHex":"00"}]"#, [NDEFRecord(tnf: .external, type: ndefASCII("a.com:type"), payload: [0])]),
        (#"[{"tnf":0}]"#, [NDEFRecord.empty]),
        (#"{"records":[]}"#, []),
    ] as [(String, [NDEFRecord])])
    func shorthandInputs(json: String, records: [NDEFRecord]) throws {
        #expect(try Self.decode(json) == records)
    }

    @Test(arguments: [
        (#"{"records":[{"uri":"x","bogus":1}]}"#, "records[0].bogus: unknown field"),
        (#"[{"text":"a"},{"tnf":"1"}]"#, "records[1].tnf: must be an integer 0…7"),
        (#"[{"uri":5}]"#, "records[0].uri: must be a string"),
        (#"[{"tnf":1,"typeHex":"55","payloadHex":"XYZ"}]"#, "records[0].payloadHex: not valid hex"),
        (#"[{"tnf":9}]"#, "records[0].tnf: must be 0…7, not 9"),
        (#"[{"text":"a","encoding":"latin1"}]"#, "records[0].encoding: must be \"utf-8\" or \"utf-16\", not \"latin1\""),
        (#"[{"text":"a","lang":""}]"#, "records[0].lang: must be 1 to 63 bytes, got 0"),
        (#"[{"uri":"a","text":"b"}]"#, "records[0].text: not used with uri (give tnf for a raw record)"),
        (#"[{"uri":"a","lang":"en"}]"#, "records[0].lang: only used with text, or with uri and title"),
        (#"[{"typeHex":"55","payloadHex":"00"}]"#, "records[0].tnf: required with typeHex, type or payloadHex (or use uri, text or mimeType)"),
        (#"[{}]"#, "records[0]: empty; give uri, text, mimeType (+ payloadHex) or tnf + typeHex/type + payloadHex"),
        (#"[{"tnf":1,"typeHex":"55","payloadHex":"036E66637079","uri":"http://other"}]"#,
         "records[0].uri: does not match payloadHex (the raw bytes win; edit them or drop tnf)"),
        (#"[{"tnf":1,"type":"T","typeHex":"55","payloadHex":"00"}]"#, "records[0].type: \"T\" does not match typeHex 55"),
        (#"[{"tnf":1,"type":"U","uri":"http://x"}]"#, "records[0].payloadHex: required with tnf; drop tnf to build the record from uri"),
        (#"[{"mimeType":"\#(String(repeating: "a", count: 256))"}]"#, "records[0].mimeType: 256 bytes, at most 255 fit"),
        (#"{"records":5}"#, "records: must be an array of records"),
        (#"[5]"#, "records[0]: must be an object"),
        (#""text""#, "the JSON must be {\"records\":[…]}, an array of records or one record object"),
        (#"{"records":[{"tnf":2,"type":"a/b","records":[{"nope":1}]}]}"#, "records[0].records[0].nope: unknown field"),
    ] as [(String, String)])
    func errorsNameTheField(json: String, message: String) {
        #expect(throws: NFCError.invalidArgument(message)) { try Self.decode(json) }
    }

    /// A raw record is held to the TNF rules the strict decoder checks (NDEF 1.0 §3.3, §3.2.6): before,
    /// `{"tnf":0,"payloadHex":"AABB"}` encoded to D00002AABB, which `NDEFMessage(bytes:)` refuses.
    @Test(arguments: [
        (#"[{"tnf":0,"payloadHex":"AABB"}]"#,
         "records[0].payloadHex: PAYLOAD_LENGTH must be 0 for TNF 0 (empty), NDEF 1.0 §3.3: drop payloadHex or give another tnf"),
        (#"[{"tnf":0,"idHex":"01"}]"#,
         "records[0].idHex: ID_LENGTH must be 0 for TNF 0 (empty), NDEF 1.0 §3.3: drop idHex or give another tnf"),
        (#"[{"tnf":0,"type":"U"}]"#,
         "records[0].type: TYPE_LENGTH must be 0 for TNF 0 (empty), NDEF 1.0 §3.3: drop type or give another tnf"),
        (#"[{"tnf":1,"payloadHex":"00"}]"#, "records[0].typeHex: TYPE_LENGTH must be > 0 for TNF 1, NDEF 1.0 §3.3: give typeHex or type"),
        (#"[{"tnf":4,"typeHex":"","payloadHex":"00"}]"#,
         "records[0].typeHex: TYPE_LENGTH must be > 0 for TNF 4, NDEF 1.0 §3.3: give typeHex or type"),
        (#"[{"tnf":5,"typeHex":"55","payloadHex":"00"}]"#,
         "records[0].typeHex: TYPE_LENGTH must be 0 for TNF 5 (unknown), NDEF 1.0 §3.3: drop typeHex or give another tnf"),
        (#"[{"tnf":6,"payloadHex":"00"}]"#,
         "records[0].tnf: TNF 6 (unchanged) outside a chunked record, NDEF 1.0 §3.2.3: records are written unchunked; "
             + "use tnf 5 (unknown) for a payload without a type"),
        (#"[{"tnf":7}]"#, "records[0].tnf: TNF 7 is reserved, NDEF 1.0 §3.2.6: use tnf 0 to 5"),
    ] as [(String, String)])
    func rawRecordsFollowTheTNFRulesOfTheDecoder(json: String, message: String) {
        #expect(throws: NFCError.invalidArgument(message)) { try Self.decode(json) }
    }

    /// One rule table for both directions: for every TNF and every mix of empty and non-empty TYPE, ID
    /// and PAYLOAD, the JSON form encodes a raw record exactly when the strict decoder reads its bytes.
    @Test func rawRecordsEncodeExactlyWhenTheStrictDecoderReadsThem() throws {
        for tnf in TypeNameFormat.allCases {
            for mask in 0..<8 {
                let type: [UInt8] = mask & 1 != 0 ? [0x78] : [], identifier: [UInt8] = mask & 2 != 0 ? [0x01] : []
                let payload: [UInt8] = mask & 4 != 0 ? [0xAA] : []
                let json = #"[{"tnf":\#(tnf.rawValue),"typeHex":"\#(type.isEmpty ? "" : "78")","#
                    + #""idHex":"\#(identifier.isEmpty ? "" : "01")","payloadHex":"\#(payload.isEmpty ? "" : "AA")"}]"#
                let encodes = (try? Self.decode(json)) != nil
                let bytes = try NDEFMessage(records: [NDEFRecord(tnf: tnf, type: type, identifier: identifier, payload: payload)]).bytes
                let decodes = (try? NDEFMessage(bytes: bytes)) != nil
                #expect(encodes == decodes, "tnf \(tnf.rawValue), type \(type), id \(identifier), payload \(payload)")
            }
        }
    }

    @Test func invalidJSONIsAnInvalidArgument() {
        let error = #expect(throws: NFCError.self) { try Self.decode("{\"records\":[") }
        #expect(error?.code == "invalid_argument")
        #expect(error?.message.hasPrefix("not valid JSON") == true)
    }

    @Test func recordJSONIsUsableInsideOtherCodableTypes() throws {
        struct WriteCommand: Codable, Equatable { var id: String; var records: [NDEFRecordJSON] }
        let command = try JSONDecoder().decode(WriteCommand.self, from: Data(#"{"id":"7","records":[{"uri":"tel:1"}]}"#.utf8))
        #expect(try command.records.map { try $0.makeRecord() } == [.uri("tel:1")])
        #expect(throws: NFCError.invalidArgument("records[0].x: unknown field")) {
            try JSONDecoder().decode(WriteCommand.self, from: Data(#"{"id":"7","records":[{"x":1}]}"#.utf8))
        }
    }
}
