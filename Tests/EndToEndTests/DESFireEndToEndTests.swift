import Foundation
import NFCCore
import Testing
import TestSupport

/// MIFARE DESFire end to end: the built CLI and agent, real libnfc (`pn532_uart`), `nfcbridge-sim` on a
/// pty with the demonstration layout (docs/simulator.md "DESFire"): free, MACed-but-free and protected
/// files of every type, an empty record file, a protected application, answers chained past 59 bytes.
@Suite(.serialized, .timeLimit(.minutes(3))) struct DESFireEndToEndTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var kind: String
        var cardType: String
        var product: String
        /// How the first application's files are keyed: its AID in card order.
        var application: String
        var testDescription: String { kind }
    }

    static let cases = [
        Case(kind: "desfire_ev1", cardType: "MIFARE DESFire EV1", product: "MIFARE DESFire EV1 4K", application: "010000"),
        Case(kind: "desfire_ev2", cardType: "MIFARE DESFire EV2", product: "MIFARE DESFire EV2 8K", application: "010000"),
        Case(kind: "desfire_ev3", cardType: "MIFARE DESFire EV3", product: "MIFARE DESFire EV3 8K", application: "010000"),
    ]

    static func scenario(_ kind: String) -> String {
        "tags:\n  - {id: badge, type: \(kind), uid: 04 2F 19 0A CD 66 80}\ntimeline: [{at: 0, place: badge}]\n"
    }

    /// `nfcbridge dump --compact` of `simulator`'s card: the JSON, its files (name → data hex) and facts.
    static func dump(_ simulator: SimulatorProcess) throws -> (json: [String: Any], files: [String: String], facts: [String: String]) {
        let result = try runNFCBridge(["dump", "--device", simulator.connstring, "--compact", "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)")
        let dump = try #require(jsonObject(result.out.trimmingCharacters(in: .newlines)), "\(result.out)")
        var files: [String: String] = [:]
        for file in dump["files"] as? [[String: Any]] ?? [] { files[file["name"] as? String ?? ""] = file["data"] as? String }
        let facts = Dictionary((dump["facts"] as? [[String: Any]] ?? []).map { ($0["key"] as? String ?? "", $0["value"] as? String ?? "") },
                               uniquingKeysWith: { a, _ in a })
        return (dump, files, facts)
    }

    /// The Light's fixed files (MF2DL(H)x0 §8.2), read with its own ReadData ADh / ReadRecords ABh: a
    /// real Light refuses BDh / BBh with 91 1C, and so does the simulator's.
    @Test func aLightHasItsFixedFilesReadWithItsOwnCommands() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario("desfire_light"))
        defer { simulator.stop() }
        let (dump, files, facts) = try Self.dump(simulator)
        #expect(dump["product"] as? String == "MIFARE DESFire Light", "\(dump)")
        let app = "A00000039656434103F015400000000B"
        #expect(files[app + "/00"] == (0..<256).map { UInt8(truncatingIfNeeded: $0) }.hexString, "256 bytes chained")
        #expect(files[app + "/01"]?.count == 96, "three 16-byte records")
        #expect(files[app + "/03"] == "64000000", "value 100")
        #expect(files[app + "/1F"]?.count == 64)
        #expect(files.count == 4)
        #expect(facts["Files Read"] == "4")
        #expect(facts["Skipped"] == app + "/04")
    }

    /// An NTAG 424 DNA as delivered (NT4H2421Gx §8.2): a Type 4 tag whose fixed files 01h (CC) and
    /// 02h (NDEF) are read with ReadData ADh and 03h (read key 2) named; no Flipper file (Flipper has
    /// no NTAG 4xx DNA format).
    @Test func anNTAG424DNAIsAType4TagWithItsFixedFiles() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario("ntag424_dna"))
        defer { simulator.stop() }
        let (dump, files, facts) = try Self.dump(simulator)
        #expect(dump["product"] as? String == "NTAG 424 DNA", "\(dump)")
        #expect(files["D2760000850101/01"] != nil && files["D2760000850101/02"] != nil, "\(files.keys)")
        #expect(facts["Skipped"] == "D2760000850101/03", "\(facts)")
        let flipper = try runNFCBridge(["dump", "--device", simulator.connstring, "--format", "flipper", "--timeout", "20"])
        #expect(flipper.status != 0)
        #expect(flipper.err.contains("Flipper Zero has no NTAG 424 DNA format"), "\(flipper.err)")
    }

    @Test(arguments: cases) func dumpReadsFreeFilesAndNamesTheProtectedOnes(_ expected: Case) throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario(expected.kind))
        defer { simulator.stop() }
        let (dump, files, facts) = try Self.dump(simulator)
        #expect(dump["cardType"] as? String == expected.cardType)
        #expect(dump["cardFamily"] as? String == "MIFARE DESFire")
        #expect(dump["product"] as? String == expected.product, "\(dump)")
        let app = expected.application
        // 100 bytes: ReadData chained past one 59-byte frame through libnfc's ISO-DEP.
        #expect(files[app + "/00"] == (0..<100).map { UInt8($0) }.hexString)
        #expect(files[app + "/01"] == (0..<32).map { UInt8(0xA0 + $0) }.hexString, "MACed but free: read plain")
        #expect(files[app + "/02"] == "D2040000", "enciphered but free value 1234")
        #expect(files[app + "/03"]?.count == 96, "linear record file, read&write right free")
        #expect(files[app + "/04"] == "", "an empty record file is not an error")
        let protected = ["05", "06", "07", "08", "09"].map { app + "/" + $0 }
        for key in protected { #expect(files[key] == nil, "\(key) needs a key") }
        #expect(dump["capabilities"] as? [String] == ["Readable", "Authentication Required", "Partially Readable"])
        #expect(files.count == 6)
        #expect(files["030000/02"]?.count == 200, "cyclic records chained past 59 bytes")
        #expect(facts["Skipped"] == (protected + ["020000", "030000/01"]).joined(separator: ", "))
        #expect(facts["Application 020000"] == "Skipped: AUTHENTICATION_ERROR (91AE)")
        #expect(facts["File \(app)/05"]?.hasSuffix("skipped: read needs key 1, read&write needs key 1") == true, "\(facts)")
    }

    @Test func flipperHoldsTheWalkAndMFDSaysUnsupported() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario("desfire_ev2"))
        defer { simulator.stop() }
        let flipper = try runNFCBridge(["dump", "--device", simulator.connstring, "--format", "flipper", "--timeout", "20"])
        #expect(flipper.status == 0, "\(flipper.err)")
        let lines = flipper.out.split(separator: "\n").map(String.init)
        #expect(lines.contains("Device type: Mifare DESFire"))
        #expect(lines.contains("Application IDs: 01 00 00 02 00 00 03 00 00"))
        #expect(lines.contains("Application 010000 File 0: " + (0..<100).map { UInt8($0) }.spacedHexString))
        #expect(lines.contains("Application 010000 File 5 Access Rights: 10 10"))
        #expect(!lines.contains { $0.hasPrefix("Application 010000 File 5: ") }, "a protected file has no data line")

        let mfd = try runNFCBridge(["dump", "--device", simulator.connstring, "--format", "mfd", "--output",
                                    simulator.directory + "/badge.mfd", "--timeout", "20"])
        #expect(mfd.status != 0)
        let error = jsonObject(mfd.err.split(separator: "\n").last ?? "")?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "unsupported", "\(mfd.err)")
        #expect((error?["message"] as? String)?.contains("MIFARE DESFire") == true, "\(mfd.err)")
    }

    @Test func scanJSONShowsDESFire() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario("desfire_ev3"))
        defer { simulator.stop() }
        let result = try runNFCBridge(["scan", "--device", simulator.connstring, "--once", "--json", "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)")
        let scan = try #require(jsonObject(result.out.trimmingCharacters(in: .newlines)), "\(result.out)")
        #expect(scan["cardType"] as? String == "MIFARE DESFire EV3")
        #expect(scan["cardFamily"] as? String == "MIFARE DESFire")
        #expect(scan["product"] as? String == "MIFARE DESFire EV3 8K")
        #expect((scan["version"] as? String)?.hasPrefix("04010133001A05") == true, "\(scan)")
    }

    /// `dump.on_scan` publishes `event/dump`, and `request/dump` answers with the same walk.
    @Test func mqttEventAndRequestDumpShowDESFire() async throws {
        try await withCommandAgent(scenario: Self.scenario("desfire_ev1"), extraConfiguration: "dump: {on_scan: true}") { h in
            let event = await h.next { $0.topic == "nfc/e2e/event/dump" }
            let eventDump = event.object?["dump"] as? [String: Any]
            #expect(eventDump?["cardFamily"] as? String == "MIFARE DESFire", "\(event.payloadString ?? "")")
            let eventFiles = (eventDump?["files"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(eventFiles == ["010000/00", "010000/01", "010000/02", "010000/03", "010000/04", "030000/02"])
            #expect(eventDump?["capabilities"] as? [String] == ["Readable", "Authentication Required", "Partially Readable"])

            try await h.request("dump", #"{"id":"d"}"#)
            let reply = await h.final("dump", id: "d")
            #expect(reply.status == "ok", "\(reply.payloadString ?? "")")
            let dump = reply.data?["dump"] as? [String: Any]
            #expect(dump?["cardType"] as? String == "MIFARE DESFire EV1")
            #expect((dump?["files"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } == eventFiles)
            try await h.request("dump", #"{"id":"f","format":"flipper"}"#)
            let flipper = await h.final("dump", id: "f")
            let file = (flipper.data?["file"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
            #expect(file?.contains("Device type: Mifare DESFire\n") == true, "\(flipper.payloadString ?? "")")
            try await h.request("dump", #"{"id":"m","format":"mfd"}"#)
            let mfd = await h.final("dump", id: "m")
            #expect(mfd.errorCode == "unsupported", "\(mfd.payloadString ?? "")")
        }
    }
}
