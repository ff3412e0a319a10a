import Foundation
import MQTTClient
import Testing
import TestSupport

/// Signed requests end to end (issue 10, "Security"): the agent with `commands.require_signature`,
/// a client that signs exactly as docs/mqtt.md shows — `openssl dgst -sha256 -hmac` over the topic,
/// a line feed and the body — and the real mosquitto, libnfc and simulator in between.
extension CommandsMQTTTests {
    /// Signs `body` for `<root>/request/<command>` with the openssl CLI and returns the envelope.
    static func signedEnvelope(_ body: String, command: String = "write", key: String, folder: TemporaryFolder) throws -> String {
        let canonical = try folder.write("canonical-\(UUID().uuidString)", "\(CommandAgentHarness.root)/request/\(command)\n\(body)")
        let result = try runProcess("/usr/bin/openssl", ["dgst", "-sha256", "-hmac", key, "-r", canonical])
        guard result.status == 0, let sig = result.out.split(separator: " ").first, sig.count == 64 else {
            throw SimulatorProcess.Failure(description: "openssl dgst failed (\(result.status)): \(result.out)")
        }
        let envelope = try JSONSerialization.data(withJSONObject: ["signed": body, "sig": String(sig)], options: [.sortedKeys])
        return String(decoding: envelope, as: UTF8.self)
    }

