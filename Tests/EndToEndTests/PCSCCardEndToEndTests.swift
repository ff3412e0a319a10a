import Foundation
import NFCCore
import Testing
import TestSupport

/// A virtual card behind the real pcscd: `nfcbridge-sim --vpcd` connected to the test's vpcd reader
/// (``PCSCCard``). In ``PCSCEndToEndTests`` (one serialized suite: one pcscd per machine).
struct PCSCCard {
    let daemon: PCSCDaemon
    let card: VPCDCardProcess

    /// pcscd with its vpcd reader, and the simulator as its card with `scenario` (`arguments`: e.g.
    /// `--pcsc-get-data-atqa-sak`, a reader that also answers ATQA and SAK).
    init(scenario: String, arguments: [String] = []) throws {
        daemon = try PCSCDaemon()
        card = try VPCDCardProcess(port: daemon.port, scenario: scenario, arguments: arguments)
    }

    /// `pcsc:<reader name>`.
    var connstring: String { "pcsc:\(daemon.readerName)" }

    func stop() {
        card.stop()
        daemon.stop()
    }
}

/// `nfcbridge run` on a PC/SC reader as the agent tests start it: an ``AgentRun`` on `pcsc:<reader>`
/// (its own broker, state folder and watcher) polling `modulations` (the default set when nil).
/// `body` gets it once `reader` is `ok` — where, and that message — with the agent's and pcscd's logs
/// in the failure when it never gets there; the run stops however `body` ends.
func withPCSCAgentRun<Result>(
    on daemon: PCSCDaemon, modulations: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation, _ body: (_ run: AgentRun, _ okAt: Int, _ ok: [String: Any]) async throws -> Result
) async throws -> Result {
    try await withAgentRun(.init(reader: .device("pcsc:\(daemon.readerName)"), modulations: modulations)) { run in
        let (okAt, ok, _) = await run.watcher.next("reader", sourceLocation: sourceLocation) { $0["state"] as? String == "ok" }
        #expect(!ok.isEmpty, "agent: \(run.agent.errorOutput.suffix(4000))\npcscd: \(daemon.log.suffix(3000))", sourceLocation: sourceLocation)
        return try await body(run, okAt, ok)
    }
}

/// One tag placed from the start.
func pcscScenario(kind: String, id: String = "tag", extra: String = "") -> String {
    """
    tags:
      - \(ScanCommandTests.tagDefinition(kind: kind, id: id).dropLast())\(extra)}
    timeline: [{at: 0, place: \(id)}]
    """
}

/// The JSON object of a command's standard output.
func pcscJSON(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
}

extension PCSCEndToEndTests {
    /// The tag kinds a PC/SC reader and a PN532 both reach, for the parity checks: ISO 14443-A, FeliCa
    /// (PMm and system code from a Polling through the transparent session) and ISO 14443-B (the ATQB
    /// fields from the ATR).
    static let parityKinds = [
        "ntag215", "ntag213", "ultralight_ev1_11", "classic_1k", "classic_4k", "classic_mini", "type4", "desfire_ev2",
        "felica_lite_s", "felica_lite", "felica_standard", "type4_b",
    ]

    /// What a parity tag carries beyond ``ScanCommandTests/tagDefinition(kind:id:)`` (which gives
    /// `type4_b` no NDEF message).
    static let parityExtras = ["type4_b": ", uid: 1A2B3C4D, ndef: [{uri: 'https://example.com/type4_b'}]"]

