@testable import MQTTClient
import TestSupport
import Testing

/// The PUBLISH packet's size, counted as a broker's `max_packet_size` counts it (MQTT 5.0 §2.1,
/// §3.3; MQTT 3.1.1 §2.2, §3.3), and `MQTTConfiguration.maximumOutgoingPacket` refusing a larger
/// publish before it is sent (issue 20: under 3.1.1 a broker disconnects a client that sends more).
@Suite struct PacketSizeTests {
    @Test func fixedHeaderVariableHeaderAndPayload() {
        // 1 type byte, 1 Remaining Length byte, topic "a" (2 + 1), packet id (2).
        #expect(MQTTPacketSize.publish(topic: "a", payloadCount: 0, qos: .atLeastOnce, properties: .init(), isV5: false) == 7)
        #expect(MQTTPacketSize.publish(topic: "a", payloadCount: 0, qos: .atMostOnce, properties: .init(), isV5: false) == 5)
        // MQTT 5 adds the property length (one byte for none).
        #expect(MQTTPacketSize.publish(topic: "a", payloadCount: 0, qos: .atLeastOnce, properties: .init(), isV5: true) == 8)
    }

    @Test func remainingLengthGrowsAtEachSevenBits() {
        // Remaining Length 127 takes one byte, 128 two (MQTT 5.0 §1.5.5).
        let base = 2 + 1 + 2
        #expect(MQTTPacketSize.publish(topic: "a", payloadCount: 127 - base, qos: .atLeastOnce, properties: .init(), isV5: false) == 129)
        #expect(MQTTPacketSize.publish(topic: "a", payloadCount: 128 - base, qos: .atLeastOnce, properties: .init(), isV5: false) == 131)
        #expect(MQTTPacketSize.variableByteIntegerLength(16_383) == 2)
        #expect(MQTTPacketSize.variableByteIntegerLength(16_384) == 3)
        #expect(MQTTPacketSize.variableByteIntegerLength(268_435_455) == 4)
        #expect(MQTTPacketSize.publish(topic: "a", payloadCount: .max, qos: .atLeastOnce, properties: .init(), isV5: true) == .max)
    }

    @Test func propertiesAreIdentifierAndValue() {
        let properties = MQTTPublishProperties(
            responseTopic: "r/1", correlationData: [1, 2], contentType: "application/json", messageExpiryInterval: 5,
            payloadIsUTF8: true, userProperties: [MQTTUserProperty("k", "vv")])
        // 3+3 (response topic) + 3+2 + 3+16 + 5 + 2 + 1+2+1+2+2
        #expect(MQTTPacketSize.properties(properties) == 6 + 5 + 19 + 5 + 2 + 8)
    }
}

extension BrokerTests {
    /// Against a mosquitto with `max_packet_size`. MQTT counts the whole packet; mosquitto counts a
    /// little less — the broker the Remaining Length and one byte, libmosquitto (MQTT 5, from
    /// CONNACK) the Remaining Length and its own length bytes (mosquitto's lib/packet_mosq.c,
    /// `packet__read` and `packet__check_oversize`) — so a publish this count lets through the
    /// broker takes, and one a few bytes over the limit it refuses.
    @Suite struct PacketLimit {
        static let limit = 2048

        func broker() throws -> MosquittoBroker {
            try MosquittoBroker(.init(extraConfiguration: "max_packet_size \(Self.limit)"))
        }

        /// The payload that makes a QoS 1 publish to `topic` exactly `size` bytes.
        func payload(filling size: Int, topic: String, isV5: Bool) -> [UInt8] {
            let empty = MQTTPacketSize.publish(topic: topic, payloadCount: 0, qos: .atLeastOnce, properties: .init(), isV5: isV5)
            var count = size - empty
            // The Remaining Length may take one byte more once the payload is in.
            while MQTTPacketSize.publish(topic: topic, payloadCount: count, qos: .atLeastOnce, properties: .init(), isV5: isV5) > size {
                count -= 1
            }
            return [UInt8](repeating: 0x41, count: count)
        }

        @Test func v311PublishUpToTheLimitGoesAndOneByteMoreIsRefusedWithoutADisconnect() async throws {
            let broker = try broker()
            var limited = configuration(for: broker, protocolVersion: .v311)
            limited.maximumOutgoingPacket = Self.limit
            let publisher = try MQTTClient(configuration: limited)
            let subscriber = try MQTTClient(configuration: configuration(for: broker, protocolVersion: .v311))
            let inbox = Inbox.draining(subscriber.messages)
            let events = Inbox.draining(publisher.events)
            try await subscriber.connect()
            try await publisher.connect()
            try await subscriber.subscribe(to: "limit/#", qos: .atLeastOnce)

            let fits = payload(filling: Self.limit, topic: "limit/a", isV5: false)
            #expect(MQTTPacketSize.publish(topic: "limit/a", payloadCount: fits.count, qos: .atLeastOnce, properties: .init(), isV5: false) == Self.limit)
            try await publisher.publish(to: "limit/a", payload: fits, qos: .atLeastOnce)
            #expect(try await inbox.next { $0.topic == "limit/a" }.payload.count == fits.count)

            let code = await errorCode { try await publisher.publish(to: "limit/a", payload: fits + [0x42], qos: .atLeastOnce) }
            #expect(code == "payload_too_large")
            try await publisher.publish(to: "limit/b", payload: [0x01], qos: .atLeastOnce)
            #expect(try await inbox.next { $0.topic == "limit/b" }.payload == [0x01])
            #expect(publisher.isConnected)
            #expect(await events.seen.filter { $0.disconnectCode != nil }.isEmpty, "refused before sending: no disconnect")
            await publisher.disconnect()
            await subscriber.disconnect()
        }

        /// What the limit saves a 3.1.1 client from: without it, a few bytes more and the broker hangs up.
        @Test func v311WithoutTheLimitTheBrokerDisconnectsAFewBytesOver() async throws {
            let broker = try broker()
            let publisher = try MQTTClient(configuration: configuration(for: broker, protocolVersion: .v311))
            let events = Inbox.draining(publisher.events)
            try await publisher.connect()
            let over = payload(filling: Self.limit, topic: "limit/a", isV5: false) + [UInt8](repeating: 0x42, count: 8)
            Task { try? await publisher.publish(to: "limit/a", payload: over, qos: .atLeastOnce) }
            _ = try await events.next { $0.disconnectCode != nil }
            await publisher.disconnect()
        }

        /// Under MQTT 5 libmosquitto learns the limit from CONNACK; this count agrees with it.
        @Test func v5TheBrokersLimitFromConnackMatchesTheCount() async throws {
            let broker = try broker()
            let publisher = try MQTTClient(configuration: configuration(for: broker))
            let subscriber = try MQTTClient(configuration: configuration(for: broker))
            let inbox = Inbox.draining(subscriber.messages)
            try await subscriber.connect()
            try await publisher.connect()
            try await subscriber.subscribe(to: "limit/#", qos: .atLeastOnce)
            let fits = payload(filling: Self.limit, topic: "limit/a", isV5: true)
            try await publisher.publish(to: "limit/a", payload: fits, qos: .atLeastOnce)
            #expect(try await inbox.next { $0.topic == "limit/a" }.payload.count == fits.count)
            let over = fits + [UInt8](repeating: 0x42, count: 8)
            let code = await errorCode { try await publisher.publish(to: "limit/a", payload: over, qos: .atLeastOnce) }
            #expect(code == "payload_too_large")
            #expect(publisher.isConnected)
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }
}
