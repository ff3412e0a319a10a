import Foundation
import MQTTClient
import NFCCore
import Testing
import TestSupport

/// The MQTT commands end to end: a client publishes requests to a real mosquitto, the agent reads
/// the virtual tags of `nfcbridge-sim` through the real libnfc `pn532_uart` driver, and the tests
/// check the responses and the tag's memory over the simulator's control socket. One agent at a
/// time: libnfc's serial timeouts must not starve on a small machine.
@Suite(.serialized, .timeLimit(.minutes(3))) struct CommandsMQTTTests {
    static let sticker = """
        tags:
          - id: sticker
            type: ntag215
            uid: 04A1B2C3D4E5F6
            ndef: [{uri: https://example.com/old}]
          - id: other
            type: ntag215
            uid: 04112233445566
        timeline: [{at: 0, place: sticker}]
        """

    /// A factory-fresh tag (empty message): the first WRITE of a write already carries data.
    static let fresh = """
        tags: [{id: sticker, type: ntag215, uid: 04A1B2C3D4E5F6}]
        timeline: [{at: 0, place: sticker}]
        """

    func message(_ records: String) throws -> String {
        try NDEFMessage(records: NDEFJSON.decodeRecords(Data(records.utf8))).bytes.hexString
    }

    @Test func writeOnThePresentTagThenOnTheNextOne() async throws {
        try await withCommandAgent(scenario: Self.sticker) { h in
            try await h.request("write", #"{"id":"now","records":[{"uri":"https://example.com/now"}],"transaction":5}"#)
            let now = await h.final("write", id: "now")
            #expect(now.status == "ok", "\(now.payloadString ?? "")")
            #expect(now.data?["uid"] as? String == CommandAgentHarness.uid)
            #expect((now.data?["pages_written"] as? [Int])?.isEmpty == false)
            #expect(now.object?["transaction"] as? Int == 5)
            #expect(try h.ndef() == message(#"[{"uri":"https://example.com/now"}]"#))

            try h.control(["cmd": "remove", "id": "sticker"])
            _ = await h.next { $0.topic == "nfc/e2e/event/removed" }
            try await h.request("write", #"{"id":"next","records":[{"text":"next tag"}],"wait_for_tag_s":60}"#)
            let waiting = await h.any("write", id: "next")
            #expect(waiting.status == "waiting")
            try h.control(["cmd": "place", "id": "other"])
            let next = await h.final("write", id: "next")
            #expect(next.status == "ok", "\(next.payloadString ?? "")")
            #expect(next.data?["uid"] as? String == "04112233445566")
            #expect(try h.ndef("other") == message(#"[{"text":"next tag"}]"#))
        }
    }

    @Test func capacityVerifyAndRemovalFailures() async throws {
        try await withCommandAgent(scenario: Self.fresh, mode: .inProcess) { h in
            let before = try h.memory()
            let long = String(repeating: "x", count: 600)
            try await h.request("write", #"{"id":"big","records":[{"text":"\#(long)"}]}"#)
            let big = await h.final("write", id: "big")
            #expect(big.errorCode == "capacity_exceeded", "\(big.payloadString ?? "")")
            #expect(big.data?["pages_written"] as? [Int] == [])
            #expect(try h.memory() == before)

            try h.control(["cmd": "fault", "fault": "corrupt_next_write"])
            try await h.request("write", #"{"id":"verify","records":[{"uri":"https://example.com/verify"}]}"#)
            let verify = await h.final("write", id: "verify")
            #expect(verify.errorCode == "verify_failed", "\(verify.payloadString ?? "")")
            #expect((verify.data?["pages_written"] as? [Int])?.isEmpty == false)

            // Pulled after a few more frames: the writes have begun.
            try h.control(["cmd": "fault", "fault": "remove_after_commands", "id": "sticker", "count": 20])
            try await h.request("write", #"{"id":"pulled","records":[{"text":"\#(String(repeating: "y", count: 200))"}]}"#)
            let pulled = await h.final("write", id: "pulled")
            #expect(pulled.errorCode == "tag_removed", "\(pulled.payloadString ?? "")")
            #expect((pulled.data?["pages_written"] as? [Int])?.first == 4)
        }
    }

    @Test func lockIsRefusedWhenDisabled() async throws {
        try await withCommandAgent(scenario: Self.sticker) { h in
            let before = try h.memory()
            try await h.request("lock", #"{"id":"L","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F6"}"#)
            let refused = await h.final("lock", id: "L")
            #expect(refused.errorCode == "not_permitted")
            #expect(try h.memory() == before)
        }
    }

    @Test func lockNeedsConfirmationAndTheRightTagThenBlocksWrites() async throws {
        try await withCommandAgent(scenario: Self.sticker, lockEnabled: true) { h in
            let before = try h.memory()
            try await h.request("lock", #"{"id":"noconfirm","uid":"04A1B2C3D4E5F6"}"#)
            #expect(await h.final("lock", id: "noconfirm").errorCode == "invalid_request")
            // `wait_for_tag_s: 0` asks about the tag the agent has already seen: wait for its scan first, or
            // under load the request can come before it and answer no_tag instead of tag_mismatch.
            _ = await h.next { $0.topic == "nfc/e2e/event/scanned" }
            try await h.request("lock", #"{"id":"wrong","uid":"04112233445566","confirm":"04112233445566","wait_for_tag_s":0}"#)
            #expect(await h.final("lock", id: "wrong").errorCode == "tag_mismatch")
            #expect(try h.memory() == before)

            try await h.request("lock", #"{"id":"right","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F6"}"#)
            let locked = await h.final("lock", id: "right")
            #expect(locked.status == "ok", "\(locked.payloadString ?? "")")
            #expect(Array(try h.memory()[12..<16]) == [0xE1, 0x10, 0x3E, 0x0F])
            let event = await h.next { $0.topic == "nfc/e2e/event/lock" && $0.object?["id"] as? String == "right" }
            #expect(event.object?["status"] as? String == "ok")
            #expect(event.object?["uid"] as? String == CommandAgentHarness.uid)

            try await h.request("write", #"{"id":"late","ndef_hex":"D00000"}"#)
            #expect(await h.final("write", id: "late").errorCode == "tag_locked")
        }
    }

    @Test func expiryDuplicatesCancelAndBusy() async throws {
        try await withCommandAgent(scenario: Self.sticker) { h in
            try await h.request("write", #"{"id":"old","ndef_hex":"D00000","expires_at":"2020-01-01T00:00:00Z"}"#)
            #expect(await h.final("write", id: "old").errorCode == "expired")
            #expect(try h.ndef() == message(#"[{"uri":"https://example.com/old"}]"#))

            try await h.request("write", #"{"id":"once","records":[{"text":"once"}]}"#)
            let first = await h.final("write", id: "once")
            #expect(first.status == "ok")
            try h.control(["cmd": "remove", "id": "sticker"])
            _ = await h.next { $0.topic == "nfc/e2e/event/removed" }
            try h.control(["cmd": "place", "id": "other"])
            _ = await h.next { $0.topic == "nfc/e2e/event/scanned" && $0.payloadString?.contains("04112233445566") == true }
            // The same id again: the first result, and the tag now in the field is left alone.
            try await h.request("write", #"{"id":"once","records":[{"text":"once"}]}"#)
            let again = await h.final("write", id: "once")
            // The first answer again, field for field, plus `"replayed":true` (issue 10): nothing was done again.
            var replayed = try #require(again.object)
            #expect(replayed.removeValue(forKey: "replayed") as? Bool == true)
            #expect(try JSONSerialization.data(withJSONObject: replayed, options: [.sortedKeys])
                == JSONSerialization.data(withJSONObject: try #require(first.object), options: [.sortedKeys]))
            #expect(first.object?["replayed"] == nil)
            #expect(try h.ndef("other") == "")

            try h.control(["cmd": "remove", "all": true])
            _ = await h.next { $0.topic == "nfc/e2e/event/removed" }
            try await h.request("format", #"{"id":"waiting","wait_for_tag_s":120}"#)
            #expect(await h.any("format", id: "waiting").status == "waiting")
            try await h.request("format", #"{"id":"waiting"}"#)
            #expect(await h.final("format", id: "waiting").errorCode == "duplicate")
            for n in 1...8 { try await h.request("format", #"{"id":"queued\#(n)","wait_for_tag_s":120}"#) }
            try await h.request("format", #"{"id":"overflow"}"#)
            #expect(await h.final("format", id: "overflow").errorCode == "busy")

            try await h.request("cancel", #"{"id":"queued3"}"#)
            let canceledQueued = await h.final("cancel", id: "queued3")
            #expect(canceledQueued.data?["state"] as? String == "queued")
            #expect(await h.final("format", id: "queued3").errorCode == "canceled")
            try await h.request("cancel", #"{"id":"waiting"}"#)
            #expect(await h.final("cancel", id: "waiting").data?["state"] as? String == "waiting")
            #expect(await h.final("format", id: "waiting").errorCode == "canceled")
            // The next in line waits now; a tag formats it and the rest in order.
            #expect(await h.any("format", id: "queued1").status == "waiting")
            try h.control(["cmd": "place", "id": "other"])
            for n in [1, 2, 4, 5, 6, 7, 8] {
                #expect(await h.final("format", id: "queued\(n)").status == "ok")
            }
        }
    }

    @Test func malformedRequestsAreRefusedAndTheAgentKeepsGoing() async throws {
        try await withCommandAgent(scenario: Self.sticker) { h in
            try await h.client.publish(to: "nfc/e2e/request/write", text: "{not json", qos: .atLeastOnce)
            let bad = await h.next { $0.topic == "nfc/e2e/response/write" }
            #expect(bad.errorCode == "invalid_request")
            try await h.request("write", #"{"id":"typo","records":[{"uri":"https://example.com"}],"wait_for_tag":3}"#)
            let typo = await h.final("write", id: "typo")
            #expect(typo.errorCode == "invalid_request")
            #expect(typo.errorMessage?.hasPrefix("wait_for_tag:") == true)
            try await h.request("write", #"{"id":"badrecord","records":[{"uri":5}]}"#)
            let badRecord = await h.final("write", id: "badrecord")
            #expect(badRecord.errorMessage?.hasPrefix("records[0].uri") == true)
            try await h.request("explode", #"{"id":"x"}"#)
            #expect(await h.final("explode", id: "x").errorCode == "unknown_command")
            let huge = #"{"id":"huge","ndef_hex":"D00000","pad":"\#(String(repeating: "z", count: 300 * 1024))"}"#
            try await h.client.publish(to: "nfc/e2e/request/write", text: huge, qos: .atLeastOnce)
            let tooBig = await h.next { $0.topic == "nfc/e2e/response/write" && $0.errorMessage?.contains("over the limit") == true }
            #expect(tooBig.errorCode == "invalid_request")
            // dump: partial is strict and only for the fixed-offset formats; a format MQTT gained with the
            // shared export table (pm3json) answers on the same agent.
            try await h.request("dump", #"{"id":"px","format":"hex","partial":true}"#)
            let partialHex = await h.final("dump", id: "px")
            #expect(partialHex.errorCode == "invalid_request")
            #expect(partialHex.errorMessage?.hasPrefix("partial: applies to format pm3, pm3json, eml, mfd and mfd64 only") == true)
            try await h.request("dump", #"{"id":"ps","format":"mfd","partial":"yes"}"#)
            #expect(await h.final("dump", id: "ps").errorMessage == "partial: must be true or false")
            try await h.request("dump", #"{"id":"pj","format":"pm3json"}"#)
            let pm3json = await h.final("dump", id: "pj")
            #expect(pm3json.status == "ok", "\(pm3json.payloadString ?? "")")
            #expect(pm3json.data?["content_type"] as? String == "application/json")
            #expect((pm3json.data?["file_name"] as? String)?.hasSuffix("-proxmark3.json") == true, "\(pm3json.payloadString ?? "")")
            let pm3file = (pm3json.data?["file"] as? String).flatMap { Data(base64Encoded: $0) }
            let document = try pm3file.flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            #expect(document?["FileType"] as? String == "mfu", "\(pm3json.payloadString ?? "")")
            try await h.request("write", #"{"id":"fine","ndef_hex":"D00000"}"#)
            #expect(await h.final("write", id: "fine").status == "ok")
        }
    }

    @Test func mqtt5CorrelationAndTheV311ID() async throws {
        try await withCommandAgent(scenario: Self.sticker) { v5 in
            try await v5.request("dump", #"{"id":"d","format":"flipper"}"#, responseTopic: "replies/me", correlation: [0xC0, 0xFF, 0xEE])
            let reply = await v5.final("dump", id: "d", topic: "replies/me")
            #expect(reply.status == "ok", "\(reply.payloadString ?? "")")
            #expect(reply.properties.correlationData == [0xC0, 0xFF, 0xEE])
            let file = (reply.data?["file"] as? String).flatMap { Data(base64Encoded: $0) }
            #expect(file.map { String(decoding: $0, as: UTF8.self).hasPrefix("Filetype: Flipper NFC device") } == true)
            #expect(v5.all(on: "nfc/e2e/response/dump").isEmpty)
        }

        try await withCommandAgent(scenario: Self.sticker, mode: .inProcess, clientProtocol: .v311) { v3 in
            try await v3.request("dump", #"{"id":"d3"}"#)
            let json = await v3.final("dump", id: "d3")
            #expect(json.status == "ok")
            #expect((json.data?["dump"] as? [String: Any])?["uid"] as? String == CommandAgentHarness.uid)
        }
    }

    /// Leaves the retained request `{"id":"stale",…}` on `request/write`, as a client that is gone did.
    static func leaveStaleRetainedWrite(on broker: MosquittoBroker) async throws {
        try await MQTTClient.withConnection(MQTTConfiguration(url: broker.url, clientID: "e2e-stale")) { stale in
            try await stale.publish(
                to: "nfc/e2e/request/write", text: #"{"id":"stale","records":[{"text":"stale"}]}"#, qos: .atLeastOnce,
                retain: true)
        }
    }

    @Test func retainedRequestsAreIgnored() async throws {
        try await withCommandAgent(scenario: Self.sticker, before: { broker in
            // Left on the broker before the agent subscribes: delivered to it with the retain flag.
            try await Self.leaveStaleRetainedWrite(on: broker)
        }) { h in
            try await h.request("write", #"{"id":"live","records":[{"text":"live"}]}"#)
            #expect(await h.final("write", id: "live").status == "ok")
            #expect(h.all(on: "nfc/e2e/response/write").allSatisfy { $0.object?["id"] as? String == "live" })
            #expect(try h.ndef() == message(#"[{"text":"live"}]"#))

            // Published retained while the agent is subscribed: mosquitto clears the retain flag for live
            // subscribers unless the subscription asks for Retain As Published (MQTT 5 §3.8.3.1).
            try await h.client.publish(
                to: "nfc/e2e/request/write", text: #"{"id":"stale-live","records":[{"text":"stale"}]}"#, qos: .atLeastOnce,
                retain: true)
            try await h.request("write", #"{"id":"live-2","records":[{"text":"live 2"}]}"#)
            #expect(await h.final("write", id: "live-2").status == "ok")
            let answered = h.all(on: "nfc/e2e/response/write").compactMap { $0.object?["id"] as? String }
            #expect(!answered.contains("stale-live"), "\(answered)")
            #expect(try h.ndef() == message(#"[{"text":"live 2"}]"#))
        }
    }

    /// Two tags placed together, both scanned: a request naming the later arrival (the one the
    /// retained `tag` shows) acts on it; one naming none is refused with `several_tags`.
    @Test func withTwoTagsTheNamedOneIsWrittenAndAnUnnamedRequestIsRefused() async throws {
        let twoTags = """
            tags:
              - {id: a, type: ntag215, uid: 04A1A1A1A1A1A1, ndef: [{uri: https://a.example}]}
              - {id: b, type: ntag215, uid: 04B2B2B2B2B2B2, ndef: [{uri: https://b.example}]}
            timeline: [{at: 0, place: a}, {at: 0, place: b}]
            """
        try await withCommandAgent(scenario: twoTags, extraConfiguration: "dump: {on_scan: true}") { h in
            // A tag's dump follows its hand-over to the commands: both are present for a request.
            for uid in ["04A1A1A1A1A1A1", "04B2B2B2B2B2B2"] {
                _ = await h.next { $0.topic == "nfc/e2e/event/dump" && $0.object?["uid"] as? String == uid }
            }
            let a = try h.memory("a")
            try await h.request("write", #"{"id":"b","uid":"04B2B2B2B2B2B2","records":[{"uri":"https://b.example/new"}],"wait_for_tag_s":0}"#)
            let named = await h.final("write", id: "b")
            #expect(named.status == "ok", "\(named.payloadString ?? "")")
            #expect(named.data?["uid"] as? String == "04B2B2B2B2B2B2")
            #expect(try h.ndef("b") == message(#"[{"uri":"https://b.example/new"}]"#))
            #expect(try h.memory("a") == a)

            let b = try h.memory("b")
            try await h.request("write", #"{"id":"none","records":[{"uri":"https://guess.example"}],"wait_for_tag_s":0}"#)
            let unnamed = await h.final("write", id: "none")
            #expect(unnamed.errorCode == "several_tags", "\(unnamed.payloadString ?? "")")
            #expect(try h.memory("a") == a)
            #expect(try h.memory("b") == b)
        }
    }
}
