import Foundation
import NFCCore
import Testing

@testable import NFCBridge

@Suite struct CommandParserTests {
    let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    let monotonic: Int64 = 50_000

    func parse(_ command: String, _ json: String, policy: CommandPolicy = CommandPolicy()) -> Result<CommandRequest, CommandRejection> {
        CommandParser.parse(command: command, payload: Array(json.utf8), policy: policy, now: now, monotonic: monotonic)
    }

    func request(_ command: String, _ json: String, policy: CommandPolicy = CommandPolicy()) throws -> CommandRequest {
        try parse(command, json, policy: policy).get()
    }

    func rejection(_ command: String, _ json: String, policy: CommandPolicy = CommandPolicy()) -> CommandRejection? {
        if case let .failure(rejection) = parse(command, json, policy: policy) { return rejection }
        return nil
    }

    // MARK: - Accepted requests

    @Test func writeWithRecordsEncodesTheMessage() throws {
        let request = try request("write", #"{"id":"w1","records":[{"uri":"https://example.com"},{"text":"hi"}]}"#)
        let expected = try NDEFMessage(records: NDEFJSON.decodeRecords(Data(#"[{"uri":"https://example.com"},{"text":"hi"}]"#.utf8))).bytes
        #expect(request.command == .write)
        #expect(request.id == "w1")
        #expect(request.action == .write(message: expected, password: nil))
        #expect(request.waitForTagMilliseconds == 30_000)
        #expect(request.expiresAtMonotonic == nil)
        #expect(request.uid == nil)
    }

    /// The records are decoded from the parsed request value, never from JSON text written again: every
    /// message (and every accepted message's bytes) is that of NFCCore's text decoder for the same JSON.
    @Test(arguments: [
        #"[{"uri":"https://example.com"},{"text":"hi","lang":"de"}]"#,
        #"[{"tnf":1,"type":"U","payloadHex":"0165"}]"#,
        #"[{"tnf":1.0,"type":"U","payloadHex":"0165"}]"#,
        #"[{"title":"x","uri":"https://a.b","lang":"en","records":[{"text":"y"}]}]"#,
        #"[{"uri":5}]"#, #"[{"uri":"x"},{"bogus":1}]"#, #"["nope"]"#, #"[{"tnf":1.5}]"#, #"[{"tnf":true}]"#,
        #"[{"tnf":9,"type":"U"}]"#, #"[{"text":"hi","encoding":"latin-1"}]"#, #"[{"mimeType":""}]"#,
        #"[{"uri":"x","records":"no"}]"#, #"[{"uri":"x","records":[{"uri":7}]}]"#, #"[{"uri":null}]"#,
        #"[{"payloadHex":"zz","tnf":1}]"#,
    ])
    func recordsFromTheValueReadAsNFCCoreReadsTheirText(_ records: String) throws {
        let value = try JSONValue(parsing: Data(records.utf8))
        let fromValue = Result { () throws(CommandError) in try CommandParser.message(records: JSONFields(["records": value])) }
        let fromText = Result { () throws(NFCError) in
            try NDEFMessage(records: NDEFJSON.decodeRecords(Data(#"{"records":\#(records)}"#.utf8))).bytes
        }
        switch (fromValue, fromText) {
        case let (.success(bytes), .success(expected)): #expect(bytes == expected)
        case let (.failure(error), .failure(expected)):
            #expect(error.code == .invalidRequest)
            #expect(error.message == expected.message)
        default: Issue.record("value: \(fromValue), text: \(fromText)")
        }
    }

    /// A `write` whose raw record breaks its TNF's rules (NDEF 1.0 §3.3) is an `invalid_request` naming
    /// the field; before, it was encoded to bytes (D00002AABB) that the strict decoder refuses.
    @Test func writeRefusesARawRecordTheDecoderRefuses() {
        let refused = rejection("write", #"{"id":"w","records":[{"tnf":0,"payloadHex":"AABB"}]}"#)
        #expect(refused?.error.code == .invalidRequest)
        #expect(refused?.error.message.hasPrefix("records[0].payloadHex: PAYLOAD_LENGTH must be 0 for TNF 0 (empty)") == true,
                "\(refused?.error.message ?? "accepted")")
        #expect(refused?.id == "w")
    }

    @Test func writeWithNDEFHexAndPassword() throws {
        let request = try request("write", #"{"id":7,"ndef_hex":"D1010355016578","password":"12345678","uid":"04a1b2c3d4e5f6"}"#)
        #expect(request.id == .int(7))
        #expect(request.action == .write(message: [0xD1, 0x01, 0x03, 0x55, 0x01, 0x65, 0x78], password: [0x12, 0x34, 0x56, 0x78]))
        #expect(request.uid == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
    }

    @Test func commonFieldsSetWaitAndDeadline() throws {
        let ttl = try request("format", #"{"id":"f","wait_for_tag_s":0,"ttl_s":2.5}"#)
        #expect(ttl.waitForTagMilliseconds == 0)
        #expect(ttl.expiresAtMonotonic == monotonic + 2500)
        let both = try request("format", #"{"id":"f","ttl_s":60,"expires_at":"2026-01-01T00:00:10Z","transaction":42}"#)
        #expect(both.expiresAtMonotonic == monotonic + 10_000)
        #expect(both.transaction == .int(42))
        let fractional = try request("format", #"{"id":"f","expires_at":"2026-01-01T00:00:01.250Z"}"#)
        #expect(fractional.expiresAtMonotonic == monotonic + 1250)
    }

    @Test func dumpFormats() throws {
        #expect(try request("dump", #"{"id":"d"}"#).action == .dump(format: .json))
        for format in ExportFormat.allCases {
            #expect(try request("dump", #"{"id":"d","format":"\#(format.rawValue)"}"#).action == .dump(format: format))
        }
        // Every name of the export table, spelled out: MQTT takes what `nfcbridge export` takes.
        let names = ["flipper", "pm3", "pm3json", "pm3key", "eml", "mfd", "mfd64", "json", "hex", "bin"]
        #expect(ExportFormat.allCases.map(\.rawValue) == names)
        for name in names {
            let action = try request("dump", #"{"id":"d","format":"\#(name)"}"#).action
            #expect(action == .dump(format: try #require(ExportFormat(rawValue: name)), partial: false), "\(name)")
        }
        let unknown = rejection("dump", #"{"id":"d","format":"mfd128"}"#)
        #expect(unknown?.error.code == .invalidRequest)
        #expect(unknown?.error.message == "format: must be one of " + names.joined(separator: ", "))
        #expect(unknown?.id == "d")
        let notString = rejection("dump", #"{"id":"d","format":7}"#)
        #expect(notString?.error.code == .invalidRequest)
        #expect(notString?.error.message.hasPrefix("format:") == true)
    }

    /// `partial` is a strict boolean, and only for the formats with fixed places for pages or blocks
    /// (the CLI's `--partial`).
    @Test func dumpPartial() throws {
        for name in ["pm3", "pm3json", "eml", "mfd", "mfd64"] {
            let format = try #require(ExportFormat(rawValue: name))
            #expect(format.takesPartial)
            #expect(try request("dump", #"{"id":"d","format":"\#(name)","partial":true}"#).action
                == .dump(format: format, partial: true))
            #expect(try request("dump", #"{"id":"d","format":"\#(name)","partial":false}"#).action
                == .dump(format: format, partial: false))
        }
        for name in ["flipper", "pm3key", "json", "hex", "bin"] {
            let format = try #require(ExportFormat(rawValue: name))
            #expect(!format.takesPartial)
            let refused = rejection("dump", #"{"id":"d","format":"\#(name)","partial":true}"#)
            #expect(refused?.error.code == .invalidRequest, "\(name)")
            #expect(refused?.error.message
                == "partial: applies to format pm3, pm3json, eml, mfd and mfd64 only (format is \(name))", "\(name)")
            #expect(refused?.id == "d")
            // false asks for nothing, so it is taken with any format.
            #expect(try request("dump", #"{"id":"d","format":"\#(name)","partial":false}"#).action
                == .dump(format: format, partial: false))
        }
        // Without a format, the default json does not take partial.
        #expect(rejection("dump", #"{"id":"d","partial":true}"#)?.error.message.hasPrefix("partial: applies to") == true)
        for wrong in [#""true""#, "1", "null", "[true]", #"{"x":1}"#] {
            let refused = rejection("dump", #"{"id":"d","format":"mfd","partial":\#(wrong)}"#)
            #expect(refused?.error.code == .invalidRequest, "\(wrong)")
            #expect(refused?.error.message == "partial: must be true or false", "\(wrong)")
        }
    }

    @Test func lockNeedsEnablingUIDAndConfirm() throws {
        let enabled = CommandPolicy(lockEnabled: true)
        let lock = try request("lock", #"{"id":"l","uid":"04A1B2C3D4E5F6","confirm":"04:a1:b2:c3:d4:e5:f6"}"#, policy: enabled)
        #expect(lock.action == .lock(uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6], password: nil))

        let disabled = rejection("lock", #"{"id":"l","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F6"}"#)
        #expect(disabled?.error.code == .notPermitted)
        #expect(disabled?.id == "l")
        let noUID = rejection("lock", #"{"id":"l","confirm":"04A1B2C3D4E5F6"}"#, policy: enabled)
        #expect(noUID?.error.code == .invalidRequest)
        #expect(noUID?.error.message.hasPrefix("uid:") == true)
        let noConfirm = rejection("lock", #"{"id":"l","uid":"04A1B2C3D4E5F6"}"#, policy: enabled)
        #expect(noConfirm?.error.message.hasPrefix("confirm:") == true)
        let wrongConfirm = rejection("lock", #"{"id":"l","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F7"}"#, policy: enabled)
        #expect(wrongConfirm?.error.code == .invalidRequest)
        #expect(wrongConfirm?.error.message.hasPrefix("confirm:") == true)
    }

    @Test func cancelTakesOnlyTheID() throws {
        let cancel = try request("cancel", #"{"id":"w1","transaction":"t"}"#)
        #expect(cancel.action == .cancel)
        #expect(cancel.id == "w1")
        #expect(rejection("cancel", #"{"id":"w1","uid":"04A1B2C3"}"#)?.error.message.hasPrefix("uid:") == true)
    }

    // MARK: - Refusals

    /// Each malformed request is `invalid_request` naming the field.
    @Test(arguments: [
        ("write", "{", "payload"),
        ("write", "", "payload"),
        ("write", "[1,2]", "payload"),
        ("write", #""just a string""#, "payload"),
        ("write", #"{"records":[{"uri":"x"}]}"#, "id"),
        ("write", #"{"id":"","records":[{"uri":"x"}]}"#, "id"),
        ("write", #"{"id":1.5,"records":[{"uri":"x"}]}"#, "id"),
        ("write", #"{"id":{"a":1},"records":[{"uri":"x"}]}"#, "id"),
        ("write", #"{"id":"a","transaction":[1],"records":[{"uri":"x"}]}"#, "transaction"),
        ("write", #"{"id":"a","records":[{"uri":"x"}],"colour":"red"}"#, "colour"),
        ("write", #"{"id":"a"}"#, "records"),
        ("write", #"{"id":"a","records":[]}"#, "records"),
        ("write", #"{"id":"a","records":"nope"}"#, "records"),
        ("write", #"{"id":"a","records":[{"uri":5}]}"#, "records[0].uri"),
        ("write", #"{"id":"a","records":[{"uri":"x"},{"bogus":1}]}"#, "records[1].bogus"),
        ("write", #"{"id":"a","records":[{"uri":"x"}],"ndef_hex":"D00000"}"#, "ndef_hex"),
        ("write", #"{"id":"a","ndef_hex":"XYZ"}"#, "ndef_hex"),
        ("write", #"{"id":"a","ndef_hex":"D1"}"#, "ndef_hex"),
        ("write", #"{"id":"a","ndef_hex":""}"#, "ndef_hex"),
        ("write", #"{"id":"a","ndef_hex":"D00000","password":"123"}"#, "password"),
        ("write", #"{"id":"a","ndef_hex":"D00000","password":"123456"}"#, "password"),
        ("write", #"{"id":"a","ndef_hex":"D00000","uid":"04"}"#, "uid"),
        ("write", #"{"id":"a","ndef_hex":"D00000","uid":123}"#, "uid"),
        ("write", #"{"id":"a","ndef_hex":"D00000","wait_for_tag_s":-1}"#, "wait_for_tag_s"),
        ("write", #"{"id":"a","ndef_hex":"D00000","wait_for_tag_s":"10"}"#, "wait_for_tag_s"),
        ("write", #"{"id":"a","ndef_hex":"D00000","wait_for_tag_s":100000}"#, "wait_for_tag_s"),
        ("write", #"{"id":"a","ndef_hex":"D00000","ttl_s":0}"#, "ttl_s"),
        ("write", #"{"id":"a","ndef_hex":"D00000","expires_at":"tomorrow"}"#, "expires_at"),
        ("format", #"{"id":"a","records":[]}"#, "records"),
        ("dump", #"{"id":"a","format":"png"}"#, "format"),
        ("dump", #"{"id":"a","format":1}"#, "format"),
        ("lock", #"{"id":"a","uid":"04A1B2C3","confirm":7}"#, "confirm"),
    ])
    func malformedRequestsNameTheField(command: String, json: String, field: String) {
        let policy = CommandPolicy(lockEnabled: true)
        let refused = rejection(command, json, policy: policy)
        #expect(refused?.error.code == .invalidRequest, "\(json)")
        #expect(refused?.error.message.hasPrefix(field + ":") == true, "\(refused?.error.message ?? "accepted")")
    }

    @Test func oversizedPayloadIsRefusedBeforeParsing() {
        let padding = String(repeating: "x", count: 256 * 1024)
        let refused = rejection("write", #"{"id":"big","ndef_hex":"D00000","pad":"\#(padding)"}"#)
        #expect(refused?.error.code == .invalidRequest)
        #expect(refused?.error.message.hasPrefix("payload:") == true)
        #expect(refused?.id == nil)
    }

    @Test func unknownCommandEchoesIDAndTransaction() {
        let refused = rejection("explode", #"{"id":"x","transaction":"t9"}"#)
        #expect(refused?.error.code == .unknownCommand)
        #expect(refused?.id == "x")
        #expect(refused?.transaction == "t9")
    }

    @Test func refusalsEchoTheIDWhenItIsUsable() {
        let refused = rejection("write", #"{"id":"abc","transaction":3,"records":5}"#)
        #expect(refused?.id == "abc")
        #expect(refused?.transaction == .int(3))
        #expect(rejection("write", #"{"id":[],"records":5}"#)?.id == nil)
    }

    @Test func expiredRequestsAreRefused() {
        let past = rejection("write", #"{"id":"e","ndef_hex":"D00000","expires_at":"2025-12-31T23:59:59Z"}"#)
        #expect(past?.error.code == .expired)
        #expect(past?.id == "e")
        let exactlyNow = rejection("format", #"{"id":"e","expires_at":"2026-01-01T00:00:00Z"}"#)
        #expect(exactlyNow?.error.code == .expired)
    }

    @Test func idKeysKeepStringsAndIntegersApart() throws {
        #expect(CommandRequest.key(for: "42") != CommandRequest.key(for: 42))
        #expect(try request("format", #"{"id":42.0}"#).id == .int(42))
    }
}

@Suite struct CommandErrorMappingTests {
    /// NFCCore's errors (and ops' codes by name) land on the documented command codes.
    @Test func nfcErrorsMapToCommandCodes() {
        let cases: [(NFCError, CommandErrorCode)] = [
            (.tagRemoved, .tagRemoved),
            (.capacityExceeded(needed: 600, available: 496), .capacityExceeded),
            (.tagLocked, .tagLocked),
            (.authenticationFailed, .authFailed),
            (.authenticationRequired, .authRequired),
            (.writeFailed(page: 5), .writeFailed),
            (.verifyFailed(page: 5), .verifyFailed),
            (.unsupportedOperation("no"), .unsupported),
            (.tagNotSupported, .unsupported),
            (.invalidArgument("x"), .invalidRequest),
            (.readerUnavailable("gone"), .readerUnavailable),
            (.userCanceled, .canceled),
            (.timeout, .writeFailed),
            (.libraryUnavailable("libcrypto.so.3 could not be loaded: install the Debian package libssl3"), .libraryUnavailable),
        ]
        for (error, code) in cases {
            #expect(CommandError(error).code == code, "\(error)")
        }
        #expect(CommandError(.timeout, reading: true).code == .readFailed)
    }

    @Test func pagesWrittenGoIntoData() throws {
        let removed = CommandError(.tagRemoved, pagesWritten: [4, 5, 6])
        #expect(removed.details.pagesWritten == [4, 5, 6])
        #expect(CommandError(.tagLocked, pagesWritten: []).details.pagesWritten == [])
        #expect(CommandError(.tagRemoved).details.pagesWritten == nil)
        // The response encodes them into `data`, and reads them back from a cached payload.
        let response = CommandResponse.failure(id: "p", transaction: nil, removed)
        #expect(response.json["data"] == ["pages_written": [4, 5, 6]])
        #expect(try JSONDecoder().decode(CommandResponse.self, from: Data(response.payload)).error?.details == removed.details)
        #expect(CommandResponse.failure(id: "p", transaction: nil, CommandError(.tagRemoved)).json["data"] == [:])
    }
}
