import Foundation
import NFCCore
import PN532Sim
import Testing

/// Byte-for-byte golden outputs of every export, import, scan report and dump, recorded from the code
/// before the family-registry refactor (issue 8): the refactor must not change a byte of what the CLI
/// prints or an export writes. Each case renders into one text file, `Fixtures/golden/<case>.txt`
/// (binary outputs as hex lines, text outputs verbatim, each section headed by its name and length).
///
/// To re-record after an intended output change: `NFCBRIDGE_RECORD_GOLDEN=$PWD/Tests/NFCCoreTests/Fixtures/golden
/// swift test --skip-build --filter GoldenOutputTests` (the tests then fail, naming what they wrote, so a
/// recording run is never taken for a passing one).
@Suite struct GoldenOutputTests {
    /// Every fixture file an import reads (all of Fixtures/type2, classic and interop but the notes).
    static let fixtureFiles: [String] = {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else { return [] }
        var files: [String] = []
        for folder in ["type2", "classic", "interop"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
            files += names.filter { !$0.hasSuffix(".md") && !$0.hasSuffix(".py") }.map { "\(folder)/\($0)" }
        }
        return files.sorted()
    }()

    @Test func theFixtureListIsNotEmpty() {
        #expect(Self.fixtureFiles.count > 50)
    }

    /// Import every fixture (format told from the content), then export it in every format.
    @Test(arguments: fixtureFiles) func importAndExportEveryFixture(_ path: String) throws {
        let bytes = try ExportFixtures.bytes(path)
        var golden = GoldenText()
        do {
            let dump = try DumpImporter.importDump(bytes)
            golden.dump(dump)
        } catch {
            golden.error("import", error)
        }
        // The golden's order (the import enum's before the one format table); every readable format.
        let readable: [ExportFormat] = [.json, .flipper, .pm3, .mfd, .pm3json, .eml]
        #expect(Set(readable) == Set(ExportFormat.readable))
        for format in readable {
            golden.section("import as \(format.rawValue)") { Array(try DumpImporter.importDump(bytes, format: format).exportJSON(prettyPrinted: false).utf8) }
        }
        try golden.check("import-" + path.replacingOccurrences(of: "/", with: "-"))
    }

    /// A virtual tag: what it is called in the golden file name and how to make it.
    struct TagCase: Sendable, CustomTestStringConvertible {
        var name: String
        var make: @Sendable () throws -> any VirtualTag
        var testDescription: String { name }
    }

    static let uid7: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    static let uri: [UInt8] = [0xD1, 0x01, 0x0D, 0x55, 0x04, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x2E, 0x63, 0x6F, 0x6D, 0x2F, 0x67]

    static let tagCases: [TagCase] = {
        let models: [(String, VirtualType2Model)] = [
            ("ultralight", .ultralight), ("ulc", .ultralightC), ("ul11", .ultralightEV1_11), ("ul21", .ultralightEV1_21),
            ("ntag203", .ntag203), ("ntag210", .ntag210), ("ntag212", .ntag212), ("ntag213", .ntag213),
            ("ntag215", .ntag215), ("ntag216", .ntag216),
        ]
        var cases = models.map { name, model in
            TagCase(name: "type2-\(name)") {
                let tag = VirtualType2Tag(model: model, uid: uid7)
                try tag.writeNDEF(uri)
                return tag
            }
        }
        cases.append(TagCase(name: "type2-ntag215-blank") { VirtualType2Tag(model: .ntag215, uid: uid7) })
        cases.append(TagCase(name: "type2-ntag213-read-protected") {
            let tag = VirtualType2Tag(model: .ntag213, uid: uid7)
            try tag.writeNDEF(uri)
            tag.setPassword([1, 2, 3, 4], pack: [0xAA, 0xBB])
            tag.setAuth0(0x10)
            tag.setReadProtection(true)
            return tag
        })
        cases.append(TagCase(name: "type2-ntag213-write-protected") {
            let tag = VirtualType2Tag(model: .ntag213, uid: uid7)
            try tag.writeNDEF(uri)
            tag.setPassword([1, 2, 3, 4], pack: [0xAA, 0xBB])
            tag.setAuth0(0x04)
            return tag
        })
        cases.append(TagCase(name: "type2-ulc-auth0") {
            let tag = VirtualType2Tag(model: .ultralightC, uid: uid7)
            tag.setAuth0(0x04)
            return tag
        })
        cases.append(TagCase(name: "type2-custom-i2c") {
            VirtualType2Tag(model: .custom(version: [0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x15, 0x03], totalPages: 16), uid: uid7)
        })
        for (name, model) in [("mini", VirtualClassicTag.Model.mini), ("1k", .classic1K), ("4k", .classic4K)] {
            cases.append(TagCase(name: "classic-\(name)") { try VirtualClassicTag(model: model, uid: [0xDE, 0xAD, 0xBE, 0xEF]) })
        }
        cases.append(TagCase(name: "classic-1k-user-key") {
            let tag = try VirtualClassicTag(model: .classic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF])
            tag.setKeys(sector: 3, a: [1, 2, 3, 4, 5, 6], b: [1, 2, 3, 4, 5, 6], accessBits: [0x7F, 0x07, 0x88, 0x40])
            return tag
        })
        cases.append(TagCase(name: "type4") { try VirtualType4Tag(uid: [0x08, 0x12, 0x34, 0x56], ndef: uri) })
        for (name, model) in [("lite", VirtualFeliCaTag.Model.lite), ("lite-s", .liteS), ("standard", .standard)] {
            cases.append(TagCase(name: "felica-\(name)") {
                try VirtualFeliCaTag(model: model, idm: [0x01, 0x2E, 0x4C, 0x7A, 0x1B, 0x2C, 0x3D, 0x4E], ndef: uri)
            })
        }
        return cases
    }()

    /// Identify, scan report (JSON line and summary), NDEF read, dump and every export of the dump.
    @Test(arguments: tagCases) func scanAndDumpEveryVirtualTag(_ tagCase: TagCase) async throws {
        let transport = VirtualTagTransport(tag: try tagCase.make())
        var golden = GoldenText()
        let info = try await TagIdentifier.identify(transport)
        golden.text("probes", info.probes.joined(separator: "\n"))
        let ndef = try await NDEFReader.read(info: info, transport: transport)
        let report = ScanReport(cardInfo: info, ndef: ndef)
        golden.text("scan --json", report.jsonLine())
        golden.text("scan", report.summaryLine)
        do {
            golden.dump(try await TagDumper.dump(info: info, transport: transport))
        } catch {
            golden.error("dump", error)
        }
        try golden.check("tag-" + tagCase.name)
    }
}

