import MQTTClient
import TestSupport
import Testing

extension BrokerTests {
    /// A node that never answers — its SYNs dropped, or TCP accepted and the CONNECT never answered —
    /// fails the attempt after `connectTimeout`, and a stop interrupts the wait (real mosquitto as the
    /// healthy node; ``SilentNode`` as the silent one).
    @Suite struct ConnectTimeout {
        /// The node that drops the SYNs fails at the TCP handshake, the one that accepts TCP at the
        /// CONNACK; either way the healthy node is reached, still with MQTT 5 (no refusal of MQTT 5).
        @Test(arguments: [(SilentNode.Behaviour.dropsSYNs, "no TCP connection within 1 s"),
                          (.acceptsAndIsSilent, "no CONNACK within 1 s")])
        func aSilentNodeIsLeftForTheNextNode(behaviour: SilentNode.Behaviour, failure expected: String) async throws {
            let silent = try SilentNode(behaviour)
            let healthy = try MosquittoBroker()
            var settings = configuration(url: silent.url)
            settings.failoverURLs = [healthy.url]
            settings.connectTimeout = .seconds(1)
            let client = try MQTTClient(configuration: settings)
            let events = Inbox.draining(client.events)
            try client.start()
            let failure = try await events.next { $0.failureCode != nil }
            #expect(failure.failureMessage?.contains(expected) == true, "\(failure)")
            _ = try await events.next { $0.isConnected }
            #expect(client.connectedURL == healthy.url)
            #expect(client.speaksV5)
            #expect(await !events.seen.contains { if case .fellBackToV311 = $0 { true } else { false } })
            await client.disconnect()
        }

        @Test func aStopInterruptsAConnectWaitingForTheTCPHandshake() async throws {
            let silent = try SilentNode(.dropsSYNs)
            var settings = configuration(url: silent.url)
            settings.connectTimeout = .seconds(600)  // only the stop can end this attempt
            let client = try MQTTClient(configuration: settings)
            let events = Inbox.draining(client.events)
            try client.start()
            #expect(await silent.clientConnecting())
            let stopping = Task { await client.disconnect() }
            // The client's events end once the stop is through (the inbox's guard ends a hang).
            #expect(await events.isFinished())
            await stopping.value
            #expect(await !events.seen.contains { $0.failureCode != nil })
        }

        @Test func aConnectTimeoutUnder100msIsRefused() {
            var settings = configuration(url: "mqtt://127.0.0.1:1")
            settings.connectTimeout = .milliseconds(50)
            #expect(throws: MQTTClientError.self) { try MQTTClient(configuration: settings) }
        }
    }
}

extension MQTTConnectionEvent {
    /// The message of a `.connectionFailed` event.
    var failureMessage: String? {
        if case .connectionFailed(let error) = self { return error.message }
        return nil
    }
}
