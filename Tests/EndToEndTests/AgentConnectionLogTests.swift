import Foundation
import Testing
import TestSupport

/// `nfcbridge run` says why it cannot reach the broker (issue 12): a warning with the reason and the
/// back-off, once per reason — then the usual "connected" once the broker is there.
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentConnectionLogTests {
    @Test func anUnreachableBrokerIsLoggedWithTheReasonAndTheBackoff() async throws {
        let broker = try MosquittoBroker(start: false)
        let folder = try TemporaryFolder()
        let config = try folder.writeAgentConfiguration(device: "pn532_uart:\(folder.path)/no-reader", brokerURL: broker.url)
        let agent = try startAgent(config: config)
        defer { agent.terminate() }
        #expect(agent.waitForErrorOutput("warning: cannot connect to the MQTT broker 127.0.0.1:\(broker.port) (connection refused)"), "\(agent.errorOutput)")
        #expect(agent.errorOutput.contains("retrying in "), "\(agent.errorOutput)")
        try broker.start()
        #expect(agent.waitForErrorOutput("connected to the broker"), "\(agent.errorOutput)")
        let reports = agent.errorOutput.components(separatedBy: "cannot connect to the MQTT broker").count - 1
        #expect(reports == 1, "one report for one reason: \(agent.errorOutput)")
        agent.send(SIGTERM)
        #expect(agent.waitForExit() == 0)
    }

    @Test func refusedCredentialsAreLoggedAsNotAuthorised() async throws {
        let broker = try MosquittoBroker(.init(users: ["e2e": "right"]))
        let folder = try TemporaryFolder()
        let passwordFile = try folder.write("password", "wrong\n")
        let config = try folder.writeAgentConfiguration(device: "pn532_uart:\(folder.path)/no-reader", brokerURL: broker.url)
        // username / password_file go in the mqtt section.
        let text = try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
            of: "  url: \(broker.url)\n", with: "  url: \(broker.url)\n  username: e2e\n  password_file: \(passwordFile)\n")
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let agent = try startAgent(config: config)
        defer { agent.terminate() }
        #expect(agent.waitForErrorOutput("(not authorised): auth_failed"), "\(agent.errorOutput)")
        agent.send(SIGTERM)
        #expect(agent.waitForExit() == 0)
    }
}
