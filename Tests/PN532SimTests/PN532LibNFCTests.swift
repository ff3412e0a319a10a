import Foundation
import NFCCore
import TestSupport
import Testing
@testable import PN532Sim

/// The emulator in-process, driven by Debian's real libnfc tools through its pty, with the tiny
/// test tags of PN532TestTags.swift.
@Suite(.serialized) struct PN532LibNFCTests {
    /// Runs `body` with an emulator serving `tags` on a fresh link, and always stops it.
    func withEmulator(_ tags: [(String, any VirtualTag)], timeScale: Double = 1,
                      _ body: (PN532Emulator, [String: String]) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pn532-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let field = RFField()
        for (id, tag) in tags { field.place(tag, id: id) }
        let emulator = try PN532Emulator(linkPath: directory.appendingPathComponent("pn532.tty").path, field: field,
                                         timing: PN532Timing(timeScale: timeScale))
        emulator.start()
        defer { emulator.stop() }
        try body(emulator, ["LIBNFC_DEFAULT_DEVICE": "pn532_uart:\(emulator.linkPath)", "LIBNFC_AUTO_SCAN": "false"])
    }

    @Test func nfcListShowsAType2Tag() throws {
        try withEmulator([("ntag", TestType2Tag())]) { _, environment in
            let result = try runProcess("/usr/bin/nfc-list", ["-t", "1"], environment: environment)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains("UID (NFCID1): 04  a1  b2  c3  d4  e5  f6"), "\(result.out)")
            #expect(result.out.contains("ATQA (SENS_RES): 00  44"), "\(result.out)")
        }
    }
}

extension PN532LibNFCTests {
    @Test func nfcAnticolSeesTheBytesOfARealTag() throws {
        try withEmulator([("ntag", TestType2Tag())]) { _, environment in
            let result = try runProcess("/usr/bin/nfc-anticol", [], environment: environment)
            #expect(result.status == 0, "\(result.err)")
            // Byte for byte what an NTAG with this UID answers (libnfc-pty.md §4, nfc-anticol).
            #expect(result.out.contains("Received bits: 44  00"), "\(result.out)")
            #expect(result.out.contains("Received bits: 88  04  a1  b2  9f"), "\(result.out)")
            #expect(result.out.contains("Received bits: 04  da  17"), "\(result.out)")
            #expect(result.out.contains("Received bits: 00  fe  51"), "\(result.out)")
            #expect(result.out.contains("UID: 04a1b2c3d4e5f6"), "\(result.out)")
        }
    }

    @Test func nfcListFindsTwoTagsOfTheSameType() throws {
        let second = TestType2Tag(uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        try withEmulator([("one", TestType2Tag()), ("two", second)]) { _, environment in
            let result = try runProcess("/usr/bin/nfc-list", ["-t", "1"], environment: environment)
            #expect(result.out.contains("2 ISO14443A passive target(s) found"), "\(result.out)")
            #expect(result.out.contains("UID (NFCID1): 04  01  02  03  04  05  06"), "\(result.out)")
        }
    }

    @Test func libnfcWorksWithModelledLineTime() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pn532-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let field = RFField()
        field.place(TestType2Tag(), id: "ntag")
        let emulator = try PN532Emulator(linkPath: directory.appendingPathComponent("pn532.tty").path, field: field,
                                         timing: PN532Timing(baudRate: 115200))
        emulator.start()
        defer { emulator.stop() }
        let result = try runProcess("/usr/bin/nfc-list", ["-t", "1"],
                                    environment: ["LIBNFC_DEFAULT_DEVICE": "pn532_uart:\(emulator.linkPath)", "LIBNFC_AUTO_SCAN": "false"])
        #expect(result.out.contains("UID (NFCID1): 04  a1  b2  c3  d4  e5  f6"), "\(result.out)")
    }
}
