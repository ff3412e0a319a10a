import Foundation
import NFCCore
import Testing
import TestSupport

/// FeliCa Lite and Lite-S as NFC Forum Type 3 tags end to end (issue 9): `nfcbridge run` polls FeliCa
/// through the real libnfc `pn532_uart` driver against `nfcbridge-sim`, reads the NDEF message at scan and
/// writes one on `request/write` over a real mosquitto; the simulator's control channel shows the blocks
/// (the attribute block with WriteFlag 00h and the new Ln, the data blocks).
@Suite(.serialized, .timeLimit(.minutes(3))) struct FeliCaEndToEndTests {
    static let scenario = """
        tags:
          - {id: lite, type: felica_lite, idm: 012E4C0000000001, ndef: [{text: lite}]}
          - {id: lites, type: felica_lite_s, idm: 012E4C0000000002, ndef: [{uri: https://example.com/lite-s}]}
          - {id: ro, type: felica_lite_s, idm: 012E4C0000000003, writable: false, ndef: [{text: read only}]}
        timeline: [{at: 0, place: lite}]
        """

    func message(_ records: String) throws -> [UInt8] {
        try NDEFMessage(records: NDEFJSON.decodeRecords(Data(records.utf8))).bytes
    }

    /// Block `number` of `id` from the simulator's `dump`.
    func block(_ number: Int, of id: String, _ h: CommandAgentHarness) throws -> [UInt8] {
        let reply = try h.simulator.control(["cmd": "dump", "id": id])
        let numbers = try #require(reply["blocks"] as? [Int])
        let memory = try #require((reply["memory"] as? String).flatMap { [UInt8](hex: $0) })
        let index = try #require(numbers.firstIndex(of: number))
        return Array(memory[(index * 16)..<(index * 16 + 16)])
    }

    func ndef(_ id: String, _ h: CommandAgentHarness) throws -> String? {
        try h.simulator.control(["cmd": "dump", "id": id])["ndef"] as? String
    }

    func expectScanned(_ h: CommandAgentHarness, uid: String, cardType: String, value: String) async {
        let scanned = await h.next { $0.topic == "nfc/e2e/event/scanned" && $0.object?["uid"] as? String == uid }
        #expect(scanned.object?["cardType"] as? String == cardType, "\(scanned.payloadString ?? "")")
        let record = ((scanned.object?["ndef"] as? [String: Any])?["records"] as? [[String: Any]])?.first
        #expect(record?["uri"] as? String == value || record?["text"] as? String == value, "\(scanned.payloadString ?? "")")
    }

    /// Writes `records` to the tag in the field and checks the blocks: attribute block (T3T §7.1) with
    /// WriteFlag 00h, RWFlag 01h, Ln = the message length and a good checksum; data from block 1.
    func writeAndCheck(_ h: CommandAgentHarness, id: String, uid: String, records: String) async throws {
        try await h.request("write", #"{"id":"\#(id)","records":\#(records)}"#)
        let response = await h.final("write", id: id)
        #expect(response.status == "ok", "\(response.payloadString ?? "")")
        #expect(response.data?["uid"] as? String == uid)
        let expected = try message(records)
        #expect(try ndef(id, h) == expected.hexString)
        let attribute = try block(0, of: id, h)
        #expect(attribute[9] == 0x00, "WriteFlag back to 00h: \(attribute.hexString)")
        #expect(attribute[10] == 0x01)
        #expect(Int(attribute[11]) << 16 | Int(attribute[12]) << 8 | Int(attribute[13]) == expected.count)
        #expect(attribute.prefix(14).reduce(0) { $0 + Int($1) } == Int(attribute[14]) << 8 | Int(attribute[15]))
        #expect(Array(try block(1, of: id, h).prefix(min(16, expected.count))) == Array(expected.prefix(16)))
        let written = response.data?["pages_written"] as? [Int] ?? []
        #expect(written.first == 0 && written.contains(1), "\(response.payloadString ?? "")")
    }

    @Test func liteAndLiteSReadAndWriteOverMQTT() async throws {
        try await withCommandAgent(scenario: Self.scenario, extraConfiguration: "dump: {on_scan: true}", modulations: "[felica212]") { h in

            await expectScanned(h, uid: "012E4C0000000001", cardType: "FeliCa Lite", value: "lite")
            // dump.on_scan: the Lite's memory map, the attribute block first, and the message.
            let event = await h.next { $0.topic == "nfc/e2e/event/dump" }
            let dump = event.object?["dump"] as? [String: Any]
            #expect(dump?["cardType"] as? String == "FeliCa Lite", "\(event.payloadString ?? "")")
            let blocks = dump?["blocks"] as? [[String: Any]] ?? []
            #expect(blocks.first?["number"] as? Int == 0, "\(event.payloadString ?? "")")
            #expect((blocks.first?["data"] as? String)?.uppercased() == (try block(0, of: "lite", h)).hexString)
            #expect((dump?["ndefHex"] as? String)?.uppercased() == (try ndef("lite", h)), "\(event.payloadString ?? "")")
            try await writeAndCheck(h, id: "lite", uid: "012E4C0000000001",
                                    records: #"[{"text":"Written to a FeliCa Lite, one block per WRITE"}]"#)

            try h.control(["cmd": "remove", "id": "lite"])
            _ = await h.next { $0.topic == "nfc/e2e/event/removed" }
            try h.control(["cmd": "place", "id": "lites"])
            await expectScanned(h, uid: "012E4C0000000002", cardType: "FeliCa Lite-S", value: "https://example.com/lite-s")
            try await writeAndCheck(h, id: "lites", uid: "012E4C0000000002",
                                    records: #"[{"uri":"https://example.com/written-to-a-lite-s"},{"text":"two"}]"#)

            // RWFlag 00h: tag_locked before any WRITE.
            try h.control(["cmd": "remove", "id": "lites"])
            _ = await h.next { $0.topic == "nfc/e2e/event/removed" }
            let before = try h.simulator.control(["cmd": "dump", "id": "ro"])["memory"] as? String
            try h.control(["cmd": "place", "id": "ro"])
            await expectScanned(h, uid: "012E4C0000000003", cardType: "FeliCa Lite-S", value: "read only")
            try await h.request("write", #"{"id":"ro","records":[{"text":"refused"}]}"#)
            let ro = await h.final("write", id: "ro")
            #expect(ro.errorCode == "tag_locked", "\(ro.payloadString ?? "")")
            #expect(try h.simulator.control(["cmd": "dump", "id": "ro"])["memory"] as? String == before)
        }
    }
}
