import Foundation
import NFCBridge
import Testing
import TestSupport

/// The reader never waits for the disk (issue 20: with fsync slowed to 100 ms — an SD card on a Pi
/// is in that class — and a healthy broker, every second 0.4 s tap was lost, because each event
/// cost five fsyncs on the reader's path). The agent runs under strace's fault injection, which
/// delays every fsync it makes by 100 ms, while the simulator's timeline taps 20 tags of 0.4 s.
@Suite(.serialized, .timeLimit(.minutes(4))) struct AgentE2ESlowDiskTests {
    static let taps = 20
    /// Tag k is in the field from 4 s + 0.8 s·(k−1) for 0.4 s; the field is empty for 0.4 s between
    /// taps and 3 s after the last one; then the round starts over. The test takes the first round
    /// when the agent was up before it began (the 4 s of empty field are for that), else the first
    /// whole round the agent saw from its start.
    static let lead = 4000
    static let timeline: String = {
        var yaml = TapTags.definitions(taps)
        yaml += "timeline:\n  loop: true\n  period: \(lead + 800 * taps + 2600)ms\n  events:\n"
        for k in 1...taps {
            let start = lead + 800 * (k - 1)
            yaml += "    - {at: \(start)ms, place: \(TapTags.id(k))}\n    - {at: \(start + 400)ms, remove: \(TapTags.id(k))}\n"
        }
        return yaml
    }()

    @Test func withFsyncSlowedTo100msNoTapIsLost() async throws {
        let options = AgentRun.Options(
            scenario: Self.timeline, simulatorArguments: ["--trace"], intervalMilliseconds: 50,
            presence: "{removal_grace_ms: 150, min_interval_ms: 0}", startsAgent: false)
        try await withAgentRun(options) { run in
            let (simulator, watcher) = (run.simulator, run.watcher)
            let trace = simulator.process
            let agent = try run.startAgent(launcher: straceDelayingFsync(by: "100ms"))
            _ = await watcher.status("online")
            // (`reader` goes out before `status` online: ok already then, or ok after it.)
            let (okAt, _, _) = await watcher.next("reader") { $0["state"] as? String == "ok" }
            // A round that began after the reader was ok is seen whole: the first one, when no tag was
            // placed yet. Else the round under way when the agent came up may be seen in part; the next
            // one is whole.
            let roundEnd = "timeline: removed \(TapTags.id(Self.taps))\n"
            let last = TapTags.uid(Self.taps)
            let before: Int
            if !trace.errorOutput.contains("timeline: placed \(TapTags.id(1))\n") {
                before = okAt
                try #require(trace.waitForErrorOutput(roundEnd, timeout: .seconds(60)))
            } else {
                let ends = trace.errorOutput.components(separatedBy: roundEnd).count - 1
                try #require(trace.waitForErrorOutput(roundEnd, count: ends + 1, timeout: .seconds(60)))
                (before, _, _) = await watcher.next("event/removed") { $0["uid"] as? String == last }
                try #require(trace.waitForErrorOutput(roundEnd, count: ends + 2, timeout: .seconds(60)))
            }
            let (after, _, _) = await watcher.next("event/removed", after: before) { $0["uid"] as? String == last }
            let round = Array(watcher.seen.received[(before + 1)...after].filter { $0.topic.hasPrefix("\(e2eRoot)/event/") }.map(\.json))
            let scanned = Set(round.filter { $0["type"] as? String == "scanned" }.compactMap { $0["uid"] as? String })
            let removed = Set(round.filter { $0["type"] as? String == "removed" }.compactMap { $0["uid"] as? String })
            let all = Set((1...Self.taps).map(TapTags.uid))
            #expect(scanned == all, "taps lost: \(all.subtracting(scanned).sorted())")
            #expect(removed == all, "removals lost: \(all.subtracting(removed).sorted())")
            #expect(round.count == 2 * Self.taps, "\(round.map { "\($0["type"] ?? "-") \($0["uid"] ?? "-")" })")
            #expect(sequenceNumbers(watcher.events) == Array(1...watcher.events.count), "no gap in seq")
            // strace with -o blocks fatal signals: the agent (its child) is told, and strace exits with
            // the agent's status.
            kill(try agent.tracedAgentPID(), SIGTERM)
            #expect(agent.waitForExit() == 0, "\(agent.errorOutput.suffix(2000))")
        }
    }
}
