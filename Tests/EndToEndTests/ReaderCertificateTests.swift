import Foundation
import MQTTClient
import Testing
import TestSupport

/// Per-reader client certificates (docs/fleet.md, "Per-reader credentials"): deploy/mosquitto's
/// add-reader.sh with `NFCBRIDGE_CLIENT_CERT=1` makes a certificate per reader, signed by the broker's
/// CA; the broker requires one and takes its CN as the user name (`use_identity_as_username`), so the
/// sample ACL's `%u` patterns hold each reader to its own topics. A reader holding another reader's
/// certificate is that other reader to the broker, and cannot publish under its own id's topics.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ReaderCertificateTests {
    @Test func aReaderWithAnotherReadersCertificateCannotPublishUnderItsTopics() async throws {
        let acl = try String(
            contentsOf: Binaries.packageRoot.appendingPathComponent("deploy/mosquitto/nfcbridge.acl"), encoding: .utf8)
        let broker = try MosquittoBroker(
            MosquittoBroker.Options(
                tls: .loopback, acl: acl, extraConfiguration: "require_certificate true\nuse_identity_as_username true"),
            start: false)
        let certificates = broker.directory.appendingPathComponent("readers").path
        // The operator's certificate comes from the same script (the ACL's `user operator` block applies to its CN).
        for reader in ["reader-hall", "reader-door", "operator"] {
            let result = try runProcess(
                Binaries.packageRoot.appendingPathComponent("deploy/mosquitto/add-reader.sh").path, [reader],
                environment: [
                    "NFCBRIDGE_CLIENT_CERT": "1", "NFCBRIDGE_NO_RELOAD": "1",
                    "NFCBRIDGE_CA_CERT": broker.directory.appendingPathComponent("ca.crt").path,
                    "NFCBRIDGE_CA_KEY": broker.directory.appendingPathComponent("ca.key").path,
                    "NFCBRIDGE_CERT_DIR": certificates,
                    "NFCBRIDGE_ACL": broker.directory.appendingPathComponent("acl").path,
                    "NFCBRIDGE_PASSWD": broker.directory.appendingPathComponent("unused.passwd").path,
                ])
            #expect(result.status == 0, "add-reader.sh \(reader): \(result.err)")
            #expect(result.out.contains("reader \(reader): client certificate \(certificates)/\(reader).crt"))
            // No password was made: the certificate is the credential.
            #expect(!FileManager.default.fileExists(atPath: broker.directory.appendingPathComponent("unused.passwd").path))
        }
        // The script appended each reader's block to the ACL the broker reads.
        let written = try String(contentsOf: broker.directory.appendingPathComponent("acl"), encoding: .utf8)
        #expect(written.contains("user reader-hall\ntopic read homeassistant/status"))
        #expect(written.contains("user reader-door\ntopic read homeassistant/status"))
        try broker.start()
        defer { broker.stop() }

        func client(certificateOf reader: String, clientID: String) throws -> MQTTClient {
            try MQTTClient(
                configuration: MQTTConfiguration(
                    url: broker.url, clientID: clientID,
                    tls: .enabled(
                        MQTTTLSConfiguration(
                            caFile: broker.caFile, certificateFile: "\(certificates)/\(reader).crt",
                            keyFile: "\(certificates)/\(reader).key"))))
        }
        let operatorClient = try client(certificateOf: "operator", clientID: "operator")
        let seen = RecordingStream(operatorClient.messages)
        try await operatorClient.connect()
        try await operatorClient.subscribe(to: "nfc/#", qos: .atLeastOnce)
        let door = try client(certificateOf: "reader-door", clientID: "nfcbridge-reader-door")
        try await door.connect()
        // Its own topics: accepted (PUBACK without an error).
        try await door.publish(to: "nfc/reader-door/status", text: "online", qos: .atLeastOnce, retain: true)

        // reader-hall's board, but reader-door's certificate in its config: to the broker it is
        // reader-door, and reader-hall's topics are not its own.
        let impostor = try client(certificateOf: "reader-door", clientID: "nfcbridge-reader-hall")
        try await impostor.connect()
        let refusal = await #expect(throws: MQTTClientError.self) {
            try await impostor.publish(to: "nfc/reader-hall/event/scanned", text: #"{"uid":"forged"}"#, qos: .atLeastOnce)
        }
        #expect(refusal?.code == "publish_refused")
        let stateRefusal = await #expect(throws: MQTTClientError.self) {
            try await impostor.publish(to: "nfc/reader-hall/status", text: "online", qos: .atLeastOnce, retain: true)
        }
        #expect(stateRefusal?.code == "publish_refused")

        // reader-hall with its own certificate may. The operator gets reader-door's and reader-hall's
        // own publishes, and nothing of the impostor's.
        let hall = try client(certificateOf: "reader-hall", clientID: "nfcbridge-reader-hall-2")
        try await hall.connect()
        try await hall.publish(to: "nfc/reader-hall/status", text: "online-by-hall", qos: .atLeastOnce, retain: true)
        try await seen.next { $0.topic == "nfc/reader-door/status" && $0.payloadString == "online" }
        try await seen.next { $0.topic == "nfc/reader-hall/status" && $0.payloadString == "online-by-hall" }
        #expect(!seen.received.contains { $0.topic == "nfc/reader-hall/event/scanned" })
        #expect(seen.received.filter { $0.topic == "nfc/reader-hall/status" }.map(\.payloadString) == ["online-by-hall"])

        // Without a certificate the broker does not let a client in at all.
        let anonymous = try MQTTClient(
            configuration: MQTTConfiguration(url: broker.url, tls: .enabled(MQTTTLSConfiguration(caFile: broker.caFile))))
        await #expect(throws: MQTTClientError.self) { try await anonymous.connect() }

        await operatorClient.disconnect()
        await impostor.disconnect()
        await door.disconnect()
        await hall.disconnect()
    }
}
