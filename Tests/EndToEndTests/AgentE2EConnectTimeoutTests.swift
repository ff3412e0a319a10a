import Foundation
import MQTTClient
import Testing
import TestSupport

/// `nfcbridge run` with a broker node that never answers the connect (review2 t3/t4/t5): the node
/// whose SYNs are dropped, or that accepts TCP and never sends its CONNACK, fails the attempt after
/// the connect timeout so the failover list reaches the healthy node, and SIGTERM interrupts a
/// connect under way.
@Suite(.serialized, .timeLimit(.minutes(4))) struct AgentE2EConnectTimeoutTests {
    @Test(arguments: [SilentNode.Behaviour.dropsSYNs, .acceptsAndIsSilent])
    func aSilentFirstNodeIsLeftForTheHealthyNext(behaviour: SilentNode.Behaviour) async throws {
        let silent = try SilentNode(behaviour)
        try await withAgentRun(.init(nodesBefore: [silent.url], homeAssistant: false)) { run in
            // `online` on the second node: the first one failed its attempt (without the connect
            // timeout, only after the kernel's SYN retries or the keepalive, beyond the guard).
            await run.watcher.status("online")
            let expected = behaviour == .dropsSYNs ? "no TCP connection within 5 s" : "no CONNACK within 5 s"
            #expect(run.agent.errorOutput.contains(expected), "\(run.agent.errorOutput)")
            #expect(!run.agent.errorOutput.contains("3.1.1"), "\(run.agent.errorOutput)")
            run.agent.expectCleanStop()
        }
    }

    @Test func sigtermWhileTheTCPConnectHangsEndsTheRun() async throws {
        let silent = try SilentNode(.dropsSYNs)
        // The silent node alone: the agent's first attempt hangs in the TCP handshake.
        try await withAgentRun(.init(brokerDown: true, nodesBefore: [silent.url], homeAssistant: false)) { run in
            #expect(await silent.clientConnecting(), "\(run.agent.errorOutput)")
            run.agent.send(SIGTERM)
            // Bounded below the kernel's SYN retries (about 127 s) so that a run without the fix fails.
            #expect(run.agent.waitForExit(timeout: .seconds(60)) == 0, "\(run.agent.errorOutput)")
        }
    }
}
