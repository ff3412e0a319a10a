import Foundation
import NFCCore
import Testing
import TestSupport

/// The CLI's bytes against the golden files recorded before the family-registry refactor (issue 8):
/// `export` in every format and `import` of the NFCCore fixtures must print exactly the sections
/// `Tests/NFCCoreTests/Fixtures/golden/import-*.txt` hold (GoldenOutputTests renders them in-process),
/// and `scan --json` / `dump` through libnfc and `nfcbridge-sim` exactly `golden/cli-*.txt`.
/// Re-record the latter with `NFCBRIDGE_RECORD_GOLDEN=<that directory>` (the tests then fail).
@Suite(.serialized) struct GoldenCLITests {
    static let fixtures = Binaries.packageRoot.appendingPathComponent("Tests/NFCCoreTests/Fixtures")
    static let golden = fixtures.appendingPathComponent("golden")

    /// The sections of a golden file: name → bytes (binary sections decoded from their hex lines).
    static func sections(_ name: String) throws -> [String: [UInt8]] {
        let text = try String(contentsOf: golden.appendingPathComponent(name + ".txt"), encoding: .utf8)
        var sections: [String: [UInt8]] = [:]
        var rest = Substring(text)
        while rest.hasPrefix("## ") {
            guard let headerEnd = rest.firstIndex(of: "\n") else { break }
            let header = rest[rest.index(rest.startIndex, offsetBy: 3)..<headerEnd]
            rest = rest[rest.index(after: headerEnd)...]
            guard header.hasSuffix(" bytes)"), let open = header.lastIndex(of: "("),
                let count = Int(header[header.index(after: open)...].dropLast(7))
            else { continue }
            let sectionName = String(header[..<open].dropLast())
            let binary = ["pm3", "mfd", "bin"].contains(sectionName)
            if binary {
                let lines = (count + 31) / 32
                var bytes: [UInt8] = []
                for _ in 0..<lines {
                    guard let end = rest.firstIndex(of: "\n") else { break }
                    bytes += [UInt8](hex: String(rest[..<end])) ?? []
                    rest = rest[rest.index(after: end)...]
                }
                sections[sectionName] = bytes
            } else {
                let utf8 = Array(rest.utf8)
                sections[sectionName] = Array(utf8.prefix(count))
                rest = Substring(String(decoding: utf8.dropFirst(count + 1), as: UTF8.self))
            }
        }
        return sections
    }

    static let importFixtures = [
        "type2/ntag215.input.json", "type2/ntag215.nfc", "type2/ul21.pm3.bin", "type2/ulc.mfd", "type2/amiibo-572.bin",
        "type2/legacy-v2-ul11.nfc", "classic/1k.nfc", "classic/4k.mfd", "classic/legacy-v3-1k.nfc", "classic/mini.input.json",
        "interop/case1.compact.json",
    ]

    @Test(arguments: importFixtures) func exportAndImportPrintTheGoldenBytes(_ path: String) throws {
        let expected = try Self.sections("import-" + path.replacingOccurrences(of: "/", with: "-"))
        let file = Self.fixtures.appendingPathComponent(path).path
        for format in ["flipper", "pm3", "mfd", "json", "hex", "bin"] {
            let result = try runNFCBridge(["export", "--from", file, "--format", format])
            if let want = expected[format] {
                #expect(result.status == 0, "export --format \(format) of \(path): \(result.err)")
                #expect(Array(result.stdout) == want, "export --format \(format) of \(path)")
            } else {
                // The golden file records this export as an error: the CLI must fail too.
                #expect(result.status != 0, "export --format \(format) of \(path)")
            }
        }
        let compact = try runNFCBridge(["export", "--from", file, "--format", "json", "--compact"])
        #expect(compact.status == 0)
        #expect(Array(compact.stdout) == expected["json --compact"], "export --compact of \(path)")
        let imported = try runNFCBridge(["import", file, "--compact"])
        #expect(imported.status == 0)
        #expect(Array(imported.stdout) == (expected["json --compact"] ?? []) + [0x0A], "import of \(path)")
    }

    static let tags = [
        "{id: t, type: ntag215, uid: 04A1B2C3D4E5F6, ndef: [{uri: 'https://example.com/golden'}]}",
        "{id: t, type: ultralight_c, uid: 04A1B2C3D4E5F6}",
        "{id: t, type: ntag213, uid: 04A1B2C3D4E5F6, ndef: [{uri: 'https://example.com/p'}], password: 01020304, auth0: 16}",
        "{id: t, type: classic_1k, uid: DEADBEEF}",
        "{id: t, type: type4, uid: 08123456, ndef: [{text: 'golden'}]}",
        "{id: t, type: felica_lite_s, idm: 012E4C7A1B2C3D4E, ndef: [{text: 'golden'}]}",
    ]

    @Test(arguments: tags.indices) func scanAndDumpThroughTheSimulatorPrintTheGoldenBytes(_ index: Int) throws {
        let simulator = try SimulatorProcess(scenario: "tags:\n  - \(Self.tags[index])\ntimeline: [{at: 0, place: t}]\n")
        defer { simulator.stop() }
        var text = ""
        let scan = try runNFCBridge(["scan", "--device", simulator.connstring, "--once", "--json", "--timeout", "20"])
        text += "## scan --json status \(scan.status)\n" + scan.out
        for format in ["json", "flipper", "hex"] {
            let dump = try runNFCBridge(["dump", "--device", simulator.connstring, "--format", format, "--timeout", "20"])
            text += "## dump --format \(format) status \(dump.status)\n" + dump.out + "\n"
        }
        let name = "cli-tag-\(index).txt"
        if let directory = ProcessInfo.processInfo.environment["NFCBRIDGE_RECORD_GOLDEN"] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
            Issue.record("recorded \(name)")
            return
        }
        let expected = try String(contentsOf: Self.golden.appendingPathComponent(name), encoding: .utf8)
        #expect(text == expected, "\(Self.tags[index])")
    }
}
