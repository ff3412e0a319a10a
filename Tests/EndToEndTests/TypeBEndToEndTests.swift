import Foundation
import NFCCore
import Testing
import TestSupport

/// An ISO 14443-B card carrying the NFC Forum Type 4 application, end to end: real libnfc
/// (`pn532_uart`, `NMT_ISO14443B`) against `nfcbridge-sim`'s `type4_b` card — the CLI, libnfc's own
/// tools, and the agent over a real mosquitto — with the card's memory checked through the
/// simulator's control channel.
@Suite(.serialized) struct TypeBEndToEndTests {
    static let pupi = "1A2B3C4D"
    static let scenario = """
        tags:
          - {id: card, type: type4_b, uid: 1A2B3C4D, ndef: [{uri: 'https://example.com/b'}]}
        timeline: [{at: 0, place: card}]
        """

    func nfcbridge(_ arguments: [String], on simulator: SimulatorProcess) throws -> ProcessResult {
        try runProcess(
            Binaries.path("nfcbridge"), arguments + ["--device", simulator.connstring], environment: simulator.libnfcEnvironment)
    }

    /// The NDEF message the virtual card's Type 4 file holds (the simulator's `dump`), hex.
    func ndef(on simulator: SimulatorProcess) throws -> String? {
        try simulator.control(["cmd": "dump", "id": "card"])["ndef"] as? String
    }

    func message(_ records: String) throws -> String {
        try NDEFMessage(records: NDEFJSON.decodeRecords(Data(records.utf8))).bytes.hexString
    }

