import Foundation
import MQTTClient
import NFCBridge
import Testing
import TestSupport

/// `nfcbridge run` end to end with the write-ahead spool (docs/mqtt.md, "Delivery"): a broker that
/// stops answering without closing TCP (SIGSTOP) holds up no tap and loses none, and events spooled
/// when the agent is killed (SIGKILL) are delivered by the next run — each exactly once.
@Suite(.serialized, .timeLimit(.minutes(4))) struct AgentE2ESpoolTests {
    static let uid = "04A1B2C3D4E5F6"
    static let scenario = """
        tags:
          - {id: first, type: ntag215, uid: \(uid)}
        """

    /// Places and lifts the tag, waiting each time until the agent logged it (the broker may be
    /// frozen or away: no MQTT to await). `n`: how many taps so far, this one included.
    func tap(_ n: Int, on simulator: SimulatorProcess, agent: ChildProcess) throws {
        try simulator.place("first")
        #expect(agent.waitForErrorOutput("tag \(Self.uid) (", count: n), "tap \(n): \(agent.errorOutput.suffix(2000))")
        try simulator.remove("first")
        #expect(agent.waitForErrorOutput("tag \(Self.uid) removed", count: n), "lift \(n): \(agent.errorOutput.suffix(2000))")
    }

    /// Every copy of every event the watcher received, by `event_id`.
    func copies(_ watcher: Watcher) -> [String: Int] {
        var copies: [String: Int] = [:]
        for message in watcher.seen.received where message.topic.hasPrefix("\(e2eRoot)/event/") {
            copies[message.json["event_id"] as? String ?? "?", default: 0] += 1
        }
        return copies
    }

    @Test func aFrozenBrokerHoldsUpNoTapAndEveryEventArrivesOnceAfterItThaws() async throws {
        let broker = try MosquittoBroker()
        defer { broker.stop() }
        defer { broker.resume() }
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let folder = try TemporaryFolder()
        // Quick taps: polls every 50 ms, a removal after 150 ms without the tag.
        let config = try folder.writeAgentConfiguration(
            device: simulator.connstring, brokerURL: broker.url, intervalMilliseconds: 50,
            presence: "{removal_grace_ms: 150, min_interval_ms: 0}")
        let watcher = try await Watcher.connect(broker.url)
        let agent = try startAgent(config: config)
        defer { agent.terminate() }
        let online = await watcher.status("online")
        await watcher.next("reader", after: online) { $0["state"] as? String == "ok" }
        await watcher.next("health", after: online)

        // The broker stops answering; the TCP connections stay open.
        broker.pause()
        let pollsAtFreeze = try simulator.commandCount("4A")
        for n in 1...40 { try tap(n, on: simulator, agent: agent) }
        // Still frozen: the reader loop keeps polling (the chip keeps receiving InListPassiveTarget).
        let pollsAfterTaps = try simulator.commandCount("4A")
        #expect(pollsAfterTaps - pollsAtFreeze >= 40, "at least one poll per tap while frozen")
        try await simulator.waitForCommand("4A", count: pollsAfterTaps + 20)
        #expect(watcher.events.isEmpty, "nothing got through the frozen broker")
        broker.resume()

        // After the thaw: all 80, in order, each once.
        await watcher.message { $0.topic == "\(e2eRoot)/event/removed" && $0.json["seq"] as? Int == 80 }
        let events = watcher.events
        #expect(events.filter { $0["type"] as? String == "scanned" }.count == 40)
        #expect(events.filter { $0["type"] as? String == "removed" }.count == 40)
        #expect(sequenceNumbers(events) == Array(1...80))
        let copies = copies(watcher)
        #expect(copies.count == 80)
        #expect(copies.values.allSatisfy { $0 == 1 }, "no event twice: \(copies.filter { $0.value > 1 })")
        // Events that waited behind the frozen broker say so; every one keeps its own time.
        #expect(events.contains { $0["buffered"] as? Bool == true })
        for event in events { expectEnvelope(event, type: event["type"] as? String ?? "?", buffered: event["buffered"] as? Bool ?? false) }

        agent.expectCleanStop()
        await watcher.disconnect()
    }

    /// A broker that stops acknowledging (SIGSTOP: TCP stays up, no PUBACK comes) is found stalled
    /// after `mqtt.stall_after_s`, logged, its connection dropped and made again every
    /// `mqtt.recycle_after_s` while it lasts, and both show in `health` once it answers again;
    /// then everything spooled is delivered.
    @Test func aBrokerThatStopsAcknowledgingIsReportedAndItsConnectionRecycled() async throws {
        let broker = try MosquittoBroker()
        defer { broker.stop() }
        defer { broker.resume() }
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let folder = try TemporaryFolder()
        // Small thresholds (seconds) under `mqtt:`, after its url.
        let config = try folder.writeAgentConfiguration(
            device: simulator.connstring, brokerURL: "\(broker.url)\n  stall_after_s: 1\n  recycle_after_s: 2",
            extra: "health_interval_s: 5\n")
        let watcher = try await Watcher.connect(broker.url)
        let agent = try startAgent(config: config)
        defer { agent.terminate() }
        let online = await watcher.status("online")
        await watcher.next("reader", after: online) { $0["state"] as? String == "ok" }
        #expect(agent.errorOutput.contains("\"recycle_after_s\":2") && agent.errorOutput.contains("\"stall_after_s\":1"))

        broker.pause()
        try tap(1, on: simulator, agent: agent)
        // The `scanned` publish waits for its PUBACK: stalled, then recycled, twice while it lasts.
        #expect(agent.waitForErrorOutput("the broker has not acknowledged"), "\(agent.errorOutput.suffix(3000))")
        #expect(
            agent.waitForErrorOutput("dropping the connection to make it again", count: 2),
            "\(agent.errorOutput.suffix(3000))")
        #expect(agent.errorOutput.components(separatedBy: "the broker has not acknowledged").count - 1 == 1, "logged once per stall")
        // Polling goes on meanwhile.
        try tap(2, on: simulator, agent: agent)
        #expect(watcher.events.isEmpty, "nothing got through the frozen broker")
        broker.resume()

        await watcher.message { $0.topic == "\(e2eRoot)/event/removed" && $0.json["seq"] as? Int == 4 }
        #expect(sequenceNumbers(watcher.events) == [1, 2, 3, 4])
        let (_, health, _) = await watcher.next("health") { (($0["mqtt"] as? [String: Any])?["recycles"] as? Int ?? 0) >= 2 }
        let mqtt = health["mqtt"] as? [String: Any]
        #expect((mqtt?["stalls"] as? Int ?? 0) >= 1, "\(health)")
        #expect(mqtt?["connected"] as? Bool == true, "\(health)")
        #expect(agent.errorOutput.contains("reconnected to the broker"), "\(agent.errorOutput.suffix(2000))")
        agent.expectCleanStop()
        await watcher.disconnect()
    }

    @Test func eventsSpooledWhenTheAgentIsKilledAreDeliveredOnceByTheNextRun() async throws {
        let broker = try MosquittoBroker()
        defer { broker.stop() }
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let folder = try TemporaryFolder()
        let config = try folder.writeAgentConfiguration(device: simulator.connstring, brokerURL: broker.url)
        let first = try startAgent(config: config)
        defer { first.terminate() }
        #expect(first.waitForErrorOutput("connected to the broker"), "\(first.errorOutput)")
        #expect(first.waitForErrorOutput("reader opened"), "\(first.errorOutput)")

        // The broker goes away; three taps go to the spool; the agent dies without a word.
        broker.stop()
        #expect(first.waitForErrorOutput("lost the broker connection"), "\(first.errorOutput)")
        for n in 1...3 { try tap(n, on: simulator, agent: first) }
        // The last removal is on disk (logged after its fsync), then the agent dies without a word.
        #expect(first.waitForErrorOutput("event removed seq 6 spooled"), "\(first.errorOutput.suffix(2000))")
        first.send(SIGKILL)
        #expect(first.waitForExit() != nil)

        try broker.start()
        let watcher = try await Watcher.connect(broker.url)
        let second = try startAgent(config: config)
        defer { second.terminate() }
        #expect(second.waitForErrorOutput("6 buffered event(s) from an earlier run"), "\(second.errorOutput)")
        await watcher.message { $0.topic == "\(e2eRoot)/event/removed" && $0.json["seq"] as? Int == 6 }
        let replayed = watcher.events
        #expect(sequenceNumbers(replayed) == Array(1...6))
        #expect(replayed.map { $0["type"] as? String } == ["scanned", "removed", "scanned", "removed", "scanned", "removed"])
        for event in replayed { expectEnvelope(event, type: event["type"] as? String ?? "?", buffered: true) }

        // Live again, the sequence going on.
        try simulator.place("first")
        let (_, live, _) = await watcher.next("event/scanned") { $0["seq"] as? Int == 7 }
        expectEnvelope(live, type: "scanned", buffered: false)
        let copies = copies(watcher)
        #expect(copies.count == 7)
        #expect(copies.values.allSatisfy { $0 == 1 }, "no event twice: \(copies.filter { $0.value > 1 })")

        second.expectCleanStop()
        await watcher.disconnect()
    }
}
