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
        """
        tags:
          - \(tagDefinition(kind: kind, id: id))
        timeline: [{at: 0, place: \(id)}]
        """
    }

    /// One scenario tag (YAML flow mapping) of `kind`, with the NDEF record ``Case/ndefValue`` expects.
    static func tagDefinition(kind: String, id: String) -> String {
        let ndef =
            switch kind {
            case "ntag203", "ntag210", "ntag212", "ntag213", "ntag215", "ntag216", "type4":
                ", ndef: [{uri: 'https://example.com/\(kind)'}]"
            case "felica_lite_s": ", ndef: [{text: 'Hello from \(kind)'}]"
            default: ""
            }
        return "{id: \(id), type: \(kind)\(ndef)}"
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

    /// AUTH0 16: the message in pages 4–15 lies below the protection and is read. AUTH0 4: it lies behind
    /// it — the tag is reported with the message unreadable, and the scan succeeds.
    @Test(arguments: [16, 4]) func aReadProtectedNTAGIsReportedWithWhatItsReadablePagesHold(_ auth0: Int) throws {
        let simulator = try SimulatorProcess(
            scenario: """
                tags:
                  - {id: locked, type: ntag213, uid: 04112233445566, password: 11223344, auth0: \(auth0), read_protected: true,
                     ndef: [{uri: 'https://example.com/locked'}]}
                timeline: [{at: 0, place: locked}]
                """)
        defer { simulator.stop() }
        let result = try runNFCBridge(["scan", "--device", simulator.connstring, "--once", "--json", "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)")
        let report = try #require(jsonObject(result.out.trimmingCharacters(in: .newlines)), "\(result.out)")
        #expect(report["cardType"] as? String == "NTAG213")
        #expect(report["uid"] as? String == "04112233445566")
        if auth0 == 16 {
            let records = (report["ndef"] as? [String: Any])?["records"] as? [[String: Any]]
            #expect(records?.first?["uri"] as? String == "https://example.com/locked", "\(report)")
            #expect(report["ndefStatus"] == nil)
        } else {
            #expect(report["ndef"] == nil)
            #expect(report["ndefStatus"] as? String == "unreadable")
            #expect((report["ndefError"] as? [String: Any])?["code"] as? String == "auth_required", "\(report)")
        }
    }

    /// AN10787 MAD CRC-8 (polynomial 1Dh, preset C7h), for the scenario below.
    private static func madCRC(_ bytes: [UInt8]) -> UInt8 {
        bytes.reduce(UInt8(0xC7)) { crc, byte in
            (0..<8).reduce(crc ^ byte) { value, _ in value & 0x80 != 0 ? (value << 1) ^ 0x1D : value << 1 }
        }
    }

    @Test func aMIFAREClassicFormattedForNDEFIsReadThroughItsMAD() throws {
        // MAD1 naming sectors 1 and 2 NDEF (03 E1), the URI record's TLV in sector 1 and on into 2.
        let uri = "https://example.com/a-classic-card-with-a-longer-uri-that-needs-two-sectors"
        let message = try NDEFMessage(records: [NDEFRecord.uri(uri)]).bytes
        var area = [0x03, UInt8(message.count)] + message + [0xFE]
        area += [UInt8](repeating: 0, count: 96 - area.count)
        let directory: [UInt8] = [0x01, 0x03, 0xE1, 0x03, 0xE1] + [UInt8](repeating: 0, count: 26)
        let mad = [Self.madCRC(directory)] + directory
        let simulator = try SimulatorProcess(
            scenario: """
                tags:
                  - id: badge
                    type: classic_1k
                    uid: DEADBEEF
                    blocks:
                      1: \(mad.hexString)
                      4: \(Array(area[0..<48]).hexString)
                      8: \(Array(area[48..<96]).hexString)
                    keys:
                      - {sector: 0, a: A0A1A2A3A4A5, b: B0B1B2B3B4B5, access: 787788C1}
                      - {sector: 1, a: D3F7D3F7D3F7, access: 7F078840}
                      - {sector: 2, a: D3F7D3F7D3F7, access: 7F078840}
                timeline: [{at: 0, place: badge}]
                """)
        defer { simulator.stop() }
        let result = try runNFCBridge(["scan", "--device", simulator.connstring, "--once", "--json", "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)")
        let report = try #require(jsonObject(result.out.trimmingCharacters(in: .newlines)), "\(result.out)")
        #expect(report["cardType"] as? String == "MIFARE Classic 1K")
        let record = ((report["ndef"] as? [String: Any])?["records"] as? [[String: Any]])?.first
        #expect(record?["uri"] as? String == uri, "\(report)")
        // InDataExchange frames: identification, then 3 AUTH + 8 READ (MAD: 3, 1, 2; NDEF: 4, 5, 6, 8, 9)
        // — a dump of the 16 sectors would need more than 80.
        let exchanges = try simulator.commandCount("40")
        #expect(exchanges >= 11 && exchanges < 20, "\(exchanges) InDataExchange frames")
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
