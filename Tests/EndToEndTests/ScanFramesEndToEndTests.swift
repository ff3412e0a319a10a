import Foundation
import Testing
import TestSupport

/// `nfcbridge scan --once` at its floor (issue 25), counted on the chip: the built CLI, real libnfc and
/// `nfcbridge-sim`, which counts every PN532 command it receives. Per family: one
/// `InListPassiveTarget` (of the right technology) once it is remembered from the run before (``PollHint``), and the
/// tag exchanges (`InDataExchange` 40h, `InCommunicateThru` 42h) of its minimal identification and NDEF
/// read. A probe added, an APDU sent twice or a poll of another technology first fails here.
@Suite(.serialized) struct ScanFramesEndToEndTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var kind: String
        var tag: String
        /// Tag exchanges of one scan, and what they are.
        var exchanges: Int
        var why: String
        /// `InListPassiveTarget`s: 1, and 2 where a refused step halts the tag and it is selected again.
        var selects = 1
        var testDescription: String { kind }
    }

    static let cases: [Case] = [
        Case(kind: "ntag215", tag: "{id: tag, type: ntag215, ndef: [{uri: 'https://example.com/frames'}]}", exchanges: 3,
             why: "GET_VERSION; READ 03 (CC and the first TLV pages); FAST_READ of the rest of the NDEF TLV"),
        Case(kind: "classic_1k", tag: "{id: tag, type: classic_1k}", exchanges: 1,
             why: "AUTH sector 0 with the MAD key (AN10787 §3.1), refused: no MAD, no NDEF; the refused AUTH halts the tag, "
                + "which is selected again", selects: 2),
        Case(kind: "type4", tag: "{id: tag, type: type4, ndef: [{uri: 'https://example.com/frames'}]}", exchanges: 7,
             why: "GET_VERSION (6E00); SELECT NDEF application, SELECT CC, READ CC; SELECT NDEF file, READ NLEN, READ message"),
        Case(kind: "type4_b", tag: "{id: tag, type: type4_b, ndef: [{uri: 'https://example.com/frames'}]}", exchanges: 7,
             why: "as type4, over ISO 14443-B"),
        Case(kind: "desfire_ev2", tag: "{id: tag, type: desfire_ev2, ndef: [{uri: 'https://example.com/frames'}]}", exchanges: 9,
             why: "GetVersion in its 3 frames; the Type 4 read's 6 APDUs"),
        Case(kind: "felica_lite_s", tag: "{id: tag, type: felica_lite_s, ndef: [{text: frames}]}", exchanges: 1,
             why: "one READ of blocks 90h (Lite-S), 00h (the attribute block) and 01h-02h (the NDEF blocks)"),
    ]

    /// The commands the chip received so far, by code.
    func commands(_ simulator: SimulatorProcess) throws -> [String: Int] {
        (try simulator.expectOK(["cmd": "list"])["commands"] as? [String: Int]) ?? [:]
    }

    @Test(arguments: cases) func aRepeatedScanPollsOnceAndSendsTheMinimalExchanges(_ expected: Case) throws {
        let simulator = try SimulatorProcess(scenario: "tags: [\(expected.tag)]\ntimeline: [{at: 0, place: tag}]\n")
        defer { simulator.stop() }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("nfcbridge-hint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let environment = ["LIBNFC_AUTO_SCAN": "false", "NFCBRIDGE_POLL_HINT": "on", "XDG_CACHE_HOME": cache.path]
        let arguments = ["scan", "--device", simulator.connstring, "--once", "--json", "--timeout", "20"]

        let first = try runProcess(Binaries.path("nfcbridge"), arguments, environment: environment)
        #expect(first.status == 0, "\(first.err)")
        let hint = try String(contentsOf: cache.appendingPathComponent("nfcbridge/last-technology"), encoding: .utf8)
        #expect(!hint.isEmpty)

        let before = try commands(simulator)
        let second = try runProcess(Binaries.path("nfcbridge"), arguments, environment: environment)
        #expect(second.status == 0, "\(second.err)")
        #expect(second.out == first.out)
        let after = try commands(simulator)
        func delta(_ code: String) -> Int { after[code, default: 0] - before[code, default: 0] }
        #expect(delta("4A") == expected.selects, "InListPassiveTarget ×\(delta("4A")) (hint \(hint))")
        #expect(delta("40") + delta("42") == expected.exchanges,
                "\(delta("40")) InDataExchange + \(delta("42")) InCommunicateThru; expected \(expected.why)")
    }
}
