import Foundation
import NFCCore
import Testing
import TestSupport

/// `nfcbridge write|format|lock` through the real libnfc (`pn532_uart`) against `nfcbridge-sim`,
/// checking the virtual tag's memory over the simulator's control socket.
@Suite(.serialized) struct CommandsCLITests {
    static let uid = "04A1B2C3D4E5F6"
    static let scenario = """
        tags:
          - id: sticker
            type: ntag215
            uid: 04A1B2C3D4E5F6
            ndef:
              - uri: https://example.com/old
        timeline: [{at: 0, place: sticker}]
        """

    func nfcbridge(_ arguments: [String], on simulator: SimulatorProcess, input: String? = nil) throws -> ProcessResult {
        try runProcess(
            Binaries.path("nfcbridge"), arguments + ["--device", "pn532_uart:\(simulator.linkPath)"],
            input: input.map { Data($0.utf8) }, environment: simulator.libnfcEnvironment)
    }

    /// The NDEF message in the tag's memory (the simulator's `dump`), in hex.
    func ndef(of id: String, on simulator: SimulatorProcess) throws -> String? {
        NFCForumTLV.extractMessage(fromMemory: try LibNFCTools.memory(of: id, on: simulator))?.hexString
    }

    /// Page 3 of the tag's memory.
    func capabilityContainer(of id: String, on simulator: SimulatorProcess) throws -> String {
        Array(try LibNFCTools.memory(of: id, on: simulator)[12..<16]).hexString
    }

