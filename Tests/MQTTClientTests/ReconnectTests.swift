import MQTTClient
import TestSupport
import Testing

extension BrokerTests {
    @Suite struct Reconnect {
        @Test func brokerDownAtStartIsRetriedUntilItComesUp() async throws {
            let broker = try MosquittoBroker(start: false)
            let client = try MQTTClient(configuration: configuration(for: broker))
            let events = Inbox.draining(client.events)
            try client.start()  // never fails because the broker is down

            let failure = try await events.next { $0.failureCode != nil }
            #expect(failure.failureCode == "broker_unreachable")
            let retry = try await events.next { $0.isReconnecting }
            guard case .reconnecting(let attempt, _) = retry else {
                Issue.record("expected a reconnecting event, got \(retry)")
                return
            }
            #expect(attempt == 1)
            #expect(client.isConnected == false)
            // libmosquitto's own loop_start thread would stop retrying here (peers-mqtt.md §5.3.1).
            _ = try await events.next { $0.failureCode != nil }

            try broker.start()
            _ = try await events.next { $0.isConnected }
            #expect(client.isConnected)
            await client.disconnect()
            _ = try await events.next { $0.disconnectCode == "clean" }
        }

        @Test(arguments: [MQTTProtocolVersion.v5, .v311])
        func brokerRestartReconnectsAndRestoresSubscriptions(version: MQTTProtocolVersion) async throws {
            let broker = try MosquittoBroker()
            let subscriber = try MQTTClient(configuration: configuration(for: broker, protocolVersion: version))
            let publisher = try MQTTClient(configuration: configuration(for: broker, protocolVersion: version))
            let subscriberEvents = Inbox.draining(subscriber.events)
            let publisherEvents = Inbox.draining(publisher.events)
            let inbox = Inbox.draining(subscriber.messages)
            try await subscriber.connect()
            try await publisher.connect()
            try await subscriber.subscribe(to: "nfc/reader-1/request/#")
            try await publisher.publish(to: "nfc/reader-1/request/a", text: "before", qos: .atLeastOnce)
            #expect(try await inbox.next { _ in true }.payloadString == "before")

            try broker.restart()  // same port; the broker has no persistence, so subscriptions are gone

            let lost = try await subscriberEvents.next { $0.disconnectCode != nil }
            #expect(lost.disconnectCode == "connection_lost")
            // `.connected` comes after the broker acknowledged the re-subscription.
            _ = try await subscriberEvents.next { $0.isConnected }
            _ = try await publisherEvents.next { $0.isConnected }
            try await publisher.publish(to: "nfc/reader-1/request/b", text: "after", qos: .atLeastOnce)
            #expect(try await inbox.next { _ in true }.payloadString == "after")
            await publisher.disconnect()
            await subscriber.disconnect()
        }

        @Test(arguments: [MQTTProtocolVersion.v5, .v311])
        func refusedConnackIsRetriedUntilThePasswordIsFixed(version: MQTTProtocolVersion) async throws {
            let broker = try MosquittoBroker(.init(users: ["reader-1": "old-secret"]))
            var settings = configuration(for: broker, clientID: "reader-1", protocolVersion: version)
            settings.username = "reader-1"
            settings.password = "new-secret"
            let client = try MQTTClient(configuration: settings)
            let events = Inbox.draining(client.events)
            try client.start()

            // The refusal (v5 CONNACK 0x86/0x87, v3.1.1 CONNACK 4/5) is reported and then retried.
            let refusal = try await events.next { $0.failureCode != nil }
            #expect(refusal.failureCode == "auth_failed")
            _ = try await events.next { $0.isReconnecting }
            // libmosquitto's loop_start thread ends after a refused v5 CONNACK (peers-mqtt.md §5.3.2).
            _ = try await events.next { $0.failureCode == "auth_failed" }

            try broker.setPassword("new-secret", for: "reader-1")
            if version.isV5 { try broker.reload() } else { try broker.restart() }
            _ = try await events.next { $0.isConnected }
            #expect(client.isConnected)
            await client.disconnect()
        }

        @Test func qos1PublishWhileDisconnectedIsDeliveredAfterTheConnectionComesUp() async throws {
            let broker = try MosquittoBroker(start: false)
            let client = try MQTTClient(configuration: configuration(for: broker, clientID: "spooler"))
            let events = Inbox.draining(client.events)
            let inbox = Inbox.draining(client.messages)
            try client.start()
            // Remembered now, sent with the first CONNACK — before libmosquitto resends its queue.
            try await client.subscribe(to: "queued/#")
            _ = try await events.next { $0.failureCode != nil }

            // QoS 0 needs a live connection.
            #expect(await errorCode { try await client.publish(to: "queued/zero", text: "lost") } == "not_connected")
            // QoS 1 is held in libmosquitto's memory queue; publish() returns only after the PUBACK.
            let publishing = Task { try await client.publish(to: "queued/one", text: "kept", qos: .atLeastOnce) }
            try broker.start()
            try await publishing.value
            let message = try await inbox.next { _ in true }
            #expect(message.topic == "queued/one")
            #expect(message.payloadString == "kept")
            await client.disconnect()
        }

        @Test func cancellingAPendingQoS1PublishStopsTheWait() async throws {
            let broker = try MosquittoBroker(start: false)
            let client = try MQTTClient(configuration: configuration(for: broker))
            let publishing = Task { try await client.publish(to: "queued/one", text: "kept", qos: .atLeastOnce) }
            publishing.cancel()
            await #expect(throws: CancellationError.self) { try await publishing.value }
            await client.disconnect()
        }

        @Test func disconnectEndsTheStreamsAndIsFinal() async throws {
            let broker = try MosquittoBroker()
            let client = try MQTTClient(configuration: configuration(for: broker))
            let events = Inbox.draining(client.events)
            let messages = Inbox.draining(client.messages)
            try await client.connect()
            await client.disconnect()
            await client.disconnect()  // idempotent
            #expect(await events.isFinished())
            #expect(await messages.isFinished())
            #expect(await events.seen.last?.disconnectCode == "clean")
            #expect(throws: MQTTClientError.notConnected) { try client.start() }
        }
    }
}
