import Foundation
import Testing
import TestSupport

/// `nfcbridge run` on an empty field lets the PN532 poll (InAutoPoll, UM0701-02 §7.3.13) through
/// the real libnfc and the simulator, and falls back to polling from the host on a chip that does
/// not have the command (`nfcbridge-sim --without-autopoll`).
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentE2EAutoPollTests {
    static let scenario = """
        tags:
          - {id: card, type: ntag213, uid: 04112233445566}
          - {id: lite, type: felica_lite_s, uid: 01020304050607AB}
        """

    /// The agent with the shipped `interval_ms` and presence settings, so its idle polls are as shipped.
    static func options(_ simulatorArguments: [String] = []) -> AgentRun.Options {
        var options = AgentRun.Options(scenario: scenario, simulatorArguments: simulatorArguments)
        options.intervalMilliseconds = nil
        options.presence = nil
        return options
    }

    @Test func theChipPollsAnEmptyFieldAndTheAgentSeesEachTagArrive() async throws {
        try await withAgentRun(Self.options()) { run in
            let (simulator, watcher, agent) = (run.simulator, run.watcher, run.agent)
            let (okAt, _, _) = await watcher.next("reader") { $0["state"] as? String == "ok" }
            try await simulator.waitForCommand("60", count: 2)
            // While the field stays empty only InAutoPoll goes to the chip: no InListPassiveTarget.
            let selects = try simulator.commandCount("4A")
            let autoPolls = try simulator.commandCount("60")
            try await simulator.waitForCommand("60", count: autoPolls + 2)
            #expect(try simulator.commandCount("4A") == selects, "the host polled an empty field itself")

            try simulator.place("card")
            let (scannedAt, scanned, _) = await watcher.next("event/scanned", after: okAt)
            #expect(scanned["uid"] as? String == "04112233445566")
            try simulator.remove("card")
            let (removedAt, _, _) = await watcher.next("event/removed", after: scannedAt)

            // FeliCa too, with the system code the host's own poll asks for (InAutoPoll sends none).
            try simulator.place("lite")
            let (liteAt, lite, _) = await watcher.next("event/scanned", after: removedAt)
            #expect(lite["uid"] as? String == "01020304050607AB")
            #expect(lite["systemCode"] as? String == "88B4", "\(lite)")
            try simulator.remove("lite")
            await watcher.next("event/removed", after: liteAt)

            // Stopped while the chip polls: the agent ends that InAutoPoll with an ACK frame.
            let pending = try simulator.commandCount("60")
            try await simulator.waitForCommand("60", count: pending + 1)
            agent.expectCleanStop()
            let aborts = try simulator.expectOK(["cmd": "list"])["aborts"] as? Int ?? 0
            #expect(aborts >= 1, "the InAutoPoll pending at the stop was not aborted")
        }
    }

    /// A type A tag and a FeliCa card in the field together: the chip's InAutoPoll answers with the
    /// first type that finds a tag only (UM0701-02 §7.3.13), so the search after that tag's scan lists
    /// the other technology too, and both are reported, whichever the chip found first.
    @Test(arguments: ["[iso14443a, felica212]", "[felica212, iso14443a]"])
    func aTypeATagAndAFeliCaCardPlacedTogetherAreBothReported(_ modulations: String) async throws {
        var options = Self.options()
        options.scenario = Self.scenario + "\ntimeline: [{at: 0, place: [card, lite]}]\n"
        options.modulations = modulations
        try await withAgentRun(options) { run in
            let watcher = run.watcher
            await watcher.next("event/scanned") { $0["uid"] as? String == "04112233445566" }
            await watcher.next("event/scanned") { $0["uid"] as? String == "01020304050607AB" }
            _ = try run.simulator.expectOK(["cmd": "remove", "all": true])
            await watcher.next("event/removed") { $0["uid"] as? String == "04112233445566" }
            await watcher.next("event/removed") { $0["uid"] as? String == "01020304050607AB" }
            let types = watcher.events.map { "\($0["type"] as? String ?? "?") \($0["uid"] as? String ?? "?")" }
            #expect(types.count == 4, "each tag scanned and removed once: \(types)")
        }
    }

    @Test func aChipWithoutAutoPollIsPolledByTheHost() async throws {
        try await withAgentRun(Self.options(["--without-autopoll"])) { run in
            let (simulator, watcher, agent) = (run.simulator, run.watcher, run.agent)
            let (okAt, _, _) = await watcher.next("reader") { $0["state"] as? String == "ok" }
            // Refused twice (the error frame), then the host polls with InListPassiveTarget.
            let selects = try simulator.commandCount("4A")
            try await simulator.waitForCommand("4A", count: selects + 6)
            #expect(try simulator.commandCount("60") == 2)

            try simulator.place("card")
            let (scannedAt, scanned, _) = await watcher.next("event/scanned", after: okAt)
            #expect(scanned["uid"] as? String == "04112233445566")
            try simulator.remove("card")
            await watcher.next("event/removed", after: scannedAt)
            #expect(try simulator.commandCount("60") == 2, "InAutoPoll asked again after the reader refused it")
            #expect(!watcher.events.contains { $0["type"] as? String == "error" }, "\(watcher.events)")
            agent.expectCleanStop()
        }
    }
}