    @Test func signedRequestsAreAcceptedAndEverythingElseIsNotPermitted() async throws {
        let folder = try TemporaryFolder()
        let key = "e2e-signing-key-0123456789abcdef"
        let keyFile = try folder.write("request.key", key + "\n")
        try await withCommandAgent(
            scenario: Self.sticker, commands: "{require_signature: true, signature_key_file: \(keyFile)}") { h in
            let now = Int(Date().timeIntervalSince1970)
            func sign(_ body: String) throws -> String { try Self.signedEnvelope(body, key: key, folder: folder) }

            let good = try sign(#"{"id":"s1","nonce":"e2e-nonce-0001","records":[{"text":"signed"}],"ts":\#(now)}"#)
            try await h.request("write", good)
            #expect(await h.final("write", id: "s1").status == "ok")
            #expect(try h.ndef() == message(#"[{"text":"signed"}]"#))

            // The same envelope again: a replay, refused before the result cache is asked.
            try await h.request("write", good)
            let replay = await h.final("write", id: "s1")
            #expect(replay.errorCode == "not_permitted")
            #expect(replay.errorMessage?.contains("already used") == true, "\(replay.errorMessage ?? "")")

            try await h.request("write", #"{"id":"u1","records":[{"text":"unsigned"}]}"#)
            #expect(await h.final("write", id: "u1").errorCode == "not_permitted")

            // Signed, then changed: the body no longer matches its signature.
            let forged = try sign(#"{"id":"f1","nonce":"e2e-nonce-0002","records":[{"text":"hello"}],"ts":\#(now)}"#)
                .replacingOccurrences(of: "hello", with: "forged")
            try await h.request("write", forged)
            #expect(await h.final("write", id: "f1").errorCode == "not_permitted")

            let stale = try sign(#"{"id":"t1","nonce":"e2e-nonce-0003","records":[{"text":"stale"}],"ts":\#(now - 3600)}"#)
            try await h.request("write", stale)
            let staleAnswer = await h.final("write", id: "t1")
            #expect(staleAnswer.errorCode == "not_permitted")
            #expect(staleAnswer.errorMessage?.contains("from the agent's clock") == true, "\(staleAnswer.errorMessage ?? "")")

            // A client retry: the same id, signed afresh — the first result again, marked replayed.
            try await h.request("write", try sign(#"{"id":"s1","nonce":"e2e-nonce-0004","records":[{"text":"signed"}],"ts":\#(now)}"#))
            let retry = await h.final("write", id: "s1")
            #expect(retry.status == "ok")
            #expect(retry.object?["replayed"] as? Bool == true)
            #expect(try h.ndef() == message(#"[{"text":"signed"}]"#))
            #expect(h.process?.waitForErrorOutput("refused: not_permitted") == true, "\(h.process?.errorOutput ?? "")")
        }
    }
}

extension CommandsMQTTTests {
    /// What docs/mqtt.md, "Retained requests", says of MQTT 3.1.1, as it is: a retained request on
    /// the broker when the agent subscribes is ignored; one published retained while it is connected
    /// arrives without the flag and cannot be told from a live one — it acts once, and is ignored as
    /// the stored retained message it is after the next reconnect.
    @Test func underMQTT311OnlyRetainedRequestsStoredBeforeTheSubscriptionAreSeen() async throws {
        try await withCommandAgent(scenario: Self.sticker, agentProtocol: "3.1.1", before: { broker in
            try await Self.leaveStaleRetainedWrite(on: broker)
        }) { h in
            try await h.request("write", #"{"id":"live","records":[{"text":"live"}]}"#)
            #expect(await h.final("write", id: "live").status == "ok")
            #expect(!h.all(on: "nfc/e2e/response/write").contains { $0.object?["id"] as? String == "stale" })

            try await h.client.publish(
                to: "nfc/e2e/request/write", text: #"{"id":"retained-live","records":[{"text":"retained"}]}"#,
                qos: .atLeastOnce, retain: true)
            #expect(await h.final("write", id: "retained-live").status == "ok", "the documented 3.1.1 limit")
            #expect(try h.ndef() == message(#"[{"text":"retained"}]"#))

            // After a reconnect the broker sends it again, flagged retained: ignored this time. (A client
            // with the agent's id takes its session over: the agent reconnects and subscribes again.)
            #expect(h.process?.waitForErrorOutput("ignoring the retained request") == true)
            #expect(h.process?.errorOutput.components(separatedBy: "ignoring the retained request").count == 2)
            try await MQTTClient.withConnection(
                MQTTConfiguration(url: h.broker.url, protocolVersion: .v311, clientID: "nfcbridge-e2e")) { _ in }
            #expect(
                h.process?.waitForErrorOutput("ignoring the retained request", count: 2) == true, "\(h.process?.errorOutput ?? "")")
            try await h.request("write", #"{"id":"after","records":[{"text":"after"}]}"#)
            #expect(await h.final("write", id: "after").status == "ok")
            let answers = h.all(on: "nfc/e2e/response/write").filter { $0.object?["id"] as? String == "retained-live" }
            #expect(answers.count == 1, "\(answers.map { $0.payloadString ?? "" })")
        }
    }
}

/// TLS as the agent sees it: a broker it cannot verify is logged with OpenSSL's reason and counted
/// in `health`; `mqtt.tls_insecure` connects anyway, warning at every connect.
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentTLSTests {
    /// The options of an agent without a reader on a TLS broker, with more `mqtt` keys; the test
    /// connects its watcher itself (``watch(_:tls:)``).
    static func options(broker: MosquittoBroker.TLSIdentity, mqtt: [String]) -> AgentRun.Options {
        AgentRun.Options(reader: .absent(link: "no-reader"), broker: .init(tls: broker), mqtt: mqtt, watcherFilters: nil)
    }

    /// A client that trusts `tls` and records everything under `nfc/e2e/`.
    func watch(_ run: AgentRun, tls: MQTTTLSConfiguration) async throws -> (MQTTClient, RecordingStream<MQTTMessage>) {
        let watcher = try await run.connectWatcher(clientID: "tls-watcher", tls: tls)
        return (watcher.client, watcher.seen)
    }

    @Test func aCertificateFromAnotherCAIsLoggedWithTheReasonAndCountedInHealth() async throws {
        // Its CA is the one the agent trusts; the running broker's certificate does not chain to it.
        let trusted = try MosquittoBroker(.init(tls: .loopback), start: false)
        try await withAgentRun(Self.options(broker: .loopback, mqtt: ["ca_file: \(trusted.caFile ?? "")"])) { run in
            let (broker, agent) = (run.broker!, run.agent)
            #expect(
                agent.waitForErrorOutput("warning: cannot connect to the MQTT broker 127.0.0.1:\(broker.port) (TLS)"),
                "\(agent.errorOutput)")
            #expect(agent.waitForErrorOutput("retrying in "), "\(agent.errorOutput)")
            #expect(agent.errorOutput.lowercased().contains("certificate verify failed"), "\(agent.errorOutput)")

            // The broker gets a certificate from the trusted CA: the agent connects, and its health
            // counts the attempts that failed.
            broker.stop()
            for name in ["ca.crt", "server.crt", "server.key"] {
                let target = broker.directory.appendingPathComponent(name)
                try FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: trusted.directory.appendingPathComponent(name), to: target)
            }
            try broker.start()
            let (client, seen) = try await watch(run, tls: MQTTTLSConfiguration(caFile: trusted.caFile))
            let (_, health) = try await seen.next { $0.topic == "\(e2eRoot)/health" }
            let object = try JSONSerialization.jsonObject(with: Data(health.payload)) as? [String: Any]
            let failures = (object?["mqtt"] as? [String: Any])?["connect_failures"] as? [String: Int]
            #expect((failures?["tls"] ?? 0) >= 1, "\(health.payloadString ?? "")")
            await client.disconnect()
            agent.send(SIGTERM)
            #expect(agent.waitForExit() == 0)
        }
    }

    @Test func tlsInsecureConnectsWarnsAtEveryConnectAndShowsInInfo() async throws {
        // A certificate for another host, from a CA the agent does not know.
        try await withAgentRun(Self.options(broker: .hostname("broker.example.invalid"), mqtt: ["tls_insecure: true"])) { run in
            let (broker, agent) = (run.broker!, run.agent)
            #expect(agent.waitForErrorOutput("connected to the broker"), "\(agent.errorOutput)")
            #expect(agent.waitForErrorOutput("warning: mqtt.tls_insecure is on"), "\(agent.errorOutput)")
            let (client, seen) = try await watch(run, tls: MQTTTLSConfiguration(caFile: broker.caFile, verifyHostname: false))
            let (_, info) = try await seen.next { $0.topic == "\(e2eRoot)/info" }
            let object = try JSONSerialization.jsonObject(with: Data(info.payload)) as? [String: Any]
            #expect((object?["mqtt"] as? [String: Any])?["tls_insecure"] as? Bool == true, "\(info.payloadString ?? "")")
            #expect(((object?["config"] as? [String: Any])?["mqtt"] as? [String: Any])?["tls_insecure"] as? Bool == true)
            await client.disconnect()
            // Every connect warns again.
            try broker.restart()
            #expect(agent.waitForErrorOutput("warning: mqtt.tls_insecure is on", count: 2), "\(agent.errorOutput)")
            agent.send(SIGTERM)
            #expect(agent.waitForExit() == 0)
        }
    }
}
