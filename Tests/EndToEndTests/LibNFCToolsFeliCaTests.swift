import Foundation
import Testing
import TestSupport

extension LibNFCToolsTests {
    /// `nfc-read-forum-tag3` reads the NDEF message of a virtual FeliCa Lite-S.
    @Suite struct FeliCaTests {
        @Test func readForumTag3GivesTheNDEFMessage() throws {
            let simulator = try SimulatorProcess(scenario: """
                tags:
                  - id: ticket
                    type: felica_lite_s
                    idm: 012E4CD1A1B2C3D4
                    ndef: [{uri: "https://example.com/felica"}]
                timeline: [{at: 0, place: ticket}]
                """)
            defer { simulator.stop() }
            let output = LibNFCTools.file("ticket.ndef", in: simulator)
            let result = try LibNFCTools.run("nfc-read-forum-tag3", ["-o", output], on: simulator)
            #expect(result.status == 0, "\(result.out)\(result.err)")
            let ndef = [UInt8](try #require(FileManager.default.contents(atPath: output)))
            let dump = try simulator.control(["cmd": "dump", "id": "ticket"])
            let expected = LibNFCTools.bytes(hex: try #require(dump["ndef"] as? String))
            #expect(!expected.isEmpty)
            #expect(ndef == expected)
            // URI record, prefix 02 = "https://www."? No: 04 = "https://".
            #expect(ndef.prefix(5) == [0xD1, 0x01, UInt8(expected.count - 4), 0x55, 0x04])
        }
    }
}
