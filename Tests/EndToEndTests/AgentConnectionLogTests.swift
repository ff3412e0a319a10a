import Foundation
import Testing
import TestSupport

/// `nfcbridge run` says why it cannot reach the broker (issue 12): a warning with the reason and the
/// back-off, once per reason — then the usual "connected" once the broker is there.
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentConnectionLogTests {
    @Test func anUnreachableBrokerIsLoggedWithTheReasonAndTheBackoff() async throws {
        try await withAgentRun(.init(reader: .absent(link: "no-reader"), brokerDown: true, watcherFilters: nil)) { run in
            let (broker, agent) = (run.broker!, run.agent)
            #expect(agent.waitForErrorOutput("warning: cannot connect to the MQTT broker 127.0.0.1:\(broker.port) (connection refused)"), "\(agent.errorOutput)")
            #expect(agent.waitForErrorOutput("retrying in "), "\(agent.errorOutput)")
            try broker.start()
            #expect(agent.waitForErrorOutput("connected to the broker"), "\(agent.errorOutput)")
            let reports = agent.errorOutput.components(separatedBy: "cannot connect to the MQTT broker").count - 1
            #expect(reports == 1, "one report for one reason: \(agent.errorOutput)")
            agent.send(SIGTERM)
            #expect(agent.waitForExit() == 0)
        }
    }

    @Test func refusedCredentialsAreLoggedAsNotAuthorised() async throws {
        let options = AgentRun.Options(
            reader: .absent(link: "no-reader"), broker: .init(users: ["e2e": "right"]), mqtt: ["username: e2e"], password: "wrong",
            watcherFilters: nil)
        try await withAgentRun(options) { run in
            let agent = run.agent
            #expect(agent.waitForErrorOutput("(not authorised): auth_failed"), "\(agent.errorOutput)")
            agent.send(SIGTERM)
            #expect(agent.waitForExit() == 0)
        }
    }
}
