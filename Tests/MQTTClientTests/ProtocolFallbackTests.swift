@testable import MQTTClient
import TestSupport
import Testing

/// The per-node memory of the MQTT 3.1.1 fallback, as a plain value.
@Suite struct ProtocolFallbackNodesTests {
    @Test func aNodeThatFellBackIsRememberedAloneAndReportedOnce() throws {
        var nodes = try BrokerNodes(MQTTConfiguration(url: "mqtt://a", failoverURLs: ["mqtt://b"]))
        #expect(!nodes.currentSpeaksOnlyV311)
        let first = nodes.fellBackToV311()
        let again = nodes.fellBackToV311()
        #expect(first && !again)  // already known: not reported again
        #expect(nodes.currentSpeaksOnlyV311)
        nodes.advance()
        #expect(!nodes.currentSpeaksOnlyV311)  // node b still gets MQTT 5 first
        nodes.advance()
        #expect(nodes.currentSpeaksOnlyV311 && nodes.v311Nodes == [0])
    }
}

extension MQTTConnectionEvent {
    /// The broker URL of a `.fellBackToV311` event.
    var fallbackBroker: String? {
        if case .fellBackToV311(let broker) = self { return broker }
        return nil
    }
}

extension BrokerTests {
    /// A broker that speaks only MQTT 3.1.1: a real mosquitto behind a ``TCPProxy`` that refuses every
    /// MQTT 5 CONNECT the way such brokers do (closing without a CONNACK as RabbitMQ 3.10 does, or a
    /// 3.1.1 CONNACK "unacceptable protocol version") and relays 3.1.1 connections.
    @Suite struct ProtocolFallback {
        @Test(arguments: [TCPProxy.MQTT5Refusal.close, .unacceptableVersion])
        func aNodeThatRefusesMQTT5GetsMQTT311AndKeepsIt(refusal: TCPProxy.MQTT5Refusal) async throws {
            let broker = try MosquittoBroker()
            let proxy = try TCPProxy(targetPort: broker.port)
            defer { proxy.close() }
            proxy.refuseMQTT5(refusal)
            let url = "mqtt://127.0.0.1:\(proxy.port)"
            let client = try MQTTClient(configuration: configuration(url: url, clientID: "fallback"))
            let events = Inbox.draining(client.events)
            let inbox = Inbox.draining(client.messages)
            try await client.connect()
            #expect(!client.speaksV5)
            // A CONNACK refusal falls back at once; a close only after a second MQTT 5 CONNECT is closed too.
            let refused = refusal == .close ? 2 : 1
            #expect(proxy.refusedMQTT5Connects == refused)
            #expect(try await events.next { $0.fallbackBroker != nil }.fallbackBroker == url)

            // MQTT 5 options and properties are left out on this node, not refused.
            try await client.subscribe(to: "fallback/#", qos: .atLeastOnce, options: MQTTSubscriptionOptions(retainAsPublished: true))
            try await client.publish(to: "fallback/x", text: #"{"a":1}"#, qos: .atLeastOnce,
                                     properties: MQTTPublishProperties(contentType: "application/json"))
            let message = try await inbox.next { _ in true }
            #expect(message.payloadString == #"{"a":1}"# && message.properties.isEmpty)

            // The node is remembered: the reconnect after a lost connection speaks 3.1.1 at once.
            proxy.cutConnections()
            _ = try await events.next { $0.disconnectCode == "connection_lost" }
            _ = try await events.next { $0.isConnected }
            #expect(proxy.refusedMQTT5Connects == refused && !client.speaksV5)
            await client.disconnect()
            #expect(await events.seen.filter { $0.fallbackBroker != nil }.count == 1)
        }

        /// An MQTT 5 broker that closes one CONNECT without a CONNACK (going down or restarting after it
        /// accepted the connection) is tried with MQTT 5 again and keeps it, at start-up and after a
        /// lost connection.
        @Test func anMQTT5BrokerThatClosesOneConnectKeepsMQTT5() async throws {
            let broker = try MosquittoBroker()
            let proxy = try TCPProxy(targetPort: broker.port)
            defer { proxy.close() }
            let client = try MQTTClient(configuration: configuration(url: "mqtt://127.0.0.1:\(proxy.port)", clientID: "restarts"))
            let events = Inbox.draining(client.events)
            proxy.closeAfterConnect(next: 1)
            try await client.connect()
            #expect(client.speaksV5 && proxy.closedAfterConnect == 1)

            proxy.closeAfterConnect(next: 1)
            proxy.cutConnections()
            _ = try await events.next { $0.disconnectCode == "connection_lost" }
            _ = try await events.next { $0.isConnected }
            #expect(client.speaksV5 && proxy.closedAfterConnect == 2)
            await client.disconnect()
            #expect(await events.seen.allSatisfy { $0.fallbackBroker == nil })
        }

        /// `dropConnection()` (the agent's recycle of a stalled broker) cuts only a connection that is
        /// up: a reconnect still waiting for its CONNACK is left alone, so a broker that stalls for long
        /// is never taken for one that closes MQTT 5 CONNECTs (review2 A: two cut attempts made the
        /// client fall back to MQTT 3.1.1 for good).
        @Test func dropConnectionLeavesAReconnectWaitingForItsCONNACKAlone() async throws {
            let broker = try MosquittoBroker()
            let proxy = try TCPProxy(targetPort: broker.port)
            defer {
                proxy.close()
                broker.resume()
            }
            let client = try MQTTClient(configuration: configuration(url: "mqtt://127.0.0.1:\(proxy.port)", clientID: "recycled"))
            let events = Inbox.draining(client.events)
            try await client.connect()
            broker.pause()  // TCP stays up, nothing is answered
            let sent = proxy.bytesToTarget
            client.dropConnection()  // up: dropped, and made again
            _ = try await events.next { $0.disconnectCode == "connection_lost" }
            #expect(await proxy.bytesToTarget(moreThan: sent), "the reconnect's CONNECT reached the frozen broker")
            client.dropConnection()  // waiting for its CONNACK: left alone
            broker.resume()
            _ = try await events.next { $0.isConnected }
            #expect(proxy.acceptedConnections == 2, "the reconnect was not cut")
            #expect(client.speaksV5)
            await client.disconnect()
            #expect(await events.seen.allSatisfy { $0.fallbackBroker == nil })
        }

        @Test func withoutTheFallbackTheRefusalIsAConnectionFailure() async throws {
            let broker = try MosquittoBroker()
            let proxy = try TCPProxy(targetPort: broker.port)
            defer { proxy.close() }
            proxy.refuseMQTT5(.close)
            var settings = configuration(url: "mqtt://127.0.0.1:\(proxy.port)")
            settings.fallsBackToV311 = false
            let client = try MQTTClient(configuration: settings)
            let refusal = await #expect(throws: MQTTClientError.self) { try await client.connect() }
            #expect(refusal?.message.contains("set the protocol to 3.1.1") == true, "\(String(describing: refusal))")
        }

        @Test func aBrokerThatSpeaksMQTT5KeepsMQTT5() async throws {
            let broker = try MosquittoBroker()
            let client = try MQTTClient(configuration: configuration(for: broker))
            try await client.connect()
            #expect(client.speaksV5)
            await client.disconnect()
        }
    }
}
