import Foundation
import NFCCore
import Testing
import TestSupport

/// `nfcbridge scan` end to end: the built CLI, real libnfc, `nfcbridge-sim` on a pty.
@Suite(.serialized) struct ScanCommandTests {
    /// One virtual tag of each type the simulator makes, with what `scan --json` must say about it.
    struct Case: Sendable, CustomTestStringConvertible {
        var kind: String
        var cardType: String
        var cardFamily: String
        var atqa: String?
        var sak: String?
        /// GET_VERSION prefix (vendor, product type) for tags that answer it.
        var versionPrefix: String?
        /// The URI or text of the first NDEF record, when the tag holds one.
        var ndefValue: String?
        var testDescription: String { kind }
    }

    static let cases: [Case] = [
        Case(kind: "ultralight", cardType: "MIFARE Ultralight", cardFamily: "MIFARE Ultralight", atqa: "0044", sak: "00"),
        Case(kind: "ultralight_c", cardType: "MIFARE Ultralight C", cardFamily: "MIFARE Ultralight", atqa: "0044", sak: "00"),
        Case(
            kind: "ultralight_ev1_11", cardType: "MIFARE Ultralight EV1 (MF0UL11)", cardFamily: "MIFARE Ultralight",
            atqa: "0044", sak: "00", versionPrefix: "000403"),
        Case(
            kind: "ultralight_ev1_21", cardType: "MIFARE Ultralight EV1 (MF0UL21)", cardFamily: "MIFARE Ultralight",
            atqa: "0044", sak: "00", versionPrefix: "000403"),
        Case(kind: "ntag203", cardType: "NTAG203", cardFamily: "NTAG", atqa: "0044", sak: "00", ndefValue: "https://example.com/ntag203"),
        Case(
            kind: "ntag210", cardType: "NTAG210", cardFamily: "NTAG", atqa: "0044", sak: "00", versionPrefix: "000404",
            ndefValue: "https://example.com/ntag210"),
        Case(
            kind: "ntag212", cardType: "NTAG212", cardFamily: "NTAG", atqa: "0044", sak: "00", versionPrefix: "000404",
            ndefValue: "https://example.com/ntag212"),
        Case(
            kind: "ntag213", cardType: "NTAG213", cardFamily: "NTAG", atqa: "0044", sak: "00", versionPrefix: "000404",
            ndefValue: "https://example.com/ntag213"),
        Case(
            kind: "ntag215", cardType: "NTAG215", cardFamily: "NTAG", atqa: "0044", sak: "00", versionPrefix: "000404",
            ndefValue: "https://example.com/ntag215"),
        Case(
            kind: "ntag216", cardType: "NTAG216", cardFamily: "NTAG", atqa: "0044", sak: "00", versionPrefix: "000404",
            ndefValue: "https://example.com/ntag216"),
        Case(kind: "classic_1k", cardType: "MIFARE Classic 1K", cardFamily: "MIFARE Classic", atqa: "0004", sak: "08"),
        Case(kind: "classic_4k", cardType: "MIFARE Classic 4K", cardFamily: "MIFARE Classic", atqa: "0002", sak: "18"),
        Case(
            kind: "type4", cardType: "NFC Forum Type 4 Tag", cardFamily: "NFC Forum Type 4", atqa: "0044", sak: "20",
            ndefValue: "https://example.com/type4"),
        Case(kind: "felica_lite_s", cardType: "FeliCa Lite-S", cardFamily: "FeliCa", ndefValue: "Hello from felica_lite_s"),
    ]

    /// A scenario with one tag of `kind`, in the field from the start, with an NDEF record where
    /// the type can hold one as it comes from the factory.
    static func scenario(kind: String, id: String = "tag") -> String {
        let ndef =
            switch kind {
            case "ntag203", "ntag210", "ntag212", "ntag213", "ntag215", "ntag216", "type4":
                ", ndef: [{uri: 'https://example.com/\(kind)'}]"
            case "felica_lite_s": ", ndef: [{text: 'Hello from \(kind)'}]"
            default: ""
            }
        return """
            tags:
              - {id: \(id), type: \(kind)\(ndef)}
            timeline: [{at: 0, place: \(id)}]
            """
    }

