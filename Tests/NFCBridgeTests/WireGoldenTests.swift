import Foundation
import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// The MQTT wire, byte for byte: one agent (in-process harness, ``InMemoryPublisher``, hand-driven
/// clock, pinned event ids, the real NFCCore scanner and command executor on a virtual NTAG215)
/// goes through every event kind, a response of every command and of most error codes, every
/// retained state topic, the Home Assistant discovery documents and a spool replay. Each captured
/// message (topic, QoS, retain flag, correlation data and payload) is compared with the bytes
/// recorded in ``WireGolden`` — recorded from the code before the payloads became `Codable` models.
///
/// Four things vary between runs and are replaced before comparing (and only these): the temporary
/// state directory (`<state_dir>`), the resident set size in `health` (`"rss_bytes":<rss>`), the
/// agent version (`<version>`) and `unacked_s` in the health report of the reconnect (see ``Transcript/add(_:_:)``). To record afresh, run with `NFCBRIDGE_GOLDEN_OUT=<file>`: the
/// captured transcript is written there in the form of `WireGolden.swift` (and the test still compares).
@Suite(.timeLimit(.minutes(1))) struct WireGoldenTests {
    /// Event ids from a counter: the n-th event gets the ULID of its date with every random byte = n.
    final class PinnedEventIDs: Sendable {
        struct Repeating: RandomNumberGenerator {
            var value: UInt64
            mutating func next() -> UInt64 { value }
        }
        private let counter = Mutex<UInt64>(0)
        func make(_ date: Date) -> String {
            let n = counter.withLock { c -> UInt64 in
                c += 1
                return c
            }
            var generator = Repeating(value: n &* 0x0101_0101_0101_0101)
            return EventID.make(at: date, using: &generator)
        }
    }

    /// The transcript being captured: labelled messages in capture order.
    final class Transcript: Sendable {
        let entries = Mutex<[(label: String, text: String)]>([])
        let stateDirectory: String

        init(stateDirectory: String) { self.stateDirectory = stateDirectory }

        func add(_ label: String, _ message: OutboundMessage) {
            var text = Self.render(message, stateDirectory: stateDirectory)
            // At the reconnect, a retained state publish the reader's own task queued as the link came
            // back (the tag leaving) may be on its way when the connect makes its health report:
            // `unacked_s` is then 0, else null, and both are true. Only this report's value is masked.
            if label.hasPrefix("health (reconnect"),
                let range = text.range(of: #""unacked_s":(null|[0-9]+)"#, options: .regularExpression)
            {
                text.replaceSubrange(range, with: #""unacked_s":<0 or null>"#)
            }
            entries.withLock { $0.append((label, text)) }
        }

        static func render(_ message: OutboundMessage, stateDirectory: String) -> String {
            var payload = String(decoding: message.payload, as: UTF8.self)
            payload = payload.replacingOccurrences(of: stateDirectory, with: "<state_dir>")
            payload = payload.replacingOccurrences(of: #""version":"\#(NFCBridgeAgent.version)""#, with: #""version":"<version>""#)
            payload = payload.replacingOccurrences(of: #""sw_version":"\#(NFCBridgeAgent.version)""#, with: #""sw_version":"<version>""#)
            payload = payload.replacingOccurrences(of: #""sw":"\#(NFCBridgeAgent.version)""#, with: #""sw":"<version>""#)
            if let range = payload.range(of: #""rss_bytes":[0-9]+"#, options: .regularExpression) {
                payload.replaceSubrange(range, with: #""rss_bytes":<rss>"#)
            }
            let correlation = message.correlationData.map { " correlation=\($0.hexString)" } ?? ""
            return "\(message.topic) qos=\(message.qos.rawValue) retain=\(message.retain)\(correlation)\n\(payload)"
        }
    }

    let tagUID: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]

    @Test func everyPayloadOnTheWireIsByteForByteAsRecorded() async throws {
        let device = VirtualReaderDevice()
        device.failOpens(count: 1)
        let ids = PinnedEventIDs()
        let h = try AgentHarness(
            device: device, scanner: NFCCoreScanner(access: AccessPolicy()), eventIDs: EventIDMaker { ids.make($0) }
        ) { config in
            config.commands.lockEnabled = true
            config.dump.onScan = true
        }
        let transcript = Transcript(stateDirectory: h.directory.path)
        let p = h.publisher
        @discardableResult
        func take(_ label: String, after index: Int = -1, _ predicate: @escaping @Sendable (OutboundMessage) -> Bool) async -> Int {
            let (position, message) = await p.waitForMessage(after: index, where: predicate)
            transcript.add(label, message)
            return position
        }
        func on(_ topic: String, _ json: @escaping @Sendable (JSONValue) -> Bool = { _ in true }) -> @Sendable (OutboundMessage) -> Bool {
            { $0.topic == topic && ($0.json.map(json) ?? false) }
        }
        func text(_ topic: String, _ value: String) -> @Sendable (OutboundMessage) -> Bool {
            { $0.topic == topic && $0.text == value }
        }
        func request(_ command: String, _ json: String, responseTopic: String? = nil, correlation: [UInt8]? = nil) {
            p.deliver(
                InboundMessage(
                    topic: "nfc/test/request/\(command)", payload: Array(json.utf8), responseTopic: responseTopic,
                    correlationData: correlation))
        }
        /// The final response to `id` on `response/<command>`.
        @discardableResult
        func final(_ label: String, _ command: String, id: JSONValue) async -> Int {
            await take(label, on("nfc/test/response/\(command)") { $0["id"] == id && $0["status"] != "waiting" })
        }

        // Discovery goes out on connect, and again once the reader is known (its chip is the device's
        // hw_version): the connect may come first. The documents with the reader are recorded.
        let hasReader: @Sendable (JSONValue) -> Bool = { $0["device"]?["hw_version"] != nil }
        // Start-up: the reader fails once, then opens; everything retained goes out on connect.
        await take("event/error (reader open)", on("nfc/test/event/error"))
        await take("reader ok", on("nfc/test/reader") { $0["state"] == "ok" })
        await take("info with the reader", on("nfc/test/info") { $0["reader"] != .null })
        await take("status online", text("nfc/test/status", "online"))
        await take("discovery tag", on("homeassistant/tag/test/config", hasReader))
        await take("discovery event", on("homeassistant/event/test_nfc/config", hasReader))
        await take("discovery binary_sensor", on("homeassistant/binary_sensor/test_tag_present/config", hasReader))
        await take("discovery sensor", on("homeassistant/sensor/test_last_uid/config", hasReader))
        await take("tag absent", on("nfc/test/tag") { $0["present"] == false })

        // Commands refused before any tag acts.
        request("bogus", #"{"id":"u1"}"#)
        await take("response unknown_command", on("nfc/test/response/bogus"))
        request("write", #"{"id":"j1","records":"#)
        await take("response invalid_request (JSON)", on("nfc/test/response/write") { $0["error"]?["code"] == "invalid_request" })
        request("write", #"{"id":"j2","transaction":17,"records":[{"uri":"https://example.com"}],"wait_for_tag":3}"#)
        await final("response invalid_request (field, transaction)", "write", id: "j2")
        request("dump", #"{"id":"n1","wait_for_tag_s":0}"#)
        await final("response no_tag", "dump", id: "n1")
        request("format", #"{"id":"e1","expires_at":"2020-01-01T00:00:00Z"}"#)
        await final("response expired", "format", id: "e1")
        request("cancel", #"{"id":"nobody"}"#)
        await final("response cancel of an unknown id", "cancel", id: "nobody")
        request("format", #"{"id":7,"wait_for_tag_s":2.5}"#)
        await take("response waiting", on("nfc/test/response/format") { $0["id"] == 7 && $0["status"] == "waiting" })
        h.clock.advance(milliseconds: 2500)
        await final("response timeout", "format", id: 7)
        request("write", #"{"id":"d1","ndef_hex":"D00000"}"#)
        await take("response waiting (d1)", on("nfc/test/response/write") { $0["id"] == "d1" && $0["status"] == "waiting" })
        request("write", #"{"id":"d1","ndef_hex":"D00000"}"#)
        await take("response duplicate", on("nfc/test/response/write") { $0["id"] == "d1" && $0["error"]?["code"] == "duplicate" })
        request("cancel", #"{"id":"d1","transaction":"t"}"#)
        await final("response cancel ok", "cancel", id: "d1")
        await take("response canceled", on("nfc/test/response/write") { $0["id"] == "d1" && $0["error"]?["code"] == "canceled" })

        // A tag arrives: scanned, then its dump; the retained tag state.
        let tag = VirtualType2Tag(model: .ntag215, uid: tagUID)
        try tag.writeNDEF(
            try NDEFMessage(records: NDEFJSON.decodeRecords(Data(#"{"uri":"https://www.home-assistant.io/tag/front-door"}"#.utf8))).bytes)
        device.place(tag)
        await take("event/scanned", on("nfc/test/event/scanned"))
        await take("event/dump", on("nfc/test/event/dump"))
        await take("tag present", on("nfc/test/tag") { $0["present"] == true })

        // Commands on the tag.
        request("write", #"{"id":"w1","records":[{"uri":"https://example.com/a"},{"text":"hi","lang":"en"}]}"#)
        await final("response write ok", "write", id: "w1")
        request("write", #"{"id":"w1","transaction":"again","records":[{"uri":"https://example.com/a"}]}"#)
        await take("response repeated id (first result again)", on("nfc/test/response/write") { $0["transaction"] == "again" })
        request("write", #"{"id":"m1","uid":"04112233445566","ndef_hex":"D00000"}"#)
        await final("response tag_mismatch", "write", id: "m1")
        request("write", #"{"id":"big","records":[{"text":"\#(String(repeating: "x", count: 600))"}]}"#)
        await final("response capacity_exceeded", "write", id: "big")
        request("dump", #"{"id":"dj"}"#)
        await final("response dump json", "dump", id: "dj")
        request("dump", #"{"id":"df","format":"flipper"}"#, responseTopic: "client/replies", correlation: [0xC0, 0xFF])
        await take("response dump flipper (v5 response topic)", on("client/replies") { $0["id"] == "df" })
        request("format", #"{"id":"f1"}"#)
        await final("response format ok", "format", id: "f1")

        // Lock: refused confirm, then locked (response + audit event), then a write to the locked tag.
        request("lock", #"{"id":"L0","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F7"}"#)
        await final("response lock with a wrong confirm", "lock", id: "L0")
        request("lock", #"{"id":"L1","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F6","transaction":1}"#)
        await final("response lock ok", "lock", id: "L1")
        await take("event/lock", on("nfc/test/event/lock"))
        request("write", #"{"id":"w2","ndef_hex":"D00000"}"#)
        await final("response tag_locked", "write", id: "w2")

        // The tag leaves; a second one, password protected (AUTH0 = 4), comes: no password, then a wrong one.
        await h.removeAndPassGrace(tag)
        await take("event/removed", on("nfc/test/event/removed"))
        let protected = VirtualType2Tag(model: .ntag215, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        protected.setPassword([0x11, 0x22, 0x33, 0x44], pack: [0xAA, 0xBB])
        protected.setAuth0(4)
        device.place(protected)
        await h.waitFor(.scanned) { $0["uid"] == "04112233445566" }
        request("write", #"{"id":"p0","ndef_hex":"D00000"}"#)
        await final("response write without the password", "write", id: "p0")
        request("write", #"{"id":"p1","ndef_hex":"D00000","password":"DEADBEEF"}"#)
        await final("response write with a wrong password", "write", id: "p1")

        // Broker away: the removal is spooled; on reconnect everything retained goes out again, then
        // the replay (buffered: true). First everything queued goes out (the sender publishes
        // asynchronously: the tag state may still be on its way).
        await h.agent.pipeline.flush()
        let beforeOutage = p.published.count - 1
        p.setConnected(false)
        await h.removeAndPassGrace(protected)
        await h.agent.pipeline.waitUntil { $0.spooled >= 1 }
        await h.agent.pipeline.flush()
        p.setConnected(true)
        await take("status online (reconnect)", after: beforeOutage, text("nfc/test/status", "online"))
        await take("info (reconnect)", after: beforeOutage, on("nfc/test/info"))
        await take("reader (reconnect)", after: beforeOutage, on("nfc/test/reader"))
        await take("tag absent (reconnect)", after: beforeOutage, on("nfc/test/tag"))
        await take("health (reconnect, one event spooled)", after: beforeOutage, on("nfc/test/health"))
        await take("event/removed (replayed from the spool)", after: beforeOutage, on("nfc/test/event/removed"))

        // Shutdown: status offline, `tag` left as it was (no `off` before unavailable).
        let beforeStop = p.published.count - 1
        await h.stop()
        await take("status offline (stop)", after: beforeStop, text("nfc/test/status", "offline"))
        #expect(!p.published.dropFirst(beforeStop + 1).contains { $0.topic == "nfc/test/tag" }, "a clean stop leaves `tag` as it was")

        let captured = transcript.entries.withLock { $0 }
        if let path = ProcessInfo.processInfo.environment["NFCBRIDGE_GOLDEN_OUT"] {
            try Self.swiftSource(captured).write(toFile: path, atomically: true, encoding: .utf8)
        }
        let expected = WireGolden.messages
        #expect(captured.map(\.label) == expected.map(\.label))
        for (got, want) in zip(captured, expected) where got.label == want.label {
            #expect(Array(got.text.utf8) == Array(want.text.utf8), "\(got.label):\n got: \(got.text)\nwant: \(want.text)")
        }
    }

    /// The transcript as the source of `WireGolden.swift`.
    static func swiftSource(_ entries: [(label: String, text: String)]) -> String {
        var source = """
            // The MQTT wire as recorded by WireGoldenTests (see there): topic, QoS, retain flag, correlation data
            // and the payload, byte for byte. Recorded from the agent before its payloads became Codable models.

            enum WireGolden {
                static let messages: [(label: String, text: String)] = [

            """
        for (label, text) in entries {
            source += "        (\n            \"\(label)\",\n            #\"\"\"\n\(text)\n\"\"\"#\n        ),\n"
        }
        source += "    ]\n}\n"
        return source
    }
}
