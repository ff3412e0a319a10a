import Foundation
import NFCCore
import Testing
import TestSupport

/// NFC Forum Type 4 tags end to end (issue 9): the agent (`nfcbridge run`) reads and writes them through
/// the real libnfc `pn532_uart` driver against `nfcbridge-sim`, commanded over a real mosquitto; the
/// simulator's control channel shows the NDEF file and every UPDATE BINARY it accepted, so the MLc
/// chunking and the NLEN-first order are checked on the tag's side.
@Suite(.serialized, .timeLimit(.minutes(3))) struct Type4EndToEndTests {
    static let scenario = """
        tags:
          - {id: small, type: type4_small_mlc, uid: 04C1C2C3C4C5C6, ndef: [{uri: https://example.com/small}]}
          - {id: v3, type: type4_v3, uid: 04D1D2D3D4D5D6, ndef: [{text: extended}]}
          - {id: ro, type: type4, uid: 04E1E2E3E4E5E6, writable: false, ndef: [{text: read only}]}
        timeline: [{at: 0, place: small}]
        """

    func message(_ records: String) throws -> String {
        try NDEFMessage(records: NDEFJSON.decodeRecords(Data(records.utf8))).bytes.hexString
    }

    /// The simulator's `dump` of `id`.
    func dump(_ id: String, _ h: CommandAgentHarness) throws -> [String: Any] {
        try h.simulator.control(["cmd": "dump", "id": id])
    }

    /// The UPDATE BINARYs the tag accepted, as (offset, count).
    func updates(_ id: String, _ h: CommandAgentHarness) throws -> [[Int]] {
        (try dump(id, h)["updates"] as? [[Int]]) ?? []
    }

    /// The scanned event of `uid` carries `value` as its first record's URI or text.
    func expectScanned(_ h: CommandAgentHarness, uid: String, value: String) async {
        let scanned = await h.next { $0.topic == "nfc/e2e/event/scanned" && $0.object?["uid"] as? String == uid }
        #expect(scanned.object?["cardType"] as? String == "NFC Forum Type 4 Tag", "\(scanned.payloadString ?? "")")
        let record = ((scanned.object?["ndef"] as? [String: Any])?["records"] as? [[String: Any]])?.first
        #expect(record?["uri"] as? String == value || record?["text"] as? String == value, "\(scanned.payloadString ?? "")")
    }

    /// Data UPDATEs cover the message once, in order and within `mlc`, between NLEN := 0 and NLEN.
    func expectTearSafeOrder(_ log: [[Int]], nlen: Int, mlc: Int, length: Int) {
        #expect(log.first == [0, nlen], "\(log)")
        #expect(log.last == [0, nlen], "\(log)")
        let data = log.dropFirst().dropLast()
        #expect(data.allSatisfy { $0[1] <= mlc }, "\(log)")
        #expect(data.reduce(nlen) { $0 == $1[0] ? $0 + $1[1] : -1 } == nlen + length, "\(log)")
    }

    @Test func readWriteAndReadOnlyRefusalOverMQTT() async throws {
        try await withCommandAgent(scenario: Self.scenario) { h in

            // Mapping 2.0, MLe 0Fh / MLc 0Dh: read in 15-byte chunks at scan, written in 13-byte chunks.
            await expectScanned(h, uid: "04C1C2C3C4C5C6", value: "https://example.com/small")
            let records = #"[{"uri":"https://example.com/written-in-thirteen-byte-chunks"}]"#
            try await h.request("write", #"{"id":"small","records":\#(records)}"#)
            let small = await h.final("write", id: "small")
            #expect(small.status == "ok", "\(small.payloadString ?? "")")
            #expect(small.data?["uid"] as? String == "04C1C2C3C4C5C6")
            let expected = try message(records)
            #expect(try dump("small", h)["ndef"] as? String == expected)
            let smallLog = try updates("small", h)
            expectTearSafeOrder(smallLog, nlen: 2, mlc: 13, length: expected.count / 2)
            #expect(smallLog.count == 2 + (expected.count / 2 + 12) / 13, "\(smallLog)")

            // Mapping 3.0 with an ENDEF file: a 4-byte ENLEN before and after the data.
            try h.control(["cmd": "remove", "id": "small"])
            _ = await h.next { $0.topic == "nfc/e2e/event/removed" }
            try h.control(["cmd": "place", "id": "v3"])
            await expectScanned(h, uid: "04D1D2D3D4D5D6", value: "extended")
            try await h.request("write", #"{"id":"v3","records":[{"text":"ENLEN"}]}"#)
            let v3 = await h.final("write", id: "v3")
            #expect(v3.status == "ok", "\(v3.payloadString ?? "")")
            let enlen = try message(#"[{"text":"ENLEN"}]"#)
            let v3Dump = try dump("v3", h)
            #expect(v3Dump["ndef"] as? String == enlen)
            #expect((v3Dump["cc"] as? String)?.hasPrefix("0011300") == true, "\(v3Dump)")
            let length = enlen.count / 2
            #expect((v3Dump["memory"] as? String)?.hasPrefix(String(format: "%08X", length)) == true, "\(v3Dump)")
            expectTearSafeOrder(try updates("v3", h), nlen: 4, mlc: 255, length: length)
            // request/dump: the 17-byte CC and the ENDEF file (ENLEN + message) as the tag holds them.
            try await h.request("dump", #"{"id":"v3dump"}"#)
            let dumped = await h.final("dump", id: "v3dump")
            #expect(dumped.status == "ok", "\(dumped.payloadString ?? "")")
            let files = ((dumped.data?["dump"] as? [String: Any])?["files"] as? [[String: Any]]) ?? []
            #expect(files.compactMap { ($0["data"] as? String)?.uppercased() }
                    == [v3Dump["cc"] as? String, String(format: "%08X", length) + enlen].compactMap { $0 }, "\(files)")

            // A CC with write access FFh: tag_locked, and not one UPDATE reaches the tag.
            try h.control(["cmd": "remove", "id": "v3"])
            _ = await h.next { $0.topic == "nfc/e2e/event/removed" }
            let before = try dump("ro", h)["memory"] as? String
            try h.control(["cmd": "place", "id": "ro"])
            await expectScanned(h, uid: "04E1E2E3E4E5E6", value: "read only")
            try await h.request("write", #"{"id":"ro","records":[{"text":"refused"}]}"#)
            let ro = await h.final("write", id: "ro")
            #expect(ro.errorCode == "tag_locked", "\(ro.payloadString ?? "")")
            #expect(try dump("ro", h)["memory"] as? String == before)
            #expect(try updates("ro", h).isEmpty)
        }
    }
}