    @Test func scanReportsThePUPIAndTheATQBAndReadsTheNDEFMessage() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let result = try nfcbridge(["scan", "--once", "--json", "--timeout", "20"], on: simulator)
        #expect(result.status == 0, "\(result.err)")
        let report = try #require(jsonObject(result.out.trimmingCharacters(in: .newlines)), "\(result.out)")
        #expect(report["uid"] as? String == Self.pupi)
        #expect(report["cardType"] as? String == "NFC Forum Type 4 Tag")
        #expect(report["applicationData"] as? String == "00E2AF01")
        #expect(report["protocolInfo"] as? String == "008175")
        #expect(report["atqa"] == nil && report["sak"] == nil, "\(report)")
        #expect(report["ndefStatus"] == nil && report["ndefError"] == nil, "\(report)")
        let record = ((report["ndef"] as? [String: Any])?["records"] as? [[String: Any]])?.first
        #expect(record?["uri"] as? String == "https://example.com/b", "\(report)")
    }

    /// `dump --format json` of the B card carries the ATQB fields, and `export --from` / `import` of
    /// that file give the same bytes back.
    @Test func theJSONDumpKeepsTheATQBFieldsThroughExportAndImport() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let dump = try nfcbridge(["dump", "--format", "json", "--timeout", "20"], on: simulator)
        #expect(dump.status == 0, "\(dump.err)")
        let object = try #require(jsonObject(dump.out), "\(dump.out)")
        #expect(object["uid"] as? String == Self.pupi)
        #expect(object["applicationData"] as? String == "00E2AF01", "\(dump.out)")
        #expect(object["protocolInfo"] as? String == "008175", "\(dump.out)")
        let cli = Binaries.path("nfcbridge")
        let exported = try runProcess(cli, ["export", "--from", "-", "--format", "json"], input: dump.stdout)
        #expect(exported.status == 0, "\(exported.err)")
        #expect(exported.out == dump.out)
        let imported = try runProcess(cli, ["import", "-"], input: dump.stdout)
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out == dump.out + "\n")
    }

    @Test func writeThenReadBackThroughTheSimulatorAndTheScan() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let long = String(repeating: "b", count: 400)  // more than one APDU and one block each way
        let write = try nfcbridge(["write", "--text", long, "--timeout", "20"], on: simulator)
        #expect(write.status == 0, "\(write.err)")
        let expected = try message(#"[{"text":"\#(long)"}]"#)
        #expect(try ndef(on: simulator) == expected)
        let scan = try nfcbridge(["scan", "--once", "--json", "--timeout", "20"], on: simulator)
        let report = try #require(jsonObject(scan.out.trimmingCharacters(in: .newlines)), "\(scan.out) \(scan.err)")
        #expect((report["ndef"] as? [String: Any])?["hex"] as? String == expected, "\(report)")
    }

    @Test func libnfcsOwnListFindsTheCard() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        #expect((try simulator.control(["cmd": "list"])["field"] as? [String]) == ["card"])
        let result = try LibNFCTools.run("nfc-list", [], on: simulator)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("1 ISO14443B passive target(s) found"), "\(result.out)")
        #expect(result.out.contains("PUPI: 1a  2b  3c  4d"), "\(result.out)")
        #expect(result.out.contains("Application Data: 00  e2  af  01"), "\(result.out)")
        #expect(result.out.contains("Protocol Info: 00  81  75"), "\(result.out)")
    }

    /// `nfc-poll` waits in InAutoPoll (its type list includes 03h for type B), sees the card arrive,
    /// then pings it with libnfc's type B presence check (`BA 01` through InCommunicateThru) until it
    /// leaves.
    @Test func libnfcsOwnPollSeesTheCardArriveAndLeave() throws {
        let simulator = try SimulatorProcess(scenario: """
            tags:
              - {id: card, type: type4_b, uid: 1A2B3C4D}
            """)
        defer { simulator.stop() }
        let poll = try ChildProcess(LibNFCTools.path("nfc-poll"), [], environment: simulator.libnfcEnvironment)
        defer { poll.terminate() }
        let waited = try simulator.control(["cmd": "wait_command", "code": "60", "timeout_ms": 30000])
        #expect(waited["ok"] as? Bool == true, "InAutoPoll never came: \(waited) \(poll.errorOutput)")
        #expect(try simulator.control(["cmd": "place", "id": "card"])["ok"] as? Bool == true)
        #expect(poll.waitForOutput("Waiting for card removing"), "\(poll.output)\(poll.errorOutput)")
        #expect(poll.output.contains("ISO/IEC 14443-4B (106 kbps) target:"), "\(poll.output)")
        #expect(poll.output.contains("PUPI: 1a  2b  3c  4d"), "\(poll.output)")
        #expect(try simulator.control(["cmd": "remove", "id": "card"])["removed"] as? Int == 1)
        #expect(poll.waitForExit() == 0, "\(poll.output)\(poll.errorOutput)")
        #expect(poll.output.contains("done."), "\(poll.output)")
    }

    /// The agent polling `iso14443b`: `event/scanned` and `event/dump` for the B card, then
    /// `request/write` and `request/dump` on it, the write checked in the card's memory; its presence
    /// is checked through libnfc's type B ping until it leaves (`event/removed`).
    @Test func mqttScannedDumpAndWriteOnTheBCard() async throws {
        try await withCommandAgent(
            scenario: Self.scenario, extraConfiguration: "dump: {on_scan: true}", modulations: "[iso14443a, iso14443b]") { h in
            let scanned = await h.next { $0.topic == "nfc/e2e/event/scanned" }
            #expect(scanned.object?["uid"] as? String == Self.pupi, "\(scanned.payloadString ?? "")")
            #expect(scanned.object?["cardType"] as? String == "NFC Forum Type 4 Tag")
            #expect(scanned.object?["applicationData"] as? String == "00E2AF01")
            #expect(scanned.object?["protocolInfo"] as? String == "008175")
            let record = ((scanned.object?["ndef"] as? [String: Any])?["records"] as? [[String: Any]])?.first
            #expect(record?["uri"] as? String == "https://example.com/b")
            let event = await h.next { $0.topic == "nfc/e2e/event/dump" }
            let eventDump = event.object?["dump"] as? [String: Any]
            #expect(eventDump?["uid"] as? String == Self.pupi, "\(event.payloadString ?? "")")
            #expect(eventDump?["cardFamily"] as? String == "NFC Forum Type 4")
            #expect(eventDump?["applicationData"] as? String == "00E2AF01", "\(event.payloadString ?? "")")
            #expect(eventDump?["protocolInfo"] as? String == "008175")

            try await h.request("write", #"{"id":"w","records":[{"uri":"https://example.com/b/written"}]}"#)
            let written = await h.final("write", id: "w")
            #expect(written.status == "ok", "\(written.payloadString ?? "")")
            let ndef = try h.simulator.control(["cmd": "dump", "id": "card"])["ndef"] as? String
            #expect(ndef == (try message(#"[{"uri":"https://example.com/b/written"}]"#)))

            try await h.request("dump", #"{"id":"d"}"#)
            let reply = await h.final("dump", id: "d")
            #expect(reply.status == "ok", "\(reply.payloadString ?? "")")
            let dump = reply.data?["dump"] as? [String: Any]
            #expect(dump?["uid"] as? String == Self.pupi)
            #expect(dump?["cardType"] as? String == "NFC Forum Type 4 Tag")
            #expect(dump?["ndefHex"] as? String == ndef, "\(reply.payloadString ?? "")")
            #expect(dump?["applicationData"] as? String == "00E2AF01")
            #expect(dump?["protocolInfo"] as? String == "008175")

            try h.control(["cmd": "remove", "id": "card"])
            let removed = await h.next { $0.topic == "nfc/e2e/event/removed" }
            #expect(removed.object?["uid"] as? String == Self.pupi, "\(removed.payloadString ?? "")")
        }
    }
}
