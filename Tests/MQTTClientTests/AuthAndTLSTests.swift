import MQTTClient
import TestSupport
import Testing

extension BrokerTests {
    @Suite struct Authentication {
        @Test(arguments: [MQTTProtocolVersion.v5, .v311])
        func usernameAndPassword(version: MQTTProtocolVersion) async throws {
            let broker = try MosquittoBroker(.init(users: ["reader-1": "s3cret", "ops": "other"]))
            var good = configuration(for: broker, protocolVersion: version)
            good.username = "reader-1"
            good.password = "s3cret"
            try await MQTTClient.withConnection(good) { client in
                #expect(client.isConnected)
            }

            var wrong = good
            wrong.password = "guess"
            #expect(await errorCode { try await MQTTClient.withConnection(wrong) { _ in } } == "auth_failed")
            let anonymous = configuration(for: broker, protocolVersion: version)
            #expect(await errorCode { try await MQTTClient.withConnection(anonymous) { _ in } } == "auth_failed")
        }

        @Test func failedConnectReportsTheCONNACKReason() async throws {
            let broker = try MosquittoBroker(.init(users: ["reader-1": "s3cret"]))
            var settings = configuration(for: broker)
            settings.username = "reader-1"
            settings.password = "wrong"
            let client = try MQTTClient(configuration: settings)
            let events = Inbox.draining(client.events)
            do {
                try await client.connect()
                Issue.record("connect() succeeded with a wrong password")
            } catch let error as MQTTClientError {
                guard case .authFailed(let reasonCode, _) = error else {
                    Issue.record("expected authFailed, got \(error)")
                    return
                }
                #expect([0x86, 0x87].contains(reasonCode))
            }
            // A failed connect() stops the client: the failure is the last event, no retry follows.
            _ = try await events.next { $0.failureCode == "auth_failed" }
            #expect(client.isConnected == false)
            await client.disconnect()
            #expect(await events.isFinished())
            #expect(await events.seen.contains { $0.isReconnecting } == false)
        }

        @Test func brokerDownMakesConnectFailFast() async throws {
            let broker = try MosquittoBroker(start: false)
            let client = try MQTTClient(configuration: configuration(for: broker))
            #expect(await errorCode { try await client.connect() } == "broker_unreachable")
            // The client can try again once the broker is up.
            try broker.start()
            try await client.connect()
            #expect(client.isConnected)
            await client.disconnect()
        }
    }

    @Suite struct TLS {
        @Test func tlsWithTheTestCA() async throws {
            let broker = try MosquittoBroker(.init(tls: .loopback))
            var settings = configuration(for: broker)
            #expect(settings.url.hasPrefix("mqtts://127.0.0.1:"))
            settings.tls = .enabled(MQTTTLSConfiguration(caFile: broker.caFile))
            try await MQTTClient.withConnection(settings) { client in
                let inbox = Inbox.draining(client.messages)
                try await client.subscribe(to: "secure/#")
                try await client.publish(to: "secure/hello", text: "over TLS", qos: .atLeastOnce)
                #expect(try await inbox.next { _ in true }.payloadString == "over TLS")
            }
        }

        @Test func hostnameMismatchIsATLSError() async throws {
            let broker = try MosquittoBroker(.init(tls: .hostname("broker.example.invalid")))
            var settings = configuration(for: broker)
            settings.tls = .enabled(MQTTTLSConfiguration(caFile: broker.caFile))
            let client = try MQTTClient(configuration: settings)
            do {
                try await client.connect()
                Issue.record("connected although the certificate names another host")
            } catch let error as MQTTClientError {
                #expect(error.code == "tls_error")
            }
            await client.disconnect()

            // Only when asked for explicitly does the client skip the hostname check.
            settings.tls = .enabled(MQTTTLSConfiguration(caFile: broker.caFile, verifyHostname: false))
            try await MQTTClient.withConnection(settings) { client in #expect(client.isConnected) }
        }

        /// `verifyCertificate: false` (the agent's `mqtt.tls_insecure`): a broker whose certificate
        /// chains to no trusted CA and names another host is accepted — and only then.
        @Test func certificateVerificationOffAcceptsAnyBroker() async throws {
            let broker = try MosquittoBroker(.init(tls: .hostname("broker.example.invalid")))
            var settings = configuration(for: broker)
            settings.tls = .enabled(MQTTTLSConfiguration())
            #expect(await errorCode { try await MQTTClient.withConnection(settings) { _ in } } == "tls_error")
            settings.tls = .enabled(MQTTTLSConfiguration(verifyHostname: false, verifyCertificate: false))
            try await MQTTClient.withConnection(settings) { client in #expect(client.isConnected) }
        }

        @Test func untrustedCertificateIsATLSError() async throws {
            let broker = try MosquittoBroker(.init(tls: .loopback))
            // mqtts:// without a CA file: the operating system's trust store, which lacks the test CA.
            let settings = configuration(for: broker)
            #expect(await errorCode { try await MQTTClient.withConnection(settings) { _ in } } == "tls_error")
        }

        @Test func unreadableCAFileIsATLSError() {
            var settings = configuration(url: "mqtts://127.0.0.1:8883")
            settings.tls = .enabled(MQTTTLSConfiguration(caFile: "/nonexistent/ca.pem"))
            do {
                _ = try MQTTClient(configuration: settings)
                Issue.record("a missing CA file was accepted")
            } catch {
                #expect(error.code == "tls_error")
            }
        }
    }
}

extension BrokerTests {
    @Suite struct AccessControl {
        static let acl = """
            user reader-1
            topic readwrite nfc/reader-1/#
            """

        @Test func v5PublishDeniedByACLIsRefusedWithReason0x87() async throws {
            let broker = try MosquittoBroker(.init(users: ["reader-1": "pw"], acl: Self.acl))
            var settings = configuration(for: broker)
            settings.username = "reader-1"
            settings.password = "pw"
            try await MQTTClient.withConnection(settings) { client in
                try await client.publish(to: "nfc/reader-1/event", text: "ok", qos: .atLeastOnce)
                do {
                    try await client.publish(to: "nfc/reader-2/event", text: "foreign", qos: .atLeastOnce)
                    Issue.record("the broker accepted a publish its ACL denies")
                } catch let error as MQTTClientError {
                    #expect(error == .publishRefused(reasonCode: 0x87, reason: "Not authorized"))
                }
                // (Mosquitto 2.0.11's built-in ACL never refuses a SUBSCRIBE — it filters on delivery —
                // so `subscription_refused` cannot be provoked here.)
            }
        }
    }
}
