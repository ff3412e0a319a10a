import Foundation
import NFCCore
import Synchronization
import Testing
import TestSupport

/// `request/job` end to end: `nfcbridge run` with the real libnfc against `nfcbridge-sim` and a real
/// mosquitto — a 50-tag roll with one tag pulled away mid-write, one shown twice, the agent SIGKILLed
/// mid-job and started again: every serial issued once, the torn tag reported, nothing encoded twice
/// (docs/tagging-station.md).
@Suite(.serialized) struct EncodeMQTTTests {
    static let count = 50
    static let root = CommandAgentHarness.root

    static func uid(_ n: Int) -> String { String(format: "04000000000B%02X", n) }

    static var scenario: String {
        "tags:\n" + (1...count).map { "  - {id: t\($0), type: ntag213, uid: \(uid($0))}\n" }.joined() + "timeline: []\n"
    }

    /// The event/job events seen (by event_id: a spooled copy sent again after the restart is the same event).
    final class Seen: Sendable {
        let ids = Mutex<Set<String>>([])
    }

    /// Places tag `n`, waits for its `event/job`, takes it away; the event.
    static func show(_ n: Int, _ h: CommandAgentHarness, seen: Seen, arm: [String: Any]? = nil) async throws -> [String: Any]? {
        try h.control(["cmd": "place", "id": "t\(n)"])
        if let arm { try h.control(arm) }
        let event = await nextEvent(uid: uid(n), h, seen: seen)
        try h.control(["cmd": "remove", "id": "t\(n)"])
        return event
    }

    static func nextEvent(uid: String, _ h: CommandAgentHarness, seen: Seen) async -> [String: Any]? {
        let message = await h.next { message in
            guard message.topic == "\(root)/event/job", let object = message.object, object["uid"] as? String == uid,
                let id = object["event_id"] as? String
            else { return false }
            return seen.ids.withLock { $0.insert(id).inserted }
        }
        return message.object
    }

