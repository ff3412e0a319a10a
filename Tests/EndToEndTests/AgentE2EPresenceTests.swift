import Foundation
import MQTTClient
import Testing
import TestSupport

/// `nfcbridge run` end to end: how taps become `scanned` / `removed` in presence and repeat mode
/// (docs/mqtt.md "Presence"), on real libnfc and a real Mosquitto.
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentE2EPresenceTests {
    static let scenario = """
        tags:
          - {id: card, type: ntag213, uid: 04112233445566}
          - {id: badge, type: classic_1k, uid: DEADBEEF}
        """

    /// A broker, the simulator, a watcher and the agent with `presence` settings; `body` drives the
    /// field, then the agent is stopped (SIGTERM, exit 0, `offline`) and `check` sees every event.
    func run(
        presence: String, scenario: String = Self.scenario, _ body: (SimulatorProcess, Watcher) async throws -> Void,
        check: ([[String: Any]]) -> Void
    ) async throws {
        try await withAgentRun(.init(scenario: scenario, presence: presence)) { run in
            let (simulator, watcher, agent) = (run.simulator, run.watcher, run.agent)
            await watcher.next("reader") { $0["state"] as? String == "ok" }
            try await body(simulator, watcher)
            let end = watcher.lastIndex
            agent.expectCleanStop()
            await watcher.status("offline", after: end)
            let events = watcher.events
            #expect(sequenceNumbers(events) == Array(0..<events.count).map { $0 + 1 }, "seq counts up without a gap")
            for event in events { expectEnvelope(event, type: event["type"] as? String ?? "?") }
            check(events)
        }
    }

    @Test func presenceModeReportsATapOnceAndNotAQuickReTap() async throws {
        try await run(presence: "{mode: presence, removal_grace_ms: 200, min_interval_ms: 600000}") { simulator, watcher in
            try simulator.place("card")
            let (scannedAt, _, _) = await watcher.next("event/scanned")
            await watcher.next("tag", after: scannedAt) { $0["present"] as? Bool == true }
            // While it stays the agent only checks its presence (READ through InDataExchange): ten
            // checks later it has still been reported once.
            let checks = try simulator.commandCount("40")
            try await simulator.waitForCommand("40", count: checks + 10)
            #expect(watcher.events.count == 1)

            try simulator.remove("card")
            let (removedAt, _, _) = await watcher.next("event/removed", after: scannedAt)
            await watcher.next("tag", after: removedAt) { $0["present"] as? Bool == false }
            // Back within min_interval_ms: the `tag` state shows it, no event reports it — nor its removal.
            try simulator.place("card")
            let (backAt, back, _) = await watcher.next("tag", after: removedAt) { $0["present"] as? Bool == true }
            #expect(back["uid"] as? String == "04112233445566")
            try simulator.remove("card")
            await watcher.next("tag", after: backAt) { $0["present"] as? Bool == false }
        } check: { events in
            #expect(events.map { $0["type"] as? String } == ["scanned", "removed"])
            #expect(events.allSatisfy { $0["uid"] as? String == "04112233445566" })
        }
    }

    @Test func aTagBackBeforeTheAgentFoundItGoneIsStillRemovedAndScannedAgain() async throws {
        // removal_grace_ms 0: a presence check the tag misses is an absence, even when the
        // re-select (or the poll) right after it finds the tag back (docs/mqtt.md "Presence").
        try await run(presence: "{mode: presence, removal_grace_ms: 0, min_interval_ms: 0}") { simulator, watcher in
            try simulator.place("card")
            let (scannedAt, _, _) = await watcher.next("event/scanned")
            // Resting: only READ pings (InDataExchange), no select.
            try await simulator.waitForCommand("40", count: try simulator.commandCount("40") + 2)
            let selects = try simulator.commandCount("4A")
            try simulator.remove("card")
            // A select comes only after a READ ping the tag missed; the tag is back before the
            // agent learnt whether it was gone.
            try await simulator.waitForCommand("4A", count: selects + 1)
            try simulator.place("card")
            let (removedAt, _, _) = await watcher.next("event/removed", after: scannedAt)
            await watcher.next("event/scanned", after: removedAt)
        } check: { events in
            #expect(events.map { $0["type"] as? String } == ["scanned", "removed", "scanned"])
            #expect(events.allSatisfy { $0["uid"] as? String == "04112233445566" })
        }
    }

    @Test func repeatModeScansAgainEveryRearmWhileTheTagStays() async throws {
        try await run(presence: "{mode: repeat, rearm_ms: 200, removal_grace_ms: 200, min_interval_ms: 0}") { simulator, watcher in
            try simulator.place("card")
            var index = -1
            for _ in 1...3 { index = await watcher.next("event/scanned", after: index).index }
            try simulator.remove("card")
            await watcher.next("event/removed", after: index)
        } check: { events in
            let types = events.map { $0["type"] as? String }
            #expect(types.count >= 4 && types.dropLast().allSatisfy { $0 == "scanned" } && types.last == "removed", "\(types)")
            #expect(events.allSatisfy { $0["uid"] as? String == "04112233445566" })
            #expect(events.allSatisfy { $0["cardType"] as? String == nil || $0["cardType"] as? String == "NTAG213" })
            let times = events.compactMap { $0["ts"] as? String }
            #expect(Set(times).count == times.count, "each repeat is a new event: \(times)")
        }
    }

    @Test func twoTagsAtOnceAreTrackedSeparately() async throws {
        // Both in the field before the agent's first poll: one poll finds the two.
        let together = Self.scenario + "\ntimeline: [{at: 0, place: [card, badge]}]\n"
        try await run(presence: "{mode: presence, removal_grace_ms: 200, min_interval_ms: 0}", scenario: together) { simulator, watcher in
            await watcher.next("event/scanned") { $0["uid"] as? String == "04112233445566" }
            await watcher.next("event/scanned") { $0["uid"] as? String == "DEADBEEF" }
            let (_, state, _) = await watcher.next("tag") { $0["count"] as? Int == 2 }
            #expect(state["present"] as? Bool == true)
            _ = try simulator.expectOK(["cmd": "remove", "all": true])
            await watcher.next("event/removed") { $0["uid"] as? String == "04112233445566" }
            await watcher.next("event/removed") { $0["uid"] as? String == "DEADBEEF" }
            await watcher.next("tag") { $0["present"] as? Bool == false }
        } check: { events in
            #expect(events.count == 4)
            for uid in ["04112233445566", "DEADBEEF"] {
                let types = events.filter { $0["uid"] as? String == uid }.map { $0["type"] as? String }
                #expect(types == ["scanned", "removed"], "\(uid): \(types)")
            }
        }
    }

    @Test func aTagThatStaysWhileAnotherLeavesIsNotReportedGone() async throws {
        // The poll that looks for the tag that left lists the field, and a list leaves every tag it
        // found HALTed (InDeselect: HLTA), which no later REQA wakes (ISO/IEC 14443-3 §6.3): the tag
        // that stays must still be asked for by its UID, or it is reported gone while it rests there.
        let scenario = Self.scenario + "\n  - {id: label, type: ntag213, uid: 04AABBCCDDEEFF}\n"
        try await run(presence: "{mode: presence, removal_grace_ms: 150, min_interval_ms: 0}", scenario: scenario) { simulator, watcher in
            try simulator.place("card")
            let (scannedAt, _, _) = await watcher.next("event/scanned")
            try simulator.place("label")
            try simulator.remove("card")
            let (removedAt, _, _) = await watcher.next("event/removed", after: scannedAt) { $0["uid"] as? String == "04112233445566" }
            // The label stays: its presence checks (READ pings, InDataExchange) go on, and no removal is
            // reported for it.
            let pings = try simulator.commandCount("40") + 20
            var labelGone = false
            while try simulator.commandCount("40") < pings {
                labelGone = watcher.events.contains { $0["type"] as? String == "removed" && $0["uid"] as? String == "04AABBCCDDEEFF" }
                if labelGone { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(!labelGone, "the label was reported gone while it rested in the field")
            try simulator.remove("label")
            await watcher.next("event/removed", after: removedAt) { $0["uid"] as? String == "04AABBCCDDEEFF" }
        } check: { events in
            let label = events.filter { $0["uid"] as? String == "04AABBCCDDEEFF" }.map { $0["type"] as? String }
            #expect(label == ["scanned", "removed"], "\(label)")
        }
    }
}
