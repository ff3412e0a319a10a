import Foundation
import MQTTClient
import Testing
import TestSupport

/// `nfcbridge run` stopped (SIGTERM) while the broker does not answer (review2 B): the stop never
/// waits for a broker that stalled.
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
}
