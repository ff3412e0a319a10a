import Foundation
import NFCCore
import Testing
import TestSupport

/// One reader the simulator can be (`--pcsc-reader`) and the name pcscd gives it: the ACS readers under
/// their USB product names (the agent's table matches those), the part 3 readers under a name no row
/// knows (the agent finds their profile from their answers).
struct SimulatedReader: Sendable, CustomTestStringConvertible {
    let model: String
    let name: String
    /// The profile `readers --json` and the scan should show.
    let profile: String
    /// The reader reads ISO 15693 cards.
    let readsISO15693: Bool
    /// GET_VERSION reaches the tag (transparent session or Direct Transmit).
    let sendsRawFrames: Bool

    var testDescription: String { model }

    /// The readers that read ISO 15693 cards.
    static var iso15693Readers: [SimulatedReader] { all.filter { $0.readsISO15693 } }

    static let all = [
        SimulatedReader(model: "part3", name: "NFCBridge vpcd", profile: "pcsc-part3", readsISO15693: true, sendsRawFrames: false),
        SimulatedReader(model: "part3-transparent", name: "NFCBridge vpcd", profile: "pcsc-part3-transparent",
                        readsISO15693: true, sendsRawFrames: true),
        SimulatedReader(model: "acr122u", name: "ACS ACR122U PICC Interface", profile: "acr122u", readsISO15693: false,
                        sendsRawFrames: true),
        SimulatedReader(model: "acr1252u", name: "ACS ACR1252 1S CL Reader PICC", profile: "acr1252u", readsISO15693: false,
                        sendsRawFrames: false),
        SimulatedReader(model: "acr1552u", name: "ACS ACR1552 1S CL Reader PICC", profile: "acr1552u", readsISO15693: true,
                        sendsRawFrames: true),
    ]
}

extension PCSCCard {
    /// pcscd naming its reader as `reader` names it, and the simulator answering as that model.
    init(scenario: String, reader: SimulatedReader) throws {
        daemon = try PCSCDaemon(readerName: reader.name)
        card = try VPCDCardProcess(port: daemon.port, scenario: scenario, arguments: ["--pcsc-reader", reader.model])
    }
}

extension PCSCEndToEndTests {
    /// `write --uri` through the reader succeeds and `scan` reads the URI back.
    func expectWrittenAndReadBack(_ uri: String, on pcsc: PCSCCard, _ reader: SimulatedReader,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try runNFCBridge(["write", "--device", pcsc.connstring, "--uri", uri, "--timeout", "20"])
        #expect(written.status == 0, "\(reader.model): \(written.err)", sourceLocation: sourceLocation)
        let again = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        let back = (try pcscJSON(again.out)["ndef"] as? [String: Any])?["records"] as? [[String: Any]]
        #expect(back?.first?["uri"] as? String == uri, "\(reader.model): \(again.out)", sourceLocation: sourceLocation)
    }

    /// Every reader profile: an NTAG215 is scanned with its type (the exact product where the reader can
    /// send GET_VERSION — the ACR122U through its Direct Transmit escape — else from the CC, with
    /// `notRefined` saying GET_VERSION was not sent), and NDEF written through the reader is read back
    /// and in the tag's memory. `readers --probe --json` shows the profile the name gives.
    @Test(arguments: SimulatedReader.all) func ntag215ThroughEachReaderProfile(_ reader: SimulatedReader) throws {
        let pcsc = try PCSCCard(scenario: pcscScenario(kind: "ntag215"), reader: reader)
        defer { pcsc.stop() }
        let scanned = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        #expect(scanned.status == 0, "\(reader.model): \(scanned.err)\npcscd: \(pcsc.daemon.log.suffix(2000))")
        let report = try pcscJSON(scanned.out)
        #expect(report["cardType"] as? String == "NTAG215", "\(reader.model): \(scanned.out)")
        let records = (report["ndef"] as? [String: Any])?["records"] as? [[String: Any]]
        #expect(records?.first?["uri"] as? String == "https://example.com/ntag215", "\(reader.model): \(scanned.out)")
        let gaps = report["notRefined"] as? [[String: Any]]
        if reader.sendsRawFrames {
            #expect(report["product"] as? String == "NTAG215", "\(reader.model): \(scanned.out)")
            #expect((report["version"] as? String)?.hasPrefix("0004040201") == true, "\(reader.model): \(scanned.out)")
            #expect(gaps == nil, "\(reader.model): \(scanned.out)")
        } else {
            #expect(report["version"] == nil, "\(reader.model): \(scanned.out)")
            #expect(gaps?.first?["step"] as? String == "GET_VERSION (60h)", "\(reader.model): \(scanned.out)")
            #expect((gaps?.first?["reason"] as? String)?.contains("496 bytes") == true, "\(reader.model): \(scanned.out)")
        }

        let uri = "https://example.org/\(reader.model)"
        try expectWrittenAndReadBack(uri, on: pcsc, reader)
        let memory = try pcsc.card.dump("tag")
        #expect("\(memory)".uppercased().contains(Array(uri.dropFirst("https://".count).utf8).hexString), "\(memory)")
    }

