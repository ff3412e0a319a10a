import Foundation
import MQTTClient
import Testing
import TestSupport

/// `nfcbridge run` end to end, one tag of every type the simulator makes: `scanned` then `removed`
/// with the payloads docs/mqtt.md promises, through real libnfc and a real Mosquitto.
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentE2ETagTypesTests {
    /// `product` for the tags whose product the scan can tell (GET_VERSION, FeliCa PMm); the others
    /// (Ultralight, Ultralight C, NTAG203, Classic, Type 4) carry none.
    static let products: [String: String] = [
        "ultralight_ev1_11": "Ultralight EV1 MF0UL11", "ultralight_ev1_21": "Ultralight EV1 MF0UL21",
        "ntag210": "NTAG210", "ntag212": "NTAG212", "ntag213": "NTAG213", "ntag215": "NTAG215", "ntag216": "NTAG216",
        "felica_lite_s": "FeliCa Lite-S (RC-S966)",
    ]

    /// A phone's random ID: a 4-byte UID starting 08 (ISO/IEC 14443-3).
    static let phone = ScanCommandTests.Case(
        kind: "classic_1k", cardType: "MIFARE Classic 1K", cardFamily: "MIFARE Classic", atqa: "0004", sak: "08")

    @Test func everyTagTypeIsScannedThenRemovedWithItsPayload() async throws {
        let definitions =
            ScanCommandTests.cases.map { ScanCommandTests.tagDefinition(kind: $0.kind, id: $0.kind) }
            + ["{id: phone, type: classic_1k, uid: 08A1B2C3}"]
        let options = AgentRun.Options(
            scenario: "tags:\n" + definitions.map { "  - \($0)" }.joined(separator: "\n"),
            presence: "{removal_grace_ms: 150, min_interval_ms: 0}")
        try await withAgentRun(options) { run in
            let (simulator, watcher, agent) = (run.simulator, run.watcher, run.agent)
            let listed = try #require(try simulator.expectOK(["cmd": "list"])["tags"] as? [[String: Any]])
            var uids: [String: String] = [:]
            for tag in listed { uids[tag["id"] as? String ?? ""] = tag["uid"] as? String }

            await watcher.next("reader") { $0["state"] as? String == "ok" }

            let tags = ScanCommandTests.cases.map { (id: $0.kind, expected: $0) } + [(id: "phone", expected: Self.phone)]
            for (id, expected) in tags {
                let uid = try #require(uids[id])
                let before = watcher.lastIndex
                let placedAt = ContinuousClock.now
                try simulator.place(id)
                let (scannedAt, scanned, message) = await watcher.next("event/scanned", after: before)
                expectEnvelope(scanned, type: "scanned")
                #expect(message.qos == .atLeastOnce && !message.retain, "\(id): events are QoS 1, never retained")
                #expect(message.properties.contentType == "application/json")
                #expect(scanned["uid"] as? String == uid, "\(id): \(scanned)")
                #expect(scanned["cardType"] as? String == expected.cardType, "\(id): \(scanned)")
                #expect(scanned["cardFamily"] as? String == expected.cardFamily, "\(id): \(scanned)")
                #expect(scanned["product"] as? String == Self.products[id], "\(id): \(scanned)")
                #expect(scanned["atqa"] as? String == expected.atqa, "\(id): \(scanned)")
                #expect(scanned["sak"] as? String == expected.sak, "\(id): \(scanned)")
                #expect(scanned["random_uid"] as? Bool == (id == "phone"), "\(id): \(scanned)")
                #expect(scanned["tag_id"] as? String == uid, "\(id): no Home Assistant URI, so the tag id is the UID")
                if let prefix = expected.versionPrefix {
                    #expect((scanned["version"] as? String)?.hasPrefix(prefix) == true, "\(id): \(scanned)")
                }
                if id == "type4" { #expect(scanned["ats"] as? String != nil, "\(scanned)") }
                if id == "felica_lite_s" {
                    #expect(scanned["systemCode"] as? String == "88B4", "\(scanned)")
                    #expect((scanned["pmm"] as? String)?.count == 16, "\(scanned)")
                }
                if let value = expected.ndefValue {
                    let ndef = scanned["ndef"] as? [String: Any]
                    let record = (ndef?["records"] as? [[String: Any]])?.first
                    #expect(record?["uri"] as? String == value || record?["text"] as? String == value, "\(id): \(scanned)")
                    #expect((ndef?["hex"] as? String)?.isEmpty == false, "\(id): \(scanned)")
                }
                let (_, present, _) = await watcher.next("tag", after: scannedAt) { $0["present"] as? Bool == true }
                #expect(present["uid"] as? String == uid)
                #expect(present["cardType"] as? String == expected.cardType)
                #expect(present["since"] as? String == scanned["ts"] as? String, "one arrival, one time: \(present) \(scanned)")

                try simulator.remove(id)
                let (removedAt, removed, _) = await watcher.next("event/removed", after: scannedAt)
                let elapsed = placedAt.duration(to: .now)
                expectEnvelope(removed, type: "removed")
                #expect(removed["uid"] as? String == uid, "\(id): \(removed)")
                // From the first to the last time the tag was seen: inside the time it spent in the field.
                let presentMilliseconds = removed["present_ms"] as? Int ?? -1
                #expect(presentMilliseconds >= 0 && presentMilliseconds <= elapsed.components.seconds * 1000 + 1000, "\(removed)")
                await watcher.next("tag", after: removedAt) { $0["present"] as? Bool == false }
            }

            let (_, health, _) = await watcher.next("health", after: try await watcher.homeAssistantBirth())
            #expect((health["scans"] as? [String: Any])?["total"] as? Int == tags.count, "\(health)")
            #expect((health["reader"] as? [String: Any])?["reopens"] as? Int == 0, "\(health)")
            #expect((health["spool"] as? [String: Any])?["depth"] as? Int == 0, "\(health)")

            let lastEvent = watcher.lastIndex
            agent.expectCleanStop()
            await watcher.status("offline", after: lastEvent)

            // Every tap was scanned, then removed, in order; seq counts up by one without a gap.
            let events = watcher.events
            #expect(events.map { $0["type"] as? String } == Array(repeating: ["scanned", "removed"], count: tags.count).flatMap { $0 })
            #expect(events.map { $0["uid"] as? String } == tags.flatMap { [uids[$0.id], uids[$0.id]] })
            #expect(sequenceNumbers(events) == Array(1...(2 * tags.count)))
            let ids = events.compactMap { $0["event_id"] as? String }
            #expect(Set(ids).count == events.count, "event ids are unique")
            #expect(ids == ids.sorted(), "event ids sort by time")
            let times = events.compactMap { $0["ts"] as? String }
            #expect(times == times.sorted(), "ts never goes back")
        }
    }
}

extension AgentE2ETagTypesTests {
    /// The poster leaves the field after 2, 3, … 6 commands reached it — during identification or
    /// its NDEF read, wherever the scanner happens to be then. Whatever it got to, the tap is
    /// reported: `scanned` (with what is known, no `ndef` when the read was cut) then `removed`,
    /// preceded by `error` (op `scan`, `tag_removed`) when the scan was cut short.
    @Test func aTagLeavingMidReadIsStillReported() async throws {
        let scenario = """
            tags:
              - {id: holder, type: classic_1k, uid: 01020304}
              - {id: poster, type: ntag215, uid: 04A1B2C3D4E5F6, ndef: [{uri: 'https://example.com/poster'}]}
            """
        try await withAgentRun(.init(scenario: scenario)) { run in
            let (simulator, watcher, agent) = (run.simulator, run.watcher, run.agent)
            let poster = "04A1B2C3D4E5F6"

            var cutShort = 0
            for commands in 2...6 {
                // While `holder` rests on the reader the agent only checks its presence, so the poster
                // and its fault are both in place before the poll that finds the poster.
                let start = watcher.lastIndex
                try simulator.place("holder")
                await watcher.next("event/scanned", after: start) { $0["uid"] as? String == "01020304" }
                try simulator.place("poster")
                try simulator.expectOK(["cmd": "fault", "fault": "remove_after_commands", "id": "poster", "count": commands])
                try simulator.remove("holder")
                let (removedAt, _, _) = await watcher.next("event/removed", after: start) { $0["uid"] as? String == poster }
                await watcher.next("event/removed", after: start) { $0["uid"] as? String == "01020304" }

                let round = watcher.seen.received[(start + 1)...removedAt].filter { $0.topic.hasPrefix("\(e2eRoot)/event/") }
                    .map(\.json).filter { $0["uid"] as? String == poster }
                let types = round.map { $0["type"] as? String ?? "?" }
                let scanned = round.first { $0["type"] as? String == "scanned" } ?? [:]
                #expect(scanned["atqa"] as? String == "0044" && scanned["sak"] as? String == "00", "\(commands): \(scanned)")
                if types == ["error", "scanned", "removed"] {
                    cutShort += 1
                    #expect(round[0]["op"] as? String == "scan", "\(commands): \(round[0])")
                    #expect((round[0]["error"] as? [String: Any])?["code"] as? String == "tag_removed", "\(commands): \(round[0])")
                    // The access checks could not finish; the tag left during them (after its NDEF was
                    // read: the message stands) or before (during the NDEF read: no message), or even
                    // during identification (then the tap has only what anticollision gave, no `trust`).
                    if let trust = scanned["trust"] as? [String: Any] {
                        #expect(trust["reason"] as? String == "check_interrupted", "\(commands): \(scanned)")
                    } else {
                        #expect(scanned["cardType"] as? String == "Unknown (ATQA: 0044, SAK: 00)", "\(commands): \(scanned)")
                    }
                    if let ndef = scanned["ndef"] as? [String: Any] {
                        let records = ndef["records"] as? [[String: Any]]
                        #expect(records?.first?["uri"] as? String == "https://example.com/poster", "\(commands): \(scanned)")
                    }
                    let cardType = scanned["cardType"] as? String
                    #expect(cardType == "NTAG215" || cardType == "Unknown (ATQA: 0044, SAK: 00)", "\(commands): \(scanned)")
                } else {
                    #expect(types == ["scanned", "removed"], "\(commands): \(round)")
                    let records = (scanned["ndef"] as? [String: Any])?["records"] as? [[String: Any]]
                    #expect(records?.first?["uri"] as? String == "https://example.com/poster", "\(commands): \(scanned)")
                }
            }
            #expect(cutShort > 0, "some fault cut a scan short")
            // A tag leaving is no reader problem.
            #expect(!watcher.seen.received.contains { $0.topic == "\(e2eRoot)/reader" && $0.json["state"] as? String == "error" })

            agent.expectCleanStop()
            #expect(sequenceNumbers(watcher.events) == Array(1...watcher.events.count))
        }
    }
}