/// The text of one golden file.
struct GoldenText {
    private(set) var text = ""

    mutating func section(_ name: String, _ bytes: () throws -> [UInt8], binary: Bool = false) {
        do {
            let bytes = try bytes()
            text += "## \(name) (\(bytes.count) bytes)\n"
            if binary {
                for start in stride(from: 0, to: bytes.count, by: 32) {
                    text += Array(bytes[start..<min(start + 32, bytes.count)]).hexString + "\n"
                }
            } else {
                text += String(decoding: bytes, as: UTF8.self) + "\n"
            }
        } catch {
            self.error(name, error)
        }
    }

    mutating func text(_ name: String, _ value: String) {
        section(name) { Array(value.utf8) }
    }

    mutating func error(_ name: String, _ error: any Error) {
        if let error = error as? NFCError {
            text += "## \(name) error \(error.code): \(error.message)\n"
        } else {
            text += "## \(name) error \(error)\n"
        }
    }

    /// Every export of `dump`, as the CLI's formats and `exportAll` write them, and its summary.
    mutating func dump(_ dump: TagDump) {
        section("flipper") { Array(try dump.exportFlipperNFC().utf8) }
        section("pm3", { try dump.exportProxmark3MFU() }, binary: true)
        section("mfd", { try dump.exportLibNFCMFD() }, binary: true)
        section("json") { Array(try dump.exportJSON(prettyPrinted: true).utf8) }
        section("json --compact") { Array(try dump.exportJSON(prettyPrinted: false).utf8) }
        section("hex") { Array(dump.exportHex().utf8) }
        section("bin", { dump.exportBinary() }, binary: true)
        section("pm3json") { Array(try dump.exportProxmark3JSON().utf8) }
        section("pm3key", { try dump.exportProxmark3Keys() }, binary: true)
        section("eml") { Array(try dump.exportProxmark3EML().utf8) }
        section("exportAll") {
            Array(try dump.exportAll().map { "\($0.fileName) \($0.contentType) \($0.data.count)" }.joined(separator: "\n").utf8)
        }
        let summary = dump.summary
        text("summary", [summary.userSummary, summary.technicalSummary, summary.capabilities.map(\.rawValue).joined(separator: ", "),
                         summary.facts.map { "\($0.key)=\($0.value)\($0.monospaced ? " (mono)" : "")" }.joined(separator: "\n")]
            .joined(separator: "\n"))
    }

    /// Compares with `Fixtures/golden/<name>.txt`, or writes it there when `NFCBRIDGE_RECORD_GOLDEN` names the
    /// golden directory (and then fails, so a recording is never a pass).
    func check(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if let directory = ProcessInfo.processInfo.environment["NFCBRIDGE_RECORD_GOLDEN"] {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(name + ".txt")
            try Data(text.utf8).write(to: url)
            Issue.record("recorded \(url.path)", sourceLocation: sourceLocation)
            return
        }
        let expected = try ExportFixtures.text("golden/\(name).txt")
        guard expected != text else { return }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let index = (0..<min(lines.count, expectedLines.count)).first { lines[$0] != expectedLines[$0] }
            ?? min(lines.count, expectedLines.count)
        let got = index < lines.count ? String(lines[index]) : "<end>"
        let want = index < expectedLines.count ? String(expectedLines[index]) : "<end>"
        Issue.record("golden/\(name).txt differs at line \(index + 1):\n  got:  \(got)\n  want: \(want)", sourceLocation: sourceLocation)
    }
}
