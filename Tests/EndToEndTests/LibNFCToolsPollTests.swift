import Foundation
import Testing
import TestSupport

extension LibNFCToolsTests {
    /// `nfc-poll` waits in InAutoPoll, sees a tag that arrives through the control channel and
    /// notices when it leaves again.
    @Suite struct PollTests {
        static let scenario = """
            tags:
              - {id: sticker, type: ntag215, uid: 04A1B2C3D4E5F6}
              - {id: card, type: type4, uid: 04C1C2C3C4C5C6}
              - {id: badge, type: classic_1k, uid: DEADBEEF}
              - {id: ticket, type: felica_standard, idm: 012E4CD1A1B2C3D4}
            """

        /// Starts nfc-poll on an empty field, places `id` once InAutoPoll is pending, expects `uidLine`,
        /// then removes the tag and expects nfc-poll to finish.
        func arrivalAndRemoval(of id: String, uidLine: String) throws {
            let simulator = try SimulatorProcess(scenario: Self.scenario)
            defer { simulator.stop() }
            let poll = try ChildProcess(LibNFCTools.path("nfc-poll"), [], environment: simulator.libnfcEnvironment)
            defer { poll.terminate() }

            let waited = try simulator.control(["cmd": "wait_command", "code": "60", "timeout_ms": 30000])
            #expect(waited["ok"] as? Bool == true, "InAutoPoll never came: \(waited) \(poll.errorOutput)")
            #expect(try simulator.control(["cmd": "place", "id": id])["ok"] as? Bool == true)
            #expect(poll.waitForOutput("Waiting for card removing"), "\(poll.output)\(poll.errorOutput)")
            #expect(poll.output.contains(uidLine), "\(poll.output)")

            #expect(try simulator.control(["cmd": "remove", "id": id])["removed"] as? Int == 1)
            #expect(poll.waitForExit() == 0, "\(poll.output)\(poll.errorOutput)")
            #expect(poll.output.contains("done."), "\(poll.output)")
        }

        @Test func ntagArrivesAndLeaves() throws {
            try arrivalAndRemoval(of: "sticker", uidLine: "UID (NFCID1): 04  a1  b2  c3  d4  e5  f6")
        }

        @Test func type4TagArrivesAndLeaves() throws {
            try arrivalAndRemoval(of: "card", uidLine: "ATS: 75  77  81  02  80")
        }

        @Test func classicArrivesAndLeaves() throws {
            try arrivalAndRemoval(of: "badge", uidLine: "UID (NFCID1): de  ad  be  ef")
        }

        @Test func felicaArrivesAndLeaves() throws {
            try arrivalAndRemoval(of: "ticket", uidLine: "ID (NFCID2): 01  2e  4c  d1  a1  b2  c3  d4")
        }

        @Test func emptyFieldGivesUpAfterThePollingTime() throws {
            // 20 polls × 7 types × 2 × 150 ms = 42 s of chip time, scaled down to 0.42 s.
            let simulator = try SimulatorProcess(arguments: ["--time-scale", "0.01"])
            defer { simulator.stop() }
            let result = try LibNFCTools.run("nfc-poll", [], on: simulator)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains("No target found."), "\(result.out)")
        }
    }
}