    /// `scan` through pcscd gives the same card type, product, UID and NDEF as `scan` through libnfc and
    /// the PN532 for the same scenario tag.
    @Test(arguments: parityKinds) func scanMatchesTheLibNFCPath(_ kind: String) throws {
        let scenario = pcscScenario(kind: kind, extra: Self.parityExtras[kind] ?? "")
        let pcsc = try PCSCCard(scenario: scenario)
        defer { pcsc.stop() }
        let pn532 = try SimulatorProcess(scenario: scenario)
        defer { pn532.stop() }
        let viaPCSC = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        let viaLibNFC = try runNFCBridge(["scan", "--device", pn532.connstring, "--once", "--json", "--timeout", "20"])
        // pcscd's log says why a reader is missing (seen once: "pcscd knows no reader").
        #expect(viaPCSC.status == 0, "\(viaPCSC.err)\npcscd: \(pcsc.daemon.log)")
        #expect(viaLibNFC.status == 0, "\(viaLibNFC.err)")
        let (a, b) = (try pcscJSON(viaPCSC.out), try pcscJSON(viaLibNFC.out))
        for key in ["cardType", "cardFamily", "product", "uid", "pmm", "systemCode", "applicationData", "protocolInfo"] {
            #expect(a[key] as? String == b[key] as? String, "\(kind) \(key): pcsc \(a) libnfc \(b)")
        }
        #expect(a["cardType"] != nil)
        if kind == "felica_lite_s" { #expect(a["cardType"] as? String == "FeliCa Lite-S" && a["pmm"] != nil, "\(a)") }
        if kind == "type4_b" { #expect(a["cardType"] as? String == "NFC Forum Type 4 Tag" && a["uid"] as? String == "1A2B3C4D", "\(a)") }
        #expect((a["ndef"] as? [String: Any])?["hex"] as? String == (b["ndef"] as? [String: Any])?["hex"] as? String, "\(kind)")
    }

    /// `dump` through pcscd gives the same JSON dump as through libnfc: NTAG215 (135 pages), Classic 1K
    /// with its keys (sector 1 under its own keys), Type 4, DESFire EV2, FeliCa Lite-S, the type B Type 4
    /// card. The reader here also answers ATQA and SAK (`FF CA 02` / `03`), so even those fields match.
    @Test(arguments: ["ntag215", "classic_1k", "type4", "desfire_ev2", "felica_lite_s", "type4_b"])
    func dumpMatchesTheLibNFCPath(_ kind: String) throws {
        let keys = kind == "classic_1k" ? ", keys: [{sector: 1, a: A0A1A2A3A4A5, b: B0B1B2B3B4B5}], blocks: {4: 00112233445566778899AABBCCDDEEFF}" : ""
        let scenario = pcscScenario(kind: kind, extra: keys + (Self.parityExtras[kind] ?? ""))
        let pcsc = try PCSCCard(scenario: scenario, arguments: ["--pcsc-get-data-atqa-sak"])
        defer { pcsc.stop() }
        let pn532 = try SimulatorProcess(scenario: scenario)
        defer { pn532.stop() }
        let viaPCSC = try runNFCBridge(["dump", "--device", pcsc.connstring, "--compact", "--timeout", "20"])
        let viaLibNFC = try runNFCBridge(["dump", "--device", pn532.connstring, "--compact", "--timeout", "20"])
        #expect(viaPCSC.status == 0, "\(viaPCSC.err)\npcscd: \(pcsc.daemon.log)")
        #expect(viaLibNFC.status == 0, "\(viaLibNFC.err)")
        // DESFire goes ISO 7816-4 wrapped through PC/SC (`carriesNativeDESFireFrames`), natively through a
        // PN532: the one fact that differs.
        let pcscDump = viaPCSC.out.replacingOccurrences(of: #""value":"ISO 7816 wrapped""#, with: #""value":"Native""#)
        #expect(pcscDump == viaLibNFC.out, "\(kind):\npcsc   \(viaPCSC.out)\nlibnfc \(viaLibNFC.out)")
        if kind == "desfire_ev2" { #expect(viaPCSC.out.contains(#""value":"ISO 7816 wrapped""#), "\(viaPCSC.out)") }
        if kind == "classic_1k" { #expect(viaPCSC.out.contains("00112233445566778899AABBCCDDEEFF"), "\(viaPCSC.out)") }
        if kind == "ntag215" { #expect(viaPCSC.out.contains("135"), "\(viaPCSC.out)") }
        if kind == "type4_b" { #expect(viaPCSC.out.contains(#""protocolInfo":"008175""#), "\(viaPCSC.out)") }
    }

    /// NDEF written through pcscd is read back through pcscd, and is in the tag's memory (the
    /// simulator's `dump`): Type 2, Type 4 over A and over B, FeliCa Lite-S (Type 3).
    @Test(arguments: ["ntag215", "type4", "type4_b", "felica_lite_s"]) func ndefWriteAndReadBack(_ kind: String) throws {
        let pcsc = try PCSCCard(scenario: pcscScenario(kind: kind))
        defer { pcsc.stop() }
        let uri = "https://example.org/pcsc-\(kind)"
        let written = try runNFCBridge(["write", "--device", pcsc.connstring, "--uri", uri, "--timeout", "20"])
        #expect(written.status == 0, "\(written.err)")
        let scanned = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        #expect(scanned.status == 0, "\(scanned.err)")
        let records = try #require((try pcscJSON(scanned.out)["ndef"] as? [String: Any])?["records"] as? [[String: Any]])
        #expect(records.first?["uri"] as? String == uri, "\(scanned.out)")
        let memory = try pcsc.card.dump("tag")
        #expect("\(memory)".uppercased().contains(Array(uri.dropFirst("https://".count).utf8).hexString), "\(memory)")
    }

    /// `nfcbridge run` on the PC/SC reader: a placed tag is `scanned`, its removal (the card program
    /// disconnects from vpcd) is `removed`, and placed again it is scanned again. Then pcscd stops with the
    /// tag present (`reader` absent) and starts again: the tag is scanned once more.
    @Test func theAgentPublishesScannedAndRemovedAndSurvivesPCSCD() async throws {
        let pcsc = try PCSCCard(scenario: """
            tags:
              - {id: poster, type: ntag215, uid: 04A1B2C3D4E5F6, ndef: [{uri: 'https://example.com/pcsc'}]}
            """)
        defer { pcsc.stop() }
        try await withPCSCAgentRun(on: pcsc.daemon) { run, okAt, _ in
            let watcher = run.watcher

            try pcsc.card.place("poster")
            let (scannedAt, scanned, _) = await watcher.next("event/scanned", after: okAt) { $0["uid"] as? String == "04A1B2C3D4E5F6" }
            #expect("\(scanned)".contains("NTAG215"), "\(scanned)")
            try pcsc.card.remove("poster")
            let (removedAt, _, _) = await watcher.next("event/removed", after: scannedAt) { $0["uid"] as? String == "04A1B2C3D4E5F6" }
            try pcsc.card.place("poster")
            let (againAt, _, _) = await watcher.next("event/scanned", after: removedAt) { $0["uid"] as? String == "04A1B2C3D4E5F6" }

            pcsc.daemon.stop()
            let (goneAt, _, _) = await watcher.next("reader", after: againAt) { $0["state"] as? String == "absent" }
            try pcsc.daemon.start()
            let (backAt, _, _) = await watcher.next("reader", after: goneAt) { $0["state"] as? String == "ok" }
            await watcher.next("event/scanned", after: backAt) { $0["uid"] as? String == "04A1B2C3D4E5F6" }
            run.agent.expectCleanStop()
        }
    }
}

extension PCSCEndToEndTests {
    /// ISO 15693 through pcscd, which libnfc cannot reach: `scan` names the product NFCCore's family
    /// finds for the in-process tag, `dump` reads every block (the ST25DV64K's 2048 through the EXTENDED
    /// commands, the ICODE SLIX's 28), and NDEF written as Type 5 is read back and in the tag's memory.
    @Test(arguments: [("st25dv64k", "ST25DV64K", 2048), ("icode_slix", "ICODE SLIX", 28)])
    func vicinityTagsScanDumpAndTakeNDEF(_ kind: String, _ product: String, _ blocks: Int) throws {
        let pcsc = try PCSCCard(scenario: pcscScenario(kind: kind))
        defer { pcsc.stop() }
        let scanned = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        #expect(scanned.status == 0, "\(scanned.err)")
        let report = try pcscJSON(scanned.out)
        #expect(report["product"] as? String == product, "\(scanned.out)")
        #expect((report["cardType"] as? String)?.contains("ISO 15693") == true, "\(scanned.out)")

        // 2048 blocks are 2048 exchanges through pcscd and vpcd: the process gets room beyond runNFCBridge's 120 s.
        let dumped = try runProcess(
            Binaries.path("nfcbridge"), ["dump", "--device", pcsc.connstring, "--compact", "--timeout", "60"],
            environment: ["LIBNFC_AUTO_SCAN": "false"], timeout: .seconds(900))
        #expect(dumped.status == 0, "\(dumped.err)")
        let dump = try pcscJSON(dumped.out)
        #expect((dump["blocks"] as? [Any])?.count == blocks, "\(dumped.out.prefix(600))")

        let uri = "https://example.org/pcsc-\(kind)"
        let written = try runNFCBridge(["write", "--device", pcsc.connstring, "--uri", uri, "--timeout", "20"])
        #expect(written.status == 0, "\(written.err)")
        let again = try runNFCBridge(["scan", "--device", pcsc.connstring, "--once", "--json", "--timeout", "20"])
        let records = (try pcscJSON(again.out)["ndef"] as? [String: Any])?["records"] as? [[String: Any]]
        #expect(records?.first?["uri"] as? String == uri, "\(again.out)")
        let memory = try pcsc.card.dump("tag")
        #expect("\(memory)".uppercased().contains(Array(uri.dropFirst("https://".count).utf8).hexString), "\(memory)")
    }
}

extension PCSCEndToEndTests {
    /// `nfcbridge run` on the PC/SC reader polling `[iso14443a, iso14443b, felica212]`, as
    /// docs/getting-started.md tells: a FeliCa Lite-S is `scanned` by its IDm with its type, removed, and
    /// a type B Type 4 card is `scanned` by its PUPI with its NDEF.
    @Test func theAgentScansFeliCaAndTypeBCardsThroughPCSC() async throws {
        let pcsc = try PCSCCard(scenario: """
            tags:
              - {id: lite, type: felica_lite_s, idm: 012E3D23BA075C45, ndef: [{text: 'Hello over PC/SC'}]}
              - {id: bee, type: type4_b, uid: 1A2B3C4D, ndef: [{uri: 'https://example.com/pcsc-b'}]}
            """)
        defer { pcsc.stop() }
        try await withPCSCAgentRun(on: pcsc.daemon, modulations: "[iso14443a, iso14443b, felica212]") { run, okAt, _ in
            let watcher = run.watcher

            try pcsc.card.place("lite")
            let (liteAt, lite, _) = await watcher.next("event/scanned", after: okAt) { $0["uid"] as? String == "012E3D23BA075C45" }
            #expect(lite["cardType"] as? String == "FeliCa Lite-S", "\(lite)")
            #expect("\(lite)".contains("Hello over PC/SC"), "\(lite)")
            try pcsc.card.remove("lite")
            let (goneAt, _, _) = await watcher.next("event/removed", after: liteAt) { $0["uid"] as? String == "012E3D23BA075C45" }
            try pcsc.card.place("bee")
            let (_, bee, _) = await watcher.next("event/scanned", after: goneAt) { $0["uid"] as? String == "1A2B3C4D" }
            #expect(bee["cardType"] as? String == "NFC Forum Type 4 Tag", "\(bee)")
            #expect("\(bee)".contains("https://example.com/pcsc-b"), "\(bee)")
            run.agent.expectCleanStop()
        }
    }
}
