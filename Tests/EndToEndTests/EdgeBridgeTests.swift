import Foundation
import MQTTClient
import Testing
import TestSupport

/// The fleet set-up of docs/fleet.md (issue 12): the agent publishes to a mosquitto on its board,
/// bridged (deploy/mosquitto/edge-bridge.conf) to a central mosquitto that uses the sample ACL
/// (deploy/mosquitto/nfcbridge.acl) with the reader's own credentials. The central broker goes away
/// for a while: the events of that time reach the central subscriber once it is back, none twice.
@Suite(.serialized, .timeLimit(.minutes(3))) struct EdgeBridgeTests {
    static let scenario = """
        tags:
          - {id: first, type: ntag215, uid: 04A1B2C3D4E5F6}
          - {id: second, type: ntag213, uid: 04112233445566}
        """

    /// deploy/mosquitto/<name> as text.
    static func sample(_ name: String) throws -> String {
        try String(contentsOf: Binaries.packageRoot.appendingPathComponent("deploy/mosquitto/\(name)"), encoding: .utf8)
    }

    /// The sample bridge from its `connection` line on, pointed at `central`: the address, the
    /// reader's id and password, and the central broker's CA replace the placeholders.
    static func bridgeConfiguration(central: MosquittoBroker, password: String) throws -> String {
        let text = try sample("edge-bridge.conf")
        let start = try #require(text.range(of: "\nconnection "), "edge-bridge.conf has a connection")
        let bridge = String(text[text.index(after: start.lowerBound)...])
            .replacingOccurrences(of: "broker.example.net:8883", with: "127.0.0.1:\(central.port)")
            .replacingOccurrences(of: "/etc/mosquitto/certs/central-ca.crt", with: central.caFile ?? "")
            .replacingOccurrences(of: "reader-hall", with: "e2e")
            .replacingOccurrences(of: "remote_password change-me", with: "remote_password \(password)")
            .replacingOccurrences(of: "restart_timeout 2 30", with: "restart_timeout 1 2")
        #expect(!bridge.contains("example") && !bridge.contains("change-me"), "\(bridge)")
        return bridge
    }

    @Test func eventsCrossTheBridgeOnceEvenWhileTheCentralBrokerIsDown() async throws {
        // Central: TLS, no anonymous users, the sample ACL plus this reader's block (add-reader.sh's).
        let acl = try Self.sample("nfcbridge.acl") + "\nuser e2e\ntopic read homeassistant/status\n"
        let central = try MosquittoBroker(.init(
            users: ["e2e": "reader-secret", "operator": "operator-secret"], tls: .loopback, acl: acl, persistence: true))
        defer { central.stop() }
        #expect(!central.log.contains("does not contain"), "the sample ACL loads without warnings: \(central.log)")
        // The run's broker is the edge one, bridged to the central broker; the agent starts once
        // the back end listens.
        let options = AgentRun.Options(
            scenario: Self.scenario,
            broker: .init(extraConfiguration: try Self.bridgeConfiguration(central: central, password: "reader-secret")),
            startsAgent: false)
        try await withAgentRun(options) { run in
            let (simulator, local) = (run.simulator, run.watcher)

            // The back end on the central broker, with a persistent session: it misses nothing while
            // the central broker restarts.
            var settings = MQTTConfiguration(
                url: central.url, protocolVersion: .v311, clientID: "backend", cleanStart: false,
                reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(250)))
            settings.username = "operator"
            settings.password = "operator-secret"
            settings.tls = .enabled(MQTTTLSConfiguration(caFile: central.caFile))
            try await MQTTClient.withConnection(settings) { backend in
                let received = RecordingStream(backend.messages)
                try await backend.subscribe(to: "nfc/#", qos: .exactlyOnce)
                // What the agent publishes on the edge (the run's watcher) is the reference.
                try run.startAgent()

                // Through the bridge: the agent's state, its discovery, a first scan.
                #expect(await received.next(timeout: .seconds(60)) { $0.topic == "nfc/e2e/status" && $0.payloadString == "online" } != nil)
                #expect(await received.next(timeout: .seconds(60)) { $0.topic == "nfc/e2e/bridge" && $0.payloadString == "1" } != nil)
                try simulator.place("first")
                let scanned = await local.next("event/scanned")
                let firstID = scanned.json["event_id"] as? String
                #expect(await received.next(timeout: .seconds(60)) { $0.topic == "nfc/e2e/event/scanned" && $0.json["event_id"] as? String == firstID } != nil)

                // Before the central broker goes: a marker published on the edge after the scan has crossed the
                // bridge too, so the scan's QoS 2 hand-shakes (bridge → central → back end; TCP keeps their order)
                // are finished. Stopped in the middle of one, the central broker sends it again after its restart,
                // and that copy is the broker's redelivery, not what this test is about.
                try await local.client.publish(to: "nfc/e2e/marker", text: "1", qos: .exactlyOnce)
                #expect(await received.next(timeout: .seconds(60)) { $0.topic == "nfc/e2e/marker" } != nil)

                // The central broker goes away; the agent goes on publishing to its edge broker.
                central.stop()
                try simulator.remove("first")
                let removed = await local.next("event/removed", after: scanned.index)
                try simulator.place("second")
                let second = await local.next("event/scanned", after: removed.index)
                try simulator.remove("second")
                let last = await local.next("event/removed", after: second.index)

                // Back: the bridge and the back end reconnect; every event arrives.
                try central.start()
                let expected = local.events.compactMap { $0["event_id"] as? String }
                #expect(expected.count == 4, "\(local.events)")
                let lastID = last.json["event_id"] as? String
                #expect(await received.next(timeout: .seconds(60)) { $0.topic == "nfc/e2e/event/removed" && $0.json["event_id"] as? String == lastID } != nil)
                let events = received.received.filter { $0.topic.hasPrefix("nfc/e2e/event/") }.compactMap { $0.json["event_id"] as? String }
                #expect(events == expected, "each event once, in order: \(events) vs \(expected)")
                #expect(!central.log.contains("does not contain"), "\(central.log)")
            }
        }
    }
}
