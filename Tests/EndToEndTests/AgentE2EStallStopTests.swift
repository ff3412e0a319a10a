import Foundation
import MQTTClient
import Testing
import TestSupport

/// `nfcbridge run` stopped (SIGTERM) while the broker does not answer (review2 B and C): the stop
/// never waits for a broker that stalled, and the retained `status` ends `offline` all the same.
@Suite(.serialized, .timeLimit(.minutes(4))) struct AgentE2EStallStopTests {
    static let scenario = """
        tags:
          - {id: first, type: ntag215, uid: 04A1B2C3D4E5F6}
        """

    /// The broker accepts the agent (CONNACK) and answers nothing more, so the agent's SUBSCRIBE
    /// waits for a SUBACK that never comes. SIGTERM ends the run on the link as it is: the agent
    /// sends its DISCONNECT on it after the stop's flush. (Waiting for the SUBACK, it could only
    /// leave once the link had died under it — the stall recycle or libmosquitto's keepalive, a
    /// minute each — and its DISCONNECT would never reach this link.)
    @Test func sigtermWhileTheBrokerStallsRightAfterItsCONNACKDoesNotWaitForTheSubscriptions() async throws {
        try await withAgentRun(.init(scenario: Self.scenario, throughProxy: true, startsAgent: false)) { run in
            let proxy = try #require(run.proxy)
            proxy.freezeAfterFirstReply()
            let agent = try run.startAgent()
            #expect(agent.waitForErrorOutput("connected to the broker"), "\(agent.errorOutput)")
            // A SUBSCRIBE (type 8) went out: the agent waits for its SUBACK.
            #expect(await proxy.heldPackets(ofType: 8, atLeast: 1), "\(agent.errorOutput)")
            agent.send(SIGTERM)
            // Bounded far beyond the keepalive only so that a run without the fix ends and reports.
            #expect(agent.waitForExit(timeout: .seconds(150)) == 0, "\(agent.errorOutput)")
            #expect(await proxy.heldPackets(ofType: 14, atLeast: 1), "no DISCONNECT on the frozen link: \(agent.errorOutput)")
            #expect(proxy.acceptedConnections == 1, "the link was made again before the stop: \(agent.errorOutput)")
        }
    }

    /// The broker freezes (SIGSTOP) with the `scanned` publish waiting for its PUBACK; `offline`
    /// queues behind it and cannot go out within the stop's flush. The agent ends the connection so
    /// that the broker publishes the will (MQTT 5: DISCONNECT 0x04; 3.1.1: no DISCONNECT at all): once
    /// the broker runs again the retained `status` is `offline`, not the `online` of the run. The
    /// unacknowledged event stays in the spool for the next run.
    @Test(arguments: ["5", "3.1.1"])
    func aStopWhoseOfflineTheStalledBrokerCannotTakeLeavesItTheWill(protocolVersion: String) async throws {
        let options = AgentRun.Options(scenario: Self.scenario, mqtt: ["protocol: \"\(protocolVersion)\""], homeAssistant: false)
        try await withAgentRun(options) { run in
            let (broker, simulator, watcher, agent) = (run.broker!, run.simulator, run.watcher, run.agent)
            let online = await watcher.status("online")
            // `reader` goes out before `status` online: ok already, or `starting` and ok after.
            await watcher.next("reader") { $0["state"] as? String == "ok" }
            broker.pause()
            try simulator.place("first")
            // The `scanned` event is on disk (every event goes to the spool first), and on its way.
            #expect(agent.waitForErrorOutput("spool: on disk up to seq 1"), "\(agent.errorOutput)")
            agent.send(SIGTERM)
            #expect(agent.waitForExit() == 0, "\(agent.errorOutput)")
            #expect(agent.errorOutput.contains("publishes the will"), "\(agent.errorOutput)")
            broker.resume()
            await watcher.status("offline", after: online)

            let next = try run.startAgent()
            #expect(next.waitForErrorOutput("1 buffered event(s) from an earlier run"), "\(next.errorOutput)")
            next.expectCleanStop()
        }
    }
}
