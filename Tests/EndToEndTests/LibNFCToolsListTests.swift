import Foundation
import Testing
import TestSupport

extension LibNFCToolsTests {
    /// `nfc-list` and `nfc-scan-device` take nfcbridge-sim for a PN532 and see its tags.
    @Suite struct ListTests {
        static let scenario = """
            tags:
              - {id: poster, type: ntag215, uid: 04A1B2C3D4E5F6, ndef: [{uri: "https://example.com"}]}
              - {id: badge, type: classic_1k, uid: DEADBEEF}
              - {id: card, type: type4, uid: 04C1C2C3C4C5C6}
              - {id: ticket, type: felica_lite_s, idm: 012E4CD1A1B2C3D4}
            timeline:
              - {at: 0, place: [poster, badge, card, ticket]}
            """

        @Test func scanDeviceFindsThePN532() throws {
            let simulator = try SimulatorProcess()
            defer { simulator.stop() }
            let result = try LibNFCTools.run("nfc-scan-device", ["-v"], on: simulator)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains("1 NFC device(s) found"), "\(result.out)")
            #expect(result.out.contains("PN532 v1.6"), "\(result.out)")
        }

        @Test func listShowsEveryTagInTheField() throws {
            let simulator = try SimulatorProcess(scenario: Self.scenario)
            defer { simulator.stop() }
            // The timeline places the tags at t = 0; wait for it through the control channel.
            let listed = try simulator.control(["cmd": "list"])
            #expect((listed["field"] as? [String])?.count == 4, "\(listed)")

            let result = try LibNFCTools.run("nfc-list", [], on: simulator)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains("3 ISO14443A passive target(s) found"), "\(result.out)")
            #expect(result.out.contains("UID (NFCID1): 04  a1  b2  c3  d4  e5  f6"), "\(result.out)")
            #expect(result.out.contains("UID (NFCID1): de  ad  be  ef"), "\(result.out)")
            #expect(result.out.contains("SAK (SEL_RES): 08"), "\(result.out)")
            // The Type 4 tag: AutoRATS gives its ATS.
            #expect(result.out.contains("UID (NFCID1): 04  c1  c2  c3  c4  c5  c6"), "\(result.out)")
            #expect(result.out.contains("ATS: 75  77  81  02  80"), "\(result.out)")
            #expect(result.out.contains("1 Felica (212 kbps) passive target(s) found"), "\(result.out)")
            #expect(result.out.contains("ID (NFCID2): 01  2e  4c  d1  a1  b2  c3  d4"), "\(result.out)")
        }

        @Test func listSeesTagsPlacedAndRemovedThroughTheControlChannel() throws {
            let simulator = try SimulatorProcess(scenario: "tags: [{id: note, type: ntag213, uid: 04112233445566}]")
            defer { simulator.stop() }
            let empty = try LibNFCTools.run("nfc-list", ["-t", "1"], on: simulator)
            #expect(empty.status == 0)
            #expect(!empty.out.contains("UID (NFCID1)"), "\(empty.out)")

            #expect(try simulator.control(["cmd": "place", "id": "note"])["ok"] as? Bool == true)
            let one = try LibNFCTools.run("nfc-list", ["-t", "1"], on: simulator)
            #expect(one.out.contains("UID (NFCID1): 04  11  22  33  44  55  66"), "\(one.out)")

            #expect(try simulator.control(["cmd": "remove", "id": "note"])["removed"] as? Int == 1)
            let gone = try LibNFCTools.run("nfc-list", ["-t", "1"], on: simulator)
            #expect(!gone.out.contains("UID (NFCID1)"), "\(gone.out)")
        }
    }
}