    /// Waits until the journal holds tag `n`'s `issue` line (its serial is in hand, the write begins).
    static func waitForIssue(of n: Int, in journal: String) async throws {
        let issued = "\"uid\":\"\(uid(n))\""
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !((try? String(contentsOfFile: journal, encoding: .utf8))?.contains(issued) ?? false) {
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func aFiftyTagRollWithAPulledTagATagShownTwiceAndASIGKILLIssuesEverySerialOnce() async throws {
        // Each tag's write comes after the removal of the one lifted as it was placed (the agent's log):
        // that waits for the removal grace (600 ms by default, 150 here) from a presence check (every
        // 250 ms by default, 50 here). 41.6 s with the defaults, 12.4 s so.
        let presence = "{removal_grace_ms: 150, min_interval_ms: 0}"
        try await withCommandAgent(scenario: Self.scenario, intervalMilliseconds: 50, presence: presence) { h in
            let seen = Seen()
            let start = #"{"id":"s1","action":"start","job":"roll","template":[{"uri":"https://ex.com/t/{serial:06d}"}],"serials":{"start":1000,"count":50}}"#
            try await h.request("job", start)
            let started = await h.final("job", id: "s1")
            #expect(started.status == "ok" && started.data?["state"] as? String == "running", "\(started.payloadString ?? "")")
            // One job at a time per reader: a write is busy meanwhile, a second job too.
            try await h.request("write", #"{"id":"w1","records":[{"text":"x"}],"wait_for_tag_s":0}"#)
            #expect(await h.final("write", id: "w1").errorCode == "busy")
            try await h.request("job", #"{"id":"s2","job":"other","template":[{"uri":"https://x/{serial}"}],"serials":{"start":1,"count":1}}"#)
            #expect(await h.final("job", id: "s2").errorCode == "busy")

            for n in 1...10 {
                let event = try await Self.show(n, h, seen: seen)
                #expect(event?["result"] as? String == "ok" && event?["serial"] as? String == "\(999 + n)", "\(String(describing: event))")
                #expect(event?["job"] as? String == "roll" && event?["n"] as? Int == n && event?["ms"] is Int)
            }
            let twice = try await Self.show(2, h, seen: seen)
            #expect(twice?["result"] as? String == "duplicate" && twice?["serial"] as? String == "1001")
            // Tag 11 pulled away once its serial is journalled as issued (the agent's own scan and presence
            // checks reach the tag too, so the fault is armed then: two more commands, mid-write).
            let journal = h.run.folder.path + "/state/jobs/roll.journal"
            try h.control(["cmd": "place", "id": "t11"])
            try await Self.waitForIssue(of: 11, in: journal)
            try h.control(["cmd": "fault", "fault": "remove_after_commands", "id": "t11", "count": 2])
            let pulled = await Self.nextEvent(uid: Self.uid(11), h, seen: seen)
            try h.control(["cmd": "remove", "id": "t11"])
            #expect(pulled?["serial"] as? String == "1010", "\(String(describing: pulled))")
            let pulledInTime = pulled?["result"] as? String == "torn"
            if pulledInTime { #expect(pulled?["code"] as? String == "tag_removed") }

            // SIGKILL once tag 12's serial is journalled as issued.
            try h.control(["cmd": "place", "id": "t12"])
            try await Self.waitForIssue(of: 12, in: journal)
            h.run.killAgent()
            let killedJournal = try String(contentsOfFile: journal, encoding: .utf8)
            let tornByKill = killedJournal.split(separator: "\n").last?.contains("done") == false
            try h.run.startAgent()
            if tornByKill {
                let torn = await Self.nextEvent(uid: Self.uid(12), h, seen: seen)
                #expect(torn?["result"] as? String == "torn" && torn?["code"] as? String == "interrupted")
            }
            let twelve = await Self.nextEvent(uid: Self.uid(12), h, seen: seen)
            // The first run's `ok` for tag 12 may come before the new run subscribed to its requests: the
            // pause below waits for it to say `online` (it subscribes first), or the broker drops it.
            _ = await h.next { $0.topic == "\(Self.root)/status" && $0.payloadString == "online" }
            // Finished after the restart (ok); or the first run had finished it before the kill: then
            // the next event is that run's own `ok` (journalled `done`, published, then killed) or,
            // when it did not get out, the new run's `duplicate`. The serial is 1011 either way.
            let expected: Set<String> = tornByKill ? ["ok"] : ["ok", "duplicate"]
            #expect(
                twelve?["serial"] as? String == "1011" && expected.contains(twelve?["result"] as? String ?? ""),
                "\(String(describing: twelve)); torn by the kill: \(tornByKill)")
            try h.control(["cmd": "remove", "id": "t12"])

            try await h.request("job", #"{"id":"p1","action":"pause"}"#)
            #expect(await h.final("job", id: "p1").data?["state"] as? String == "paused")
            try await h.request("job", #"{"id":"r1","action":"resume","job":"roll"}"#)
            #expect(await h.final("job", id: "r1").data?["state"] as? String == "running")

            for n in 13...20 { #expect(try await Self.show(n, h, seen: seen)?["result"] as? String == "ok") }
            let back = try await Self.show(11, h, seen: seen)
            #expect(back?["serial"] as? String == "1010")
            #expect(back?["result"] as? String == (pulledInTime ? "ok" : "duplicate") && back?["resumed"] as? Bool == pulledInTime)
            for n in 21...Self.count { #expect(try await Self.show(n, h, seen: seen)?["result"] as? String == "ok") }

            let final = await h.next { message in
                message.topic == "\(Self.root)/job" && message.object?["state"] as? String == "finished"
            }
            #expect(final.object?["done"] as? Int == Self.count && final.object?["remaining"] as? Int == 0, "\(final.payloadString ?? "")")
            #expect(final.object?["torn"] as? Int == 0 && final.object?["failed"] as? Int == 0)

            // Every tag holds exactly one serial; every serial is on exactly one tag.
            var serials: [Int] = []
            for n in 1...Self.count {
                let message = NFCForumTLV.extractMessage(fromMemory: try h.memory("t\(n)"))
                let serial = try (1000..<(1000 + Self.count)).first { serial in
                    try NDEFMessage(records: [.uri(String(format: "https://ex.com/t/%06d", serial))]).bytes == message
                }
                #expect(serial != nil, "t\(n) holds \(message?.hexString ?? "nothing")")
                if let serial { serials.append(serial) }
            }
            #expect(serials.sorted() == Array(1000..<(1000 + Self.count)))
        }
    }

    /// The retained `job` goes out again with the rest of the retained state on a new connection
    /// (review stop 40: a broker restarted without persistence had `reader`, `tag`, `status`, `info`
    /// and `health` again, but no `job`, and Home Assistant's job sensors went unknown).
    @Test func theRetainedJobStateIsPublishedAgainOnABrokerThatForgotIt() async throws {
        let scenario = "tags:\n  - {id: t1, type: ntag213, uid: \(Self.uid(1))}\ntimeline: []\n"
        try await withCommandAgent(scenario: scenario, intervalMilliseconds: 50, presence: "{removal_grace_ms: 150, min_interval_ms: 0}") { h in
            let topic = "\(Self.root)/job"
            let start = #"{"id":"s1","action":"start","job":"one","template":[{"uri":"https://ex.com/t/{serial}"}],"serials":{"start":7,"count":1}}"#
            try await h.request("job", start)
            #expect(await h.final("job", id: "s1").status == "ok")
            try h.control(["cmd": "place", "id": "t1"])
            let finished = await h.next { $0.topic == topic && $0.object?["state"] as? String == "finished" }
            #expect(finished.object?["done"] as? Int == 1, "\(finished.payloadString ?? "")")
            // Without persistence the broker forgets every retained message.
            h.broker.stop()
            try h.broker.start()
            let again = await h.next { $0.topic == topic && $0.object?["state"] as? String == "finished" }
            #expect(again.object?["job"] as? String == "one" && again.object?["done"] as? Int == 1, "\(again.payloadString ?? "")")
        }
    }
}