    /// Every reader profile: a Classic 1K is scanned, formatted for NDEF (LOAD KEYS + GENERAL
    /// AUTHENTICATE, UPDATE BINARY) and takes an NDEF message that is read back.
    @Test(arguments: SimulatedReader.all) func classic1KThroughEachReaderProfile(_ reader: SimulatedReader) throws {
        let pcsc = try PCSCCard(scenario: pcscScenario(kind: "classic_1k"), reader: reader)
        defer { pcsc.stop() }
        let scanned = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        #expect(scanned.status == 0, "\(reader.model): \(scanned.err)")
        #expect(try pcscJSON(scanned.out)["cardType"] as? String == "MIFARE Classic 1K", "\(reader.model): \(scanned.out)")
        let format = try runNFCBridge(["format", "--device", pcsc.connstring, "--timeout", "20"])
        #expect(format.status == 0, "\(reader.model): \(format.err)")
        let uri = "https://example.org/classic-\(reader.model)"
        try expectWrittenAndReadBack(uri, on: pcsc, reader)
    }

    /// Every reader profile that reads ISO 15693: an ICODE SLIX is scanned by its UID (typed from its IC
    /// manufacturer where GET SYSTEM INFORMATION cannot be sent, with `notRefined` saying so), its NDEF read
    /// with READ BINARY and written with UPDATE BINARY (block number in P1 P2), sized by its CC.
    @Test(arguments: SimulatedReader.iso15693Readers) func iso15693ThroughEachReaderProfile(_ reader: SimulatedReader) throws {
        let pcsc = try PCSCCard(scenario: pcscScenario(kind: "icode_slix", extra: ", ndef: [{uri: 'https://example.com/slix'}]"),
                                reader: reader)
        defer { pcsc.stop() }
        let scanned = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        #expect(scanned.status == 0, "\(reader.model): \(scanned.err)")
        let report = try pcscJSON(scanned.out)
        #expect((report["cardType"] as? String)?.contains("ISO 15693") == true, "\(reader.model): \(scanned.out)")
        let uid = try #require(try pcsc.card.control(["cmd": "list"])["tags"] as? [[String: Any]]).first?["uid"] as? String
        #expect(report["uid"] as? String == uid, "\(reader.model): \(scanned.out)")
        let records = (report["ndef"] as? [String: Any])?["records"] as? [[String: Any]]
        #expect(records?.first?["uri"] as? String == "https://example.com/slix", "\(reader.model): \(scanned.out)")
        let gaps = report["notRefined"] as? [[String: Any]]
        #expect((gaps?.first?["step"] as? String == "GET SYSTEM INFORMATION (2Bh)") == !reader.sendsRawFrames, "\(reader.model): \(scanned.out)")

        let uri = "https://example.org/slix-\(reader.model)"
        try expectWrittenAndReadBack(uri, on: pcsc, reader)
    }

    /// The ACR122U's Direct Transmit carried GET_VERSION: the simulator counted InCommunicateThru 60h
    /// as the tag's command, and `readers --probe --json` names the profile and its capabilities.
    @Test func acr122uRefinesThroughItsEscapeAndShowsItsProfile() throws {
        let reader = try #require(SimulatedReader.all.first { $0.model == "acr122u" })
        let pcsc = try PCSCCard(scenario: pcscScenario(kind: "ntag215"), reader: reader)
        defer { pcsc.stop() }
        let probed = try runNFCBridge(["readers", "--probe", "--json"])
        #expect(probed.status == 0, "\(probed.err)")
        let line = try #require(probed.out.split(separator: "\n").first { $0.contains(pcsc.daemon.readerName) }, "\(probed.out)")
        let json = try pcscJSON(String(line))
        #expect(json["profile"] as? String == "acr122u", "\(line)")
        let capabilities = json["capabilities"] as? [String] ?? []
        #expect(capabilities.contains("direct_transmit") && capabilities.contains("led_buzzer"), "\(line)")
        #expect(!capabilities.contains("transparent_session") && !capabilities.contains("iso15693"), "\(line)")

        let scanned = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        #expect(try pcscJSON(scanned.out)["product"] as? String == "NTAG215", "\(scanned.out)")
        let refused = try pcsc.card.control(["cmd": "list"])
        let commands = refused["commands"] as? [String: Any] ?? [:]
        // The vpcd card counts APDUs by INS: Direct Transmit is INS 00; no FF C2 was sent to this reader.
        #expect(commands["00"] != nil, "\(refused)")
        #expect(commands["C2"] == nil, "\(refused)")
    }

    /// A card that never answers (the simulator holds back every answer): `scan` ends at the 5 s deadline
    /// of SCardTransmit with `reader_unresponsive` and a message that says what happened and what to do,
    /// instead of waiting for ever (vpcd has no timeout of its own).
    @Test func aCardThatNeverAnswersStopsAtTheDeadline() throws {
        let pcsc = try PCSCCard(scenario: pcscScenario(kind: "ntag215"))
        defer { pcsc.stop() }
        let armed = try pcsc.card.control(["cmd": "fault", "fault": "never_answer"])
        #expect(armed["ok"] as? Bool == true, "\(armed)")
        let result = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        #expect(result.status == 2, "\(result.status) \(result.out) \(result.err)")
        #expect(result.err.contains("reader_unresponsive"), "\(result.err)")
        #expect(result.err.contains("did not answer within 5.0 s") && result.err.contains("present it again"), "\(result.err)")
        #expect(try pcsc.card.control(["cmd": "reader"])["mute"] as? Bool == true)
    }
}
