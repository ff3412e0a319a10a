@testable import MQTTClient
import Synchronization
import TestSupport
import Testing

/// The node rotation and the duplicate-id inference as plain values.
@Suite struct BrokerNodesTests {
    @Test func attemptsGoRoundTheNodesAndAConnectionOnAnotherNodeIsAFailover() throws {
        var nodes = try BrokerNodes(MQTTConfiguration(url: "mqtt://a:1", failoverURLs: ["mqtt://b:2", "mqtt://c"]))
        #expect(nodes.current.host == "a" && nodes.connectedURL == nil)
        nodes.connected()
        #expect(nodes.connectedURL == "mqtt://a:1" && nodes.failovers == 0)
        nodes.advance()  // a failed: b next
        #expect(nodes.current.host == "b" && nodes.current.port == 2)
        nodes.advance()  // b failed too: c
        nodes.connected()
        #expect(nodes.connectedURL == "mqtt://c" && nodes.current.port == 1883 && nodes.failovers == 1)
        nodes.advance()  // c lost: round to a
        #expect(nodes.current.host == "a")
        nodes.connected()
        #expect(nodes.failovers == 2)
        nodes.advance()
        nodes.advance()
        nodes.advance()  // back on a after a full round: the same node, no failover
        nodes.connected()
        #expect(nodes.failovers == 2)
    }

    @Test func oneNodeStaysOnIt() throws {
        var nodes = try BrokerNodes(MQTTConfiguration(url: "mqtt://a"))
        nodes.connected()
        nodes.advance()
        nodes.connected()
        #expect(nodes.current.host == "a" && nodes.failovers == 0)
    }

    @Test func mixedSchemesTooManyNodesAndBadURLsAreRefused() {
        #expect(throws: MQTTClientError.self) {
            try BrokerNodes(MQTTConfiguration(url: "mqtt://a", failoverURLs: ["mqtts://b"]))
        }
        #expect(throws: MQTTClientError.self) {
            try BrokerNodes(MQTTConfiguration(url: "mqtt://a", failoverURLs: (1...16).map { "mqtt://n\($0)" }))
        }
        #expect((try? BrokerNodes(MQTTConfiguration(url: "mqtt://a", failoverURLs: (1...15).map { "mqtt://n\($0)" }))) != nil)
        #expect(throws: MQTTClientError.self) {
            try BrokerNodes(MQTTConfiguration(url: "mqtt://a", failoverURLs: ["http://b"]))
        }
    }
}

@Suite struct TakeoverWatchTests {
    @Test func threeShortBrokerClosedConnectionsInARowAreADuplicateClientID() {
        var watch = TakeoverWatch()
        #expect(watch.connectionEnded(lasted: .milliseconds(800), closedByBroker: true) == .ordinary)
        #expect(watch.connectionEnded(lasted: .milliseconds(600), closedByBroker: true) == .ordinary)
        #expect(watch.delay == nil && watch.takeovers == 0)
        #expect(watch.connectionEnded(lasted: .seconds(2), closedByBroker: true) == .detected(takeovers: 3))
        #expect(watch.delay == .seconds(5))
        // Each further takeover doubles the wait, up to 5 min.
        #expect(watch.connectionEnded(lasted: .seconds(5), closedByBroker: true) == .again(takeovers: 4))
        #expect(watch.delay == .seconds(10))
        for _ in 0..<10 { _ = watch.connectionEnded(lasted: .seconds(200), closedByBroker: true) }
        #expect(watch.delay == .seconds(300) && watch.takeovers == 14)
        // A connection that lasts 10 min ends the episode; the count stays for health.
        #expect(watch.connectionEnded(lasted: .seconds(600), closedByBroker: true) == .ordinary)
        #expect(watch.delay == nil && watch.takeovers == 14)
    }

    @Test func longConnectionsRecyclesAndOwnDropsAreNotTakeovers() {
        var watch = TakeoverWatch()
        for _ in 0..<5 {
            #expect(watch.connectionEnded(lasted: .seconds(1), closedByBroker: false) == .ordinary)  // a recycle
        }
        _ = watch.connectionEnded(lasted: .seconds(1), closedByBroker: true)
        _ = watch.connectionEnded(lasted: .seconds(1), closedByBroker: true)
        // A connection that lasted beyond the window breaks the streak.
        #expect(watch.connectionEnded(lasted: .seconds(11), closedByBroker: true) == .ordinary)
        #expect(watch.connectionEnded(lasted: .seconds(1), closedByBroker: true) == .ordinary)
        #expect(watch.delay == nil)
    }