    @Test(arguments: cases) func scanIdentifiesEveryTagTypeAndReadsItsNDEF(_ expected: Case) throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario(kind: expected.kind))
        defer { simulator.stop() }
        let result = try runNFCBridge(["scan", "--device", simulator.connstring, "--once", "--json", "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n")
        #expect(lines.count == 1, "\(result.out)")
        let report = try #require(lines.first.flatMap(jsonObject), "\(result.out)")
        let uid = try #require(try simulator.control(["cmd": "list"])["tags"] as? [[String: Any]]).first?["uid"] as? String
        #expect(report["uid"] as? String == uid)
        #expect(report["cardType"] as? String == expected.cardType)
        #expect(report["cardFamily"] as? String == expected.cardFamily)
        #expect(report["atqa"] as? String == expected.atqa)
        #expect(report["sak"] as? String == expected.sak)
        if let prefix = expected.versionPrefix {
            #expect((report["version"] as? String)?.hasPrefix(prefix) == true, "\(report)")
        } else {
            #expect(report["version"] == nil, "\(report)")
        }
        if expected.kind == "type4" { #expect(report["ats"] as? String != nil) }
        if expected.kind == "felica_lite_s" {
            #expect(report["systemCode"] as? String == "88B4")
            #expect(report["pmm"] as? String != nil)
        }
        if let value = expected.ndefValue {
            let ndef = try #require(report["ndef"] as? [String: Any], "\(report)")
            let record = try #require((ndef["records"] as? [[String: Any]])?.first, "\(ndef)")
            #expect(record["uri"] as? String == value || record["text"] as? String == value, "\(record)")
            #expect((ndef["hex"] as? String)?.isEmpty == false)
        }
    }

    @Test func theTextLineSummarisesTheTag() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario(kind: "ntag215"))
        defer { simulator.stop() }
        let result = try runNFCBridge(["scan", "--device", simulator.connstring, "--once", "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("  NTAG215  ATQA 0044 SAK 00  NDEF 1 record: URI https://example.com/ntag215\n"), "\(result.out)")
    }

    @Test func aReadProtectedNTAGIsReportedFromItsReadablePages() throws {
        let simulator = try SimulatorProcess(
            scenario: """
                tags:
                  - {id: locked, type: ntag213, uid: 04112233445566, password: 11223344, auth0: 16, read_protected: true,
                     ndef: [{uri: 'https://example.com/locked'}]}
                timeline: [{at: 0, place: locked}]
                """)
        defer { simulator.stop() }
        let result = try runNFCBridge(["scan", "--device", simulator.connstring, "--once", "--json", "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)")
        let report = try #require(jsonObject(result.out.trimmingCharacters(in: .newlines)), "\(result.out)")
        #expect(report["cardType"] as? String == "NTAG213")
        #expect(report["uid"] as? String == "04112233445566")
        // The message lies in pages 4–15, below AUTH0.
        let records = (report["ndef"] as? [String: Any])?["records"] as? [[String: Any]]
        #expect(records?.first?["uri"] as? String == "https://example.com/locked", "\(report)")
    }

    @Test func tagsInSequenceAreEachReportedOncePerVisit() throws {
        let simulator = try SimulatorProcess(
            scenario: """
                tags:
                  - {id: first, type: ntag215, uid: 04A1B2C3D4E5F6}
                  - {id: second, type: classic_1k, uid: DEADBEEF}
                """)
        defer { simulator.stop() }
        let scan = try startNFCBridge(["scan", "--device", simulator.connstring, "--json", "--timeout", "120"])
        defer { scan.terminate() }

        try simulator.place("first")
        #expect(scan.waitForLines(containing: "04A1B2C3D4E5F6", count: 1), "\(scan.output)\(scan.errorOutput)")
        // While it stays, the scan only checks its presence (READ 00, InDataExchange): no second report.
        let exchanges = try simulator.commandCount("40")
        try simulator.waitForCommand("40", count: exchanges + 10)
        #expect(scan.lines(containing: "04A1B2C3D4E5F6") == 1, "\(scan.output)")

        try simulator.remove("first")
        try simulator.place("second")
        #expect(scan.waitForLines(containing: "DEADBEEF", count: 1), "\(scan.output)\(scan.errorOutput)")
        try simulator.remove("second")
        try simulator.place("first")
        #expect(scan.waitForLines(containing: "04A1B2C3D4E5F6", count: 2), "\(scan.output)\(scan.errorOutput)")

        scan.interrupt()
        #expect(scan.waitForExit() == 0, "\(scan.errorOutput)")
        let reports = scan.output.split(separator: "\n").compactMap(jsonObject)
        #expect(reports.map { $0["uid"] as? String } == ["04A1B2C3D4E5F6", "DEADBEEF", "04A1B2C3D4E5F6"])
        #expect(reports.map { $0["cardType"] as? String } == ["NTAG215", "MIFARE Classic 1K", "NTAG215"])
    }

    @Test func noTagBeforeTheTimeoutExitsThree() throws {
        let empty = try SimulatorProcess()
        defer { empty.stop() }
        let result = try runNFCBridge(["scan", "--device", empty.connstring, "--once", "--timeout", "0.5"])
        #expect(result.status == 3)
        #expect(result.out.isEmpty)
        #expect(result.err.contains(#""code":"no_tag""#), "\(result.err)")
        #expect(result.err.contains(empty.connstring), "\(result.err)")
    }

    @Test func anUnreachableDeviceExitsTwoAndNamesTheConnstring() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-reader-\(UUID().uuidString)").path
        for command in [["scan", "--once"], ["dump"], ["readers", "--probe"]] {
            let arguments = command.first == "readers" ? command : command + ["--device", "pn532_uart:\(path)", "--timeout", "1"]
            let result = try runProcess(
                Binaries.path("nfcbridge"), arguments,
                environment: ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_DEVICE": "pn532_uart:\(path)"])
            #expect(result.status == 2, "\(command): \(result.err)")
            #expect(result.err.contains(#""code":"reader_unavailable""#), "\(command): \(result.err)")
            #expect(result.err.contains("pn532_uart:\(path)"), "\(command): \(result.err)")
        }
    }

    @Test func readersListsTheSimulatorFromTheEnvironmentAndProbesIt() throws {
        let simulator = try SimulatorProcess()
        defer { simulator.stop() }
        let environment = ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_DEVICE": simulator.connstring]
        let plain = try runProcess(Binaries.path("nfcbridge"), ["readers"], environment: environment)
        #expect(plain.status == 0, "\(plain.err)")
        #expect(plain.out == simulator.connstring + "\n")
        let probed = try runProcess(Binaries.path("nfcbridge"), ["readers", "--probe", "--json"], environment: environment)
        #expect(probed.status == 0, "\(probed.err)")
        let line = try #require(jsonObject(probed.out.trimmingCharacters(in: .newlines)), "\(probed.out)")
        #expect(line["connstring"] as? String == simulator.connstring)
        #expect(line["firmware"] as? String == "PN532 v1.6")
    }

    @Test func scanUsesLibnfcsDefaultDeviceWithoutDevice() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario(kind: "ntag213"))
        defer { simulator.stop() }
        let result = try runProcess(
            Binaries.path("nfcbridge"), ["scan", "--once", "--json", "--timeout", "20"],
            environment: simulator.libnfcEnvironment)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains(#""cardType":"NTAG213""#), "\(result.out)")
    }
}
