import MQTTClient
import TestSupport
import Testing

extension BrokerTests {
    @Suite struct Will {
        /// The client's connection runs through a TCP relay that the test cuts: the broker sees the
        /// connection end without DISCONNECT — what a crash or a pulled cable looks like — and must
        /// publish the will.
        @Test(arguments: [MQTTProtocolVersion.v5, .v311])
        func willIsPublishedWhenTheConnectionDiesUncleanly(version: MQTTProtocolVersion) async throws {
            let broker = try MosquittoBroker()
            let proxy = try TCPProxy(targetPort: broker.port)
            defer { proxy.close() }
            let watcher = try MQTTClient(configuration: configuration(for: broker))
            let seen = Inbox.draining(watcher.messages)
            try await watcher.connect()
            try await watcher.subscribe(to: "nfc/reader-1/availability")

            var settings = configuration(url: "mqtt://127.0.0.1:\(proxy.port)", clientID: "reader-1",
                                         protocolVersion: version)
            settings.will = MQTTWill(topic: "nfc/reader-1/availability", text: "offline", qos: .atLeastOnce, retain: true)
            let reader = try MQTTClient(configuration: settings)
            try await reader.connect()
            try await reader.publish(to: "nfc/reader-1/availability", text: "online", qos: .atLeastOnce, retain: true)
            #expect(try await seen.next { _ in true }.payloadString == "online")

            proxy.cutConnections()

            let will = try await seen.next { _ in true }
            #expect(will.payloadString == "offline")
            #expect(will.qos == .atLeastOnce)
            await reader.disconnect()
            await watcher.disconnect()
        }

        @Test func willIsStoredAsRetainedForLateSubscribers() async throws {
            let broker = try MosquittoBroker()
            let proxy = try TCPProxy(targetPort: broker.port)
            defer { proxy.close() }
            var settings = configuration(url: "mqtt://127.0.0.1:\(proxy.port)", clientID: "reader-2")
            settings.will = MQTTWill(topic: "nfc/reader-2/availability", text: "offline",
                                     properties: MQTTPublishProperties(contentType: "text/plain"))
            let reader = try MQTTClient(configuration: settings)
            let readerEvents = Inbox.draining(reader.events)
            try await reader.connect()
            proxy.cutConnections()
            // The reader noticed the cut; the broker has dropped the session (and published the will).
            _ = try await readerEvents.next { $0.disconnectCode == "connection_lost" }
            await reader.disconnect()

            try await MQTTClient.withConnection(configuration(for: broker)) { late in
                let inbox = Inbox.draining(late.messages)
                try await late.subscribe(to: "nfc/reader-2/availability")
                let message = try await inbox.next { _ in true }
                #expect(message.payloadString == "offline")
                #expect(message.retain)
                #expect(message.properties.contentType == "text/plain")
            }
        }
    }
}