    @Test func theWaitIsSpreadByTheJitter() {
        let backoff = Backoff(policy: MQTTReconnectPolicy(jitter: 0.2))
        #expect(backoff.jittered(.seconds(5), unitRandom: 0) == .seconds(4))
        #expect(backoff.jittered(.seconds(5), unitRandom: 1) == .seconds(6))
    }
}

extension BrokerTests {
    /// Two mosquittos on random ports standing for two nodes of a cluster.
    @Suite struct Failover {
        @Test func aLostNodeIsReplacedByTheNextAndSubscriptionsFollow() async throws {
            let nodeA = try MosquittoBroker()
            let nodeB = try MosquittoBroker()
            var settings = configuration(url: nodeA.url, clientID: "failover-client")
            settings.failoverURLs = [nodeB.url]
            let client = try MQTTClient(configuration: settings)
            let events = Inbox.draining(client.events)
            let inbox = Inbox.draining(client.messages)
            try await client.connect()
            try await client.subscribe(to: "nfc/reader-1/request/#")
            #expect(client.connectedURL == nodeA.url && client.failovers == 0)

            nodeA.stop()
            _ = try await events.next { $0.disconnectCode == "connection_lost" }
            _ = try await events.next { $0.isConnected }
            #expect(client.connectedURL == nodeB.url)
            #expect(client.failovers == 1)
            // The subscription was made again on node B.
            try await MQTTClient.withConnection(configuration(for: nodeB)) { other in
                try await other.publish(to: "nfc/reader-1/request/x", text: "via B", qos: .atLeastOnce)
            }
            #expect(try await inbox.next { _ in true }.payloadString == "via B")
            await client.disconnect()
        }

        @Test func aNodeDownAtStartIsSkipped() async throws {
            let nodeA = try MosquittoBroker(start: false)
            let nodeB = try MosquittoBroker()
            var settings = configuration(url: nodeA.url)
            settings.failoverURLs = [nodeB.url]
            let failures = BrokerTests.ConnectionFailureReports.Reports()
            let client = try MQTTClient(configuration: settings) { failures.add($0) }
            let events = Inbox.draining(client.events)
            try client.start()
            let failure = try await events.next { $0.failureCode != nil }
            #expect(failure.failureCode == "broker_unreachable")
            _ = try await events.next { $0.isConnected }
            #expect(client.connectedURL == nodeB.url)
            // The first connection is no failover; the log names the node tried next.
            #expect(client.failovers == 0)
            let report = try #require(failures.all.first)
            #expect(report.broker == "127.0.0.1:\(nodeA.port)" && report.nextBroker == "127.0.0.1:\(nodeB.port)")
            #expect(report.description.contains("trying the next node 127.0.0.1:\(nodeB.port)"))
            await client.disconnect()
        }

        @Test(arguments: [MQTTProtocolVersion.v5, .v311])
        func twoClientsWithOneIDAreReportedOnceAndBackOff(version: MQTTProtocolVersion) async throws {
            let broker = try MosquittoBroker()
            let first = try MQTTClient(configuration: configuration(for: broker, clientID: "twin", protocolVersion: version))
            let second = try MQTTClient(configuration: configuration(for: broker, clientID: "twin", protocolVersion: version))
            let firstEvents = Inbox.draining(first.events)
            let secondEvents = Inbox.draining(second.events)
            try first.start()
            try second.start()
            // Whichever loses the session three times in a row within seconds says so (both may).
            let detected = try await withThrowingTaskGroup(of: MQTTConnectionEvent.self) { group in
                group.addTask { try await firstEvents.next(timeout: .seconds(60)) { $0.isDuplicateClientID } }
                group.addTask { try await secondEvents.next(timeout: .seconds(60)) { $0.isDuplicateClientID } }
                defer { group.cancelAll() }
                return try await group.next()
            }
            guard case let .duplicateClientID(takeovers, retryIn)? = detected else {
                Issue.record("expected a duplicateClientID event, got \(String(describing: detected))")
                return
            }
            #expect(takeovers == TakeoverWatch.threshold)
            // It waits 5 s (±20 %) instead of taking the session straight back.
            #expect(retryIn >= .seconds(4) && retryIn <= .seconds(6))
            #expect(max(first.duplicateClientIDTakeovers, second.duplicateClientIDTakeovers) >= TakeoverWatch.threshold)
            await first.disconnect()
            await second.disconnect()
        }
    }
}

extension MQTTConnectionEvent {
    var isDuplicateClientID: Bool {
        if case .duplicateClientID = self { return true }
        return false
    }
}
