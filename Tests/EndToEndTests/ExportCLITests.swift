import Foundation
import Testing
import NFCCore
import TestSupport

/// `nfcbridge export` and `nfcbridge import`, run as the built binary on the NFCCore fixtures.
@Suite struct ExportCLITests {
    static let binary = Binaries.path("nfcbridge")
    static let fixtures = Binaries.packageRoot.appendingPathComponent("Tests/NFCCoreTests/Fixtures/type2")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    static func fixtureBytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func run(_ arguments: [String], input: Data? = nil) throws -> ProcessResult {
        try runProcess(binary, arguments, input: input)
    }

    /// The one-line JSON error on stderr: (code, message).
    static func errorLine(_ result: ProcessResult) throws -> (String, String) {
        let lines = result.err.split(separator: "\n")
        #expect(lines.count == 1)
        let first = try #require(lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any])
        return (try #require(error["code"] as? String), try #require(error["message"] as? String))
    }

    /// A temporary directory removed when the test ends.
    static func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfcbridge-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    @Test(arguments: [("flipper", "ntag215.nfc"), ("pm3", "ntag215.pm3.bin"), ("mfd", "ntag215.mfd")])
    func exportsToStandardOutputByteExact(format: String, expected: String) throws {
        let result = try Self.run(["export", "--from", Self.fixture("ntag215.input.json"), "--format", format])
        #expect(result.status == 0)
        #expect(result.err.isEmpty)
        #expect(Array(result.stdout) == (try Self.fixtureBytes(expected)))
    }

    /// `mfd64`: the 64-byte MFD `nfc-mfultralight` loads for Ultralight C (no GET_VERSION) is pages 0–15
    /// of the full MFD; an NTAG213 (which answers GET_VERSION) is refused naming its type.
    @Test func exportsTheSixtyFourByteMFD() throws {
        let ulc = try Self.run(["export", "--from", Self.fixture("ulc.mfd"), "--format", "mfd64"])
        #expect(ulc.status == 0)
        #expect(Array(ulc.stdout) == Array(try Self.fixtureBytes("ulc.mfd").prefix(64)))
        let ntag = try Self.run(["export", "--from", Self.fixture("ntag213.mfd"), "--format", "mfd64"])
        #expect(ntag.status == 1)
        #expect(try Self.errorLine(ntag).0 == "unsupported")
        #expect(try Self.errorLine(ntag).1.contains("NTAG213 dumps: use mfd"))
    }

    /// Issue 10: a MIFARE Classic 1K with sector 3 never read is refused in MFD and the Proxmark3 `.bin`
    /// (exit 1, `partial_dump` naming block 12 and sector 3); `--partial` writes sectors 0–2 (192 bytes),
    /// the bytes the full image has there.
    @Test(arguments: ["mfd", "pm3", "eml", "pm3json"])
    func classicWithAnUnreadSectorIsRefusedOrCut(format: String) throws {
        let classic = Binaries.packageRoot.appendingPathComponent("Tests/NFCCoreTests/Fixtures/classic").path
        let refused = try Self.run(["export", "--from", classic + "/1k.input.json", "--format", format])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        let (code, message) = try Self.errorLine(refused)
        #expect(code == "partial_dump")
        #expect(message.contains("block 12 (sector 3) of 64 was not read"), "\(message)")
        let cut = try Self.run(["export", "--from", classic + "/1k.input.json", "--format", format, "--partial"])
        #expect(cut.status == 0)
        if format == "mfd" || format == "pm3" {
            let fixture = Array(try Data(contentsOf: URL(fileURLWithPath: classic + "/1k.mfd")))
            #expect(Array(cut.stdout) == Array(fixture.prefix(192)))
        } else if format == "eml" {
            #expect(String(decoding: cut.stdout, as: UTF8.self).split(separator: "\n").count == 12)
        } else {
            let text = String(decoding: cut.stdout, as: UTF8.self)
            #expect(text.contains(#""11": "#) && !text.contains(#""12": "#), "\(text)")
        }
    }

    /// Proxmark3 JSON out and back in through the binary: the same dump.
    @Test func convertsToProxmark3JSONAndBack() throws {
        try Self.withTemporaryDirectory { (dir: URL) throws in
            let json = dir.appendingPathComponent("hf-mfu-dump.json").path
            #expect(try Self.run(["export", "--from", Self.fixture("ntag215.input.json"), "--format", "pm3json", "--output", json]).status == 0)
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: json)), as: UTF8.self)
            #expect(text.hasPrefix("{\n  \"Created\": \"proxmark3\",\n  \"FileType\": \"mfu\","))
            let back = try Self.run(["export", "--from", json, "--format", "pm3"])
            #expect(back.status == 0)
            #expect(Array(back.stdout) == (try Self.fixtureBytes("ntag215.pm3.bin")))
        }
    }

    /// Any importable format converts to any export: Flipper → Proxmark3 → MFD → Flipper.
    @Test func convertsBetweenFormatsThroughFiles() throws {
        try Self.withTemporaryDirectory { (dir: URL) throws in
            let pm3 = dir.appendingPathComponent("tag.bin").path
            let nfc = dir.appendingPathComponent("tag.nfc").path
            #expect(try Self.run(["export", "--from", Self.fixture("ul21.nfc"), "--format", "pm3", "--output", pm3]).status == 0)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: pm3))) == (try Self.fixtureBytes("ul21.pm3.bin")))
            #expect(try Self.run(["export", "--from", pm3, "--format", "flipper", "--output", nfc]).status == 0)
            // The Proxmark3 file carries every field this Flipper file holds: the same file comes back.
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: nfc))) == (try Self.fixtureBytes("ul21.nfc")))
        }
    }

    @Test func exportsJSONFromStandardInput() throws {
        let result = try Self.run(["export", "--from", "-", "--format", "json", "--compact"],
                                  input: Data(try Self.fixtureBytes("ntag213.nfc")))
        #expect(result.status == 0)
        #expect(result.out.hasPrefix(#"{"atqa":"0044","blocks":[],"capabilities":["Readable"],"cardFamily":"NTAG","cardType":"NTAG213""#))
        #expect(result.out.contains(#""technicalSummary":"45 pages · export 180 bytes""#))
    }

    @Test func exportsHexAndBinary() throws {
        let hex = try Self.run(["export", "--from", Self.fixture("ultralight.mfd"), "--format", "hex"])
        #expect(hex.status == 0)
        #expect(hex.out.hasPrefix("Card: MIFARE Ultralight\nUID: 04A1B2C3D4E580\nSummary: 16 pages · export 64 bytes\n"))
        let bin = try Self.run(["export", "--from", Self.fixture("ultralight.nfc"), "--format", "bin"])
        #expect(bin.status == 0)
        #expect(Array(bin.stdout) == (try Self.fixtureBytes("ultralight.mfd")))
    }

    @Test func importPrintsOurJSON() throws {
        let result = try Self.run(["import", Self.fixture("legacy-v3-ntag215.nfc")])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(object["cardType"] as? String == "NTAG215")
        #expect(object["uid"] as? String == "04515CFA6F7381")
        #expect((object["pages"] as? [Any])?.count == 135)
        #expect(object["counters"] as? [Int] == [0, 0, 95])
        // And that JSON is an importable dump itself.
        let again = try Self.run(["import", "-", "--format", "json"], input: result.stdout)
        #expect(again.status == 0)
        #expect(again.out == result.out)
    }

    @Test(arguments: [("amiibo-532.bin", "auto", 133), ("plain-ultralight-64.bin", "pm3", 16), ("pm3-old-ntag213.bin", "auto", 45),
                      ("ntag216.mfd", "mfd", 231)])
    func importsBinaryFiles(file: String, format: String, pages: Int) throws {
        let result = try Self.run(["import", Self.fixture(file), "--format", format, "--compact"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect((object["pages"] as? [Any])?.count == pages)
    }

    /// Bad data: exit 1 with the NFCError code.
    @Test func badDataExitsOne() throws {
        try Self.withTemporaryDirectory { (dir: URL) throws in
            let path = dir.appendingPathComponent("junk.txt").path
            try Data("not a dump".utf8).write(to: URL(fileURLWithPath: path))
            let imported = try Self.run(["import", path])
            #expect(imported.status == 1)
            #expect(try Self.errorLine(imported).0 == "malformed_dump")
            #expect(imported.stdout.isEmpty)

            let missing = try Self.run(["export", "--from", dir.appendingPathComponent("none.json").path, "--format", "json"])
            #expect(missing.status == 1)
            #expect(try Self.errorLine(missing).0 == "io_error")

            // A non-page dump cannot become a Flipper file: upstream's message. (A FeliCa dump: an ISO
            // 15693 dump, used here before, has its own Flipper file since the ISO15693-3 export exists.)
            let blocks = dir.appendingPathComponent("blocks.json").path
            try Data(#"{"cardType":"FeliCa Lite","uid":"0102030405060708","blocks":[{"number":0,"data":"00112233445566778899AABBCCDDEEFF"}]}"#.utf8)
                .write(to: URL(fileURLWithPath: blocks))
            let unsupported = try Self.run(["export", "--from", blocks, "--format", "flipper"])
            #expect(unsupported.status == 1)
            #expect(try Self.errorLine(unsupported)
                == ("unsupported", "Flipper Zero export is currently available only for page-based Type 2 style dumps."))

            // A 2-byte page: malformed_dump.
            let short = dir.appendingPathComponent("short.json").path
            try Data(#"{"cardType":"NTAG213","uid":"04A1B2C3D4E5F6","pages":[{"number":0,"data":"04A1"}]}"#.utf8)
                .write(to: URL(fileURLWithPath: short))
            let malformed = try Self.run(["export", "--from", short, "--format", "mfd", "--output", dir.appendingPathComponent("x.mfd").path])
            #expect(malformed.status == 1)
            #expect(try Self.errorLine(malformed).0 == "malformed_dump")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.mfd").path))
        }
    }

    /// Wrong usage: exit 2, code "usage".
    @Test(arguments: [
        ["export", "--format", "json"],
        ["export", "--from", "x.json"],
        ["export", "--from", "x.json", "--format", "mct"],
        ["export", "--from", "x.json", "--format", "mfd", "--compact"],
        ["export", "--from", "x.json", "--format", "json", "--bogus", "1"],
        ["import"],
        ["import", "a", "b"],
        ["import", "a", "--format", "nfc2"],
    ])
    func usageErrorsExitTwo(arguments: [String]) throws {
        let result = try Self.run(arguments)
        #expect(result.status == 2)
        #expect(try Self.errorLine(result).0 == "usage")
    }

    /// Binary formats are not written to a terminal; text formats are.
    @Test func binaryToATerminalIsRefused() throws {
        var primary: Int32 = -1
        var secondary: Int32 = -1
        #expect(openpty(&primary, &secondary, nil, nil, nil) == 0)
        let terminal = FileHandle(fileDescriptor: secondary, closeOnDealloc: true)
        defer { close(primary) }
        func runOnTerminal(_ format: String) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["export", "--from", Self.fixture("ntag213.nfc"), "--format", format]
            let errors = Pipe()
            process.standardOutput = terminal
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let stderr = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
        }
        let (binaryStatus, binaryError) = try runOnTerminal("pm3")
        #expect(binaryStatus == 2)
        #expect(binaryError.contains(#""code":"usage""#))
        let (textStatus, textError) = try runOnTerminal("flipper")
        #expect(textStatus == 0)
        #expect(textError.isEmpty)
    }

    /// `--output` writes into what is not a regular file and replaces only regular files (review
    /// stop 40: `--output /dev/null` as root replaced the device with a regular file). A FIFO stays a
    /// FIFO and its reader gets the file; a link to the descriptor of standard output (a pipe) gets it
    /// on standard output; a symbolic link to a file stays a link and its target, whose mode is kept,
    /// is replaced; a link planted at the old fixed temporary name is not followed.
    @Test func anOutputThatIsNoRegularFileIsWrittenIntoAndALinkStays() throws {
        let flipper = try Self.run(["export", "--from", Self.fixture("ntag215.input.json"), "--format", "flipper"])
        #expect(flipper.status == 0 && !flipper.stdout.isEmpty)
        try Self.withTemporaryDirectory { dir in
            func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
            func export(to output: String) throws -> ProcessResult {
                try Self.run(["export", "--from", Self.fixture("ntag215.input.json"), "--format", "flipper", "--output", output])
            }
            func type(_ name: String) throws -> FileAttributeType? {
                try FileManager.default.attributesOfItem(atPath: path(name))[.type] as? FileAttributeType
            }

            #expect(mkfifo(path("fifo"), 0o644) == 0)
            let reader = open(path("fifo"), O_RDONLY | O_NONBLOCK)
            #expect(reader >= 0)
            defer { close(reader) }
            #expect(try export(to: path("fifo")).status == 0)
            var received = [UInt8](repeating: 0, count: flipper.stdout.count + 1)
            let count = read(reader, &received, received.count)
            #expect(Array(received.prefix(max(count, 0))) == Array(flipper.stdout))
            #expect(isFIFO(path("fifo")))

            try FileManager.default.createSymbolicLink(atPath: path("stdout"), withDestinationPath: "/proc/self/fd/1")
            let piped = try export(to: path("stdout"))
            #expect(piped.status == 0 && piped.stdout == flipper.stdout)
            #expect(try type("stdout") == .typeSymbolicLink)

            try Data("old".utf8).write(to: URL(fileURLWithPath: path("real.nfc")))
            #expect(chmod(path("real.nfc"), 0o600) == 0)
            try FileManager.default.createSymbolicLink(atPath: path("link.nfc"), withDestinationPath: "real.nfc")
            #expect(try export(to: path("link.nfc")).status == 0)
            #expect(try type("link.nfc") == .typeSymbolicLink)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path("real.nfc"))) == flipper.stdout)
            let mode = try FileManager.default.attributesOfItem(atPath: path("real.nfc"))[.posixPermissions] as? Int
            #expect(mode == 0o600)

            try FileManager.default.createSymbolicLink(atPath: path("new.nfc.nfcbridge-tmp"), withDestinationPath: "victim")
            #expect(try export(to: path("new.nfc")).status == 0)
            #expect(!FileManager.default.fileExists(atPath: path("victim")))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path("new.nfc"))) == flipper.stdout)
            // Nothing is left behind but what the test made.
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            #expect(names == ["fifo", "link.nfc", "new.nfc", "new.nfc.nfcbridge-tmp", "real.nfc", "stdout"])
        }
    }

    /// Whether `path` is a FIFO (`lstat`).
    private func isFIFO(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
    }
}
