import Foundation
import NFCCore
import Testing
import TestSupport

/// `nfcbridge encode --protect` end to end: the real libnfc (`pn532_uart`) against `nfcbridge-sim`'s
/// NTAG213s (its own PWD_AUTH and AUTH0 rules, NTAG213/215/216 §8.8): each tag is written, then
/// password-protected from the keys file; the tag then refuses a write without the password, and no
/// output names the password (docs/tagging-station.md, "Password-protected tags").
@Suite(.serialized) struct EncodeProtectCLITests {
    static let password = "5A11C0DE"

    static var scenario: String {
        "tags:\n" + (1...2).map { "  - {id: t\($0), type: ntag213, uid: \(EncodeCLITests.uid($0))}\n" }.joined() + "timeline: []\n"
    }

    static func keysFile(in directory: String) throws -> String {
        let path = directory + "/keys.yaml"
        try "keys:\n  station:\n    kind: ntag_password\n    password: \"\(password)\"\n    pack: \"BEEF\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    @Test func eachTagIsProtectedWithTheKeysFilesPassword() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let state = simulator.directory + "/state"
        let keys = try Self.keysFile(in: simulator.directory)
        let process = try ChildProcess(
            Binaries.path("nfcbridge"),
            ["encode", "--job", "p1", "--state-dir", state, "--timeout", "60", "--device", "pn532_uart:\(simulator.linkPath)",
             "--uri", "https://ex.com/p/{serial}", "--serials", "1:2", "--protect", "station", "--auth0", "4", "--keys", keys],
            environment: simulator.libnfcEnvironment)
        defer { process.terminate() }
        for n in 1...2 {
            let line = try EncodeCLITests.show(n, on: simulator, to: process)
            #expect(line?["result"] as? String == "ok" && line?["serial"] as? String == "\(n)", "\(String(describing: line))")
        }
        #expect(process.waitForExit() == 0, "\(process.errorOutput)")
        for n in 1...2 {
            // NTAG213 (§8.5 Table 4): CFG0 29h (AUTH0 in byte 3), PWD 2Bh, PACK 2Ch.
            let memory = try LibNFCTools.memory(of: "t\(n)", on: simulator)
            #expect(memory[0x29 * 4 + 3] == 4)
            #expect(Array(memory[0x2B * 4..<0x2B * 4 + 4]) == [0x5A, 0x11, 0xC0, 0xDE])
            #expect(Array(memory[0x2C * 4..<0x2C * 4 + 2]) == [0xBE, 0xEF])
            #expect(NFCForumTLV.extractMessage(fromMemory: memory)
                == (try NDEFMessage(records: [.uri("https://ex.com/p/\(n)")]).bytes))
        }
        // Nothing printed or journalled shows the password.
        let journal = try String(contentsOfFile: state + "/jobs/p1.journal", encoding: .utf8)
        for text in [process.output, process.errorOutput, journal] {
            #expect(!text.uppercased().contains(Self.password))
        }

        // A write without the password is refused by the tag now.
        #expect(try simulator.control(["cmd": "place", "id": "t1"])["ok"] as? Bool == true)
        let write = try ChildProcess(
            Binaries.path("nfcbridge"),
            ["write", "--device", "pn532_uart:\(simulator.linkPath)", "--uri", "https://evil.example", "--timeout", "10"],
            environment: simulator.libnfcEnvironment)
        #expect(write.waitForExit() != 0)
        #expect(write.errorOutput.contains("auth_required"), "\(write.errorOutput)")
    }

    @Test func aKeyTheFileDoesNotHoldIsRefusedBeforeTheReaderIsOpened() throws {
        let directory = NSTemporaryDirectory() + "encode-protect-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try Self.keysFile(in: directory)
        let process = try ChildProcess(
            Binaries.path("nfcbridge"),
            ["encode", "--job", "p2", "--state-dir", directory + "/state", "--device", "pn532_uart:/nonexistent",
             "--uri", "https://ex.com/{serial}", "--serials", "1:2", "--protect", "other", "--auth0", "4", "--keys", keys])
        #expect(process.waitForExit() == 2)
        #expect(process.errorOutput.contains("'other'") && process.errorOutput.contains("station"), "\(process.errorOutput)")
        #expect(!process.errorOutput.uppercased().contains(Self.password))
    }
}
