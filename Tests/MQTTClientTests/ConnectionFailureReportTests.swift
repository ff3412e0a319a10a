import Foundation
import MQTTClient
import Synchronization
import TestSupport
import Testing

/// The reports `MQTTClient(configuration:onConnectionFailure:)` gives while connecting fails: why
/// (refused, not authorised, TLS with OpenSSL's reason), when the next attempt comes, and only once
/// per change of reason — a broker that stays down gives one report, not one per retry.
extension BrokerTests {
    @Suite struct ConnectionFailureReports {
        /// Collects the reports a client gives.
        final class Reports: Sendable {
            private let items = Mutex<[MQTTConnectionFailure]>([])
            var all: [MQTTConnectionFailure] { items.withLock { $0 } }
            func add(_ report: MQTTConnectionFailure) { items.withLock { $0.append(report) } }
        }

        /// Index of the `count`-th `.reconnecting` event after `start` in `events`.
        static func retries(_ events: Inbox<MQTTConnectionEvent>, count: Int) async throws {
            for _ in 0..<count { _ = try await events.next { $0.isReconnecting } }
        }

        /// The reason of each kind of failure, as the errors the client maps libmosquitto's results to.
        @Test(arguments: [
            (MQTTClientError.brokerUnreachable("Connection refused"), "connection refused"),
            (.brokerUnreachable("host name lookup failed"), "host name lookup failed"),
            (.brokerUnreachable("Connection timed out"), "timed out"),
            (.brokerUnreachable("Network is unreachable"), "unreachable"),
            (.tlsError("certificate verify failed"), "TLS"),
            (.authFailed(reasonCode: 0x86, reason: "Bad user name or password"), "not authorised"),
            (.connectionRefused(reasonCode: 0x8A, reason: "Server unavailable"), "refused by the broker"),
        ])
        func everyFailureHasItsReason(error: MQTTClientError, reason: String) {
            let report = MQTTConnectionFailure(
                broker: "broker.lan:8883", error: error, attempt: 3, retryIn: .milliseconds(1500), maximumDelay: .seconds(30))
            #expect(report.reason == reason)
            #expect(report.description.hasPrefix("cannot connect to the MQTT broker broker.lan:8883 (\(reason)): \(error.code): "), "\(report)")
            #expect(report.description.contains("retrying in 1.5 s (back-off up to 30 s"), "\(report)")
        }

        /// The counter keys of `MQTTClient.connectionFailureCounts` (and the agent's `health`).
        @Test(arguments: [
            (MQTTClientError.brokerUnreachable("Connection refused"), "refused"),
            (.brokerUnreachable("host name lookup failed"), "dns"),
            (.brokerUnreachable("Connection timed out"), "timeout"),
            (.brokerUnreachable("Network is unreachable"), "unreachable"),
            (.tlsError("certificate verify failed"), "tls"),
            (.authFailed(reasonCode: 0x86, reason: "Bad user name or password"), "not_authorized"),
            (.connectionRefused(reasonCode: 0x8A, reason: "Server unavailable"), "connack_refused"),
        ])
        func everyFailureHasItsCounterKey(error: MQTTClientError, key: String) {
            #expect(MQTTConnectionFailure.reasonKey(for: error) == key)
        }

        @Test func aRefusedPortIsReportedOnceWithTheBackoff() async throws {
            let broker = try MosquittoBroker(start: false)
            let reports = Reports()
            let client = try MQTTClient(configuration: configuration(for: broker)) { reports.add($0) }
            let events = Inbox.draining(client.events)
            try client.start()
            // Five failed attempts, one reason: one report.
            try await Self.retries(events, count: 5)
            let first = try #require(reports.all.first)
            #expect(reports.all.count == 1, "\(reports.all)")
            #expect(first.error.code == "broker_unreachable")
            #expect(first.reason == "connection refused")
            #expect(first.attempt == 1)
            #expect(first.broker == "127.0.0.1:\(broker.port)")
            #expect(first.description.contains("(connection refused)"), "\(first.description)")
            #expect(first.description.contains("retrying in "), "\(first.description)")
            #expect(first.maximumDelay == .milliseconds(400))
            // Reported once, counted every time.
            #expect((client.connectionFailureCounts["refused"] ?? 0) >= 5, "\(client.connectionFailureCounts)")

            // Connected, then down again: a new outage is reported again.
            try broker.start()
            _ = try await events.next { $0.isConnected }
            broker.stop()
            _ = try await events.next { $0.failureCode == "broker_unreachable" }
            try await Self.retries(events, count: 2)
            #expect(reports.all.count == 2, "\(reports.all)")
            await client.disconnect()
        }

        @Test func badCredentialsAfterARefusalAreAnotherReport() async throws {
            let broker = try MosquittoBroker(.init(users: ["reader-1": "s3cret"]), start: false)
            var settings = configuration(for: broker)
            settings.username = "reader-1"
            settings.password = "wrong"
            let reports = Reports()
            let client = try MQTTClient(configuration: settings) { reports.add($0) }
            let events = Inbox.draining(client.events)
            try client.start()
            _ = try await events.next { $0.failureCode == "broker_unreachable" }
            try broker.start()
            _ = try await events.next { $0.failureCode == "auth_failed" }
            try await Self.retries(events, count: 3)
            let reasons = reports.all.map(\.reason)
            #expect(reasons == ["connection refused", "not authorised"], "\(reports.all)")
            #expect(reports.all.last?.description.contains("the broker refused the credentials") == true, "\(reports.all)")
            await client.disconnect()
        }

        @Test func aCAMismatchIsReportedWithOpenSSLsReason() async throws {
            let broker = try MosquittoBroker(.init(tls: .loopback))
            // Another test CA: the broker's certificate does not chain to it.
            let stranger = try MosquittoBroker(.init(tls: .loopback), start: false)
            var settings = configuration(for: broker)
            settings.tls = .enabled(MQTTTLSConfiguration(caFile: stranger.caFile))
            let reports = Reports()
            let client = try MQTTClient(configuration: settings) { reports.add($0) }
            let events = Inbox.draining(client.events)
            try client.start()
            _ = try await events.next { $0.failureCode == "tls_error" }
            try await Self.retries(events, count: 3)
            #expect(reports.all.count == 1, "\(reports.all)")
            let report = try #require(reports.all.first)
            #expect(report.reason == "TLS")
            #expect(report.description.lowercased().contains("certificate verify failed"), "\(report.description)")
            #expect((client.connectionFailureCounts["tls"] ?? 0) >= 3, "\(client.connectionFailureCounts)")
            await client.disconnect()
        }
    }
}