    func json(_ result: ProcessResult) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any]
    }

    func errorCode(_ result: ProcessResult) -> String? {
        let line = result.err.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
        let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] as? String
    }

    func message(_ records: String) throws -> String {
        try NDEFMessage(records: NDEFJSON.decodeRecords(Data(records.utf8))).bytes.hexString
    }

    @Test func writeURIThenTextThenRecordsFile() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let uri = try nfcbridge(["write", "--uri", "https://example.com/new", "--timeout", "20"], on: simulator)
        #expect(uri.status == 0, "\(uri.err)")
        #expect(json(uri)?["uid"] as? String == Self.uid)
        #expect((json(uri)?["pages_written"] as? [Int])?.isEmpty == false)
        #expect(try ndef(of: "sticker", on: simulator) == message(#"[{"uri":"https://example.com/new"}]"#))

        let text = try nfcbridge(["write", "--text", "Hallo", "--lang", "de", "--timeout", "20"], on: simulator)
        #expect(text.status == 0, "\(text.err)")
        #expect(try ndef(of: "sticker", on: simulator) == message(#"[{"text":"Hallo","lang":"de"}]"#))

        let file = simulator.directory + "/records.json"
        let records = #"{"records":[{"uri":"https://example.com/a"},{"text":"two"}]}"#
        try records.write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try nfcbridge(["write", "--records", file, "--timeout", "20"], on: simulator)
        #expect(fromFile.status == 0, "\(fromFile.err)")
        #expect(try ndef(of: "sticker", on: simulator) == message(#"[{"uri":"https://example.com/a"},{"text":"two"}]"#))
    }

    @Test func capacityExceededWritesNothing() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let before = try simulator.control(["cmd": "dump", "id": "sticker"])["memory"] as? String
        let result = try nfcbridge(["write", "--text", String(repeating: "x", count: 600), "--timeout", "20"], on: simulator)
        #expect(result.status == 1)
        #expect(errorCode(result) == "capacity_exceeded", "\(result.err)")
        #expect(try simulator.control(["cmd": "dump", "id": "sticker"])["memory"] as? String == before)
    }

    @Test func verifyFailureIsReported() throws {
        // A factory-fresh tag (empty message): the first WRITE already carries message bytes. (On a
        // tag with a message, the first WRITE zeroes the length and is overwritten at the end.)
        let simulator = try SimulatorProcess(scenario: """
            tags: [{id: sticker, type: ntag215, uid: 04A1B2C3D4E5F6}]
            timeline: [{at: 0, place: sticker}]
            """)
        defer { simulator.stop() }
        #expect(try simulator.control(["cmd": "fault", "fault": "corrupt_next_write"])["ok"] as? Bool == true)
        let result = try nfcbridge(["write", "--uri", "https://example.com/verify", "--timeout", "20"], on: simulator)
        #expect(result.status == 1)
        #expect(errorCode(result) == "verify_failed", "\(result.err)")
        #expect(result.err.contains("pages written"))
    }

    @Test func tagRemovedMidWriteNamesThePagesWritten() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        // Identification and the checks before the first WRITE take about a dozen frames.
        let armed = try simulator.control(["cmd": "fault", "fault": "remove_after_commands", "id": "sticker", "count": 20])
        #expect(armed["ok"] as? Bool == true)
        let result = try nfcbridge(["write", "--text", String(repeating: "y", count: 200), "--timeout", "20"], on: simulator)
        #expect(result.status == 1)
        #expect(errorCode(result) == "tag_removed", "\(result.err)")
        #expect(result.err.contains("pages written: 4"), "\(result.err)")
        // The length was zeroed first and never restored: the tag holds an empty message, not a torn one.
        #expect(try ndef(of: "sticker", on: simulator) == "")
    }

    @Test func formatEmptiesTheTag() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let result = try nfcbridge(["format", "--timeout", "20"], on: simulator)
        #expect(result.status == 0, "\(result.err)")
        #expect(json(result)?["capability_container"] as? String == "E1103E00")
        #expect(try ndef(of: "sticker", on: simulator) == "")
    }

    @Test func lockRefusesAnotherUIDThenLocksForGood() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let usage = try nfcbridge(["lock", "--uid", Self.uid, "--confirm", "04A1B2C3D4E5F7"], on: simulator)
        #expect(usage.status == 2)
        let wrong = try nfcbridge(["lock", "--uid", "04112233445566", "--confirm", "04112233445566", "--timeout", "20"], on: simulator)
        #expect(wrong.status == 1)
        #expect(errorCode(wrong) == "tag_mismatch", "\(wrong.err)")

        let lock = try nfcbridge(["lock", "--uid", Self.uid, "--confirm", Self.uid, "--timeout", "20"], on: simulator)
        #expect(lock.status == 0, "\(lock.err)")
        #expect(try capabilityContainer(of: "sticker", on: simulator) == "E1103E0F")
        let write = try nfcbridge(["write", "--uri", "https://example.com/late", "--timeout", "20"], on: simulator)
        #expect(write.status == 1)
        #expect(errorCode(write) == "tag_locked", "\(write.err)")
    }

    /// `lock --uid` with two tags on the reader locks the one it names, also when the reader lists
    /// the other first, and leaves the other as it was.
    @Test func lockNamesOneOfTwoTags() throws {
        let simulator = try SimulatorProcess(scenario: """
            tags:
              - {id: a, type: ntag215, uid: 04A1A1A1A1A1A1}
              - {id: b, type: ntag215, uid: 04B2B2B2B2B2B2}
            timeline: [{at: 0, place: a}, {at: 0, place: b}]
            """)
        defer { simulator.stop() }
        for (id, uid) in [("b", "04B2B2B2B2B2B2"), ("a", "04A1A1A1A1A1A1")] {
            let lock = try nfcbridge(["lock", "--uid", uid, "--confirm", uid, "--timeout", "20"], on: simulator)
            #expect(lock.status == 0, "\(id): \(lock.err)")
            #expect(try capabilityContainer(of: id, on: simulator) == "E1103E0F")
            if id == "b" { #expect(try capabilityContainer(of: "a", on: simulator) == "E1103E00") }
        }
    }

    @Test func noTagBeforeTheTimeout() throws {
        let simulator = try SimulatorProcess(arguments: ["--time-scale", "0.05"])
        defer { simulator.stop() }
        let result = try nfcbridge(["format", "--timeout", "1"], on: simulator)
        #expect(result.status == 3, "\(result.err)")
        #expect(errorCode(result) == "no_tag")
    }
}
