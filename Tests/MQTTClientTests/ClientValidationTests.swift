import MQTTClient
import Testing

/// Checks that need no broker: configuration and argument validation.
@Suite struct ClientValidationTests {
    private func code(_ configuration: MQTTConfiguration) -> String? {
        do {
            _ = try MQTTClient(configuration: configuration)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func refusesInconsistentConfigurations() {
        var settings = MQTTConfiguration(url: "mqtt://127.0.0.1:1883")
        #expect(code(settings) == nil)
        settings.password = "secret"
        #expect(code(settings) == "invalid_configuration")  // a password without a username
        settings = MQTTConfiguration(url: "mqtt://127.0.0.1:1883", keepAlive: .seconds(2))
        #expect(code(settings) == "invalid_configuration")
        settings = MQTTConfiguration(url: "mqtt://127.0.0.1:1883", cleanStart: false)
        #expect(code(settings) == "invalid_configuration")  // a persistent session needs a client id
        settings = MQTTConfiguration(url: "mqtt://127.0.0.1:1883", clientID: "")
        #expect(code(settings) == "invalid_configuration")
        settings = MQTTConfiguration(url: "mqtts://127.0.0.1", tls: .enabled(MQTTTLSConfiguration(minimumVersion: "sslv2")))
        #expect(code(settings) == "invalid_configuration")
        settings = MQTTConfiguration(url: "mqtt://127.0.0.1", messageBufferSize: 0)
        #expect(code(settings) == "invalid_configuration")
    }

    @Test func checksTheWill() {
        var settings = MQTTConfiguration(url: "mqtt://127.0.0.1:1883")
        settings.will = MQTTWill(topic: "nfc/+/availability", text: "offline")
        #expect(code(settings) == "invalid_topic")
        settings = MQTTConfiguration(url: "mqtt://127.0.0.1:1883", protocolVersion: .v311)
        settings.will = MQTTWill(topic: "nfc/r/availability", text: "offline",
                                 properties: MQTTPublishProperties(messageExpiryInterval: 60))
        #expect(code(settings) == "not_supported")
        settings.protocolVersion = .v5(MQTTConnectProperties(sessionExpiryInterval: 300))
        #expect(code(settings) == nil)
    }

    @Test func publishingBeforeStartingNeedsAConnection() async throws {
        let client = try MQTTClient(configuration: MQTTConfiguration(url: "mqtt://127.0.0.1:1"))
        #expect(client.isConnected == false)
        await #expect(throws: MQTTClientError.notConnected) { try await client.publish(to: "a/b", text: "x") }
        await #expect(throws: MQTTClientError.self) {
            try await client.publish(to: "a/b", payload: [], properties: MQTTPublishProperties(
                correlationData: [UInt8](repeating: 0, count: 70_000)))
        }
        await client.disconnect()
    }

    @Test func protocolVersionShorthand() {
        #expect(MQTTProtocolVersion.v5 == .v5(MQTTConnectProperties()))
        #expect(MQTTProtocolVersion.v5.isV5)
        #expect(!MQTTProtocolVersion.v311.isV5)
        #expect(MQTTConfiguration(url: "mqtt://x").protocolVersion == .v5)
    }
}

extension ClientValidationTests {
    @Test func pendingQoS1PublishFailsWhenTheClientIsClosed() async throws {
        let client = try MQTTClient(configuration: MQTTConfiguration(url: "mqtt://127.0.0.1:1"))
        // Never started: libmosquitto holds the message; closing the client answers the waiter.
        let publishing = Task { try await client.publish(to: "a/b", text: "x", qos: .atLeastOnce) }
        await client.disconnect()
        await #expect(throws: MQTTClientError.notConnected) { try await publishing.value }
        await #expect(throws: MQTTClientError.notConnected) { try await client.connect() }
    }
}

extension ClientValidationTests {
    @Test func configurationNeverPrintsThePassword() {
        var settings = MQTTConfiguration(url: "mqtt://127.0.0.1:1883", username: "reader-1", password: "hunter2")
        settings.will = MQTTWill(topic: "nfc/reader-1/availability", text: "offline")
        var dumped = ""
        dump(settings, to: &dumped)
        for text in ["\(settings)", String(describing: settings), String(reflecting: settings), dumped] {
            #expect(!text.contains("hunter2"))
            #expect(text.contains("reader-1"))
        }
    }
}
