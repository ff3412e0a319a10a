import Foundation
import MQTTClient
import NFCBridge
import Testing
import TestSupport

/// `nfcbridge run` end to end: the built CLI, real libnfc on `nfcbridge-sim`'s pty, a real Mosquitto.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RunCommandTests {
    static func json(_ message: MQTTMessage) -> [String: Any] { message.json }

    @Test func configurationErrorsExitTwoBeforeConnecting() throws {
        let folder = try TemporaryFolder()
        let bad = try folder.write("bad.yaml", "id: e2e\nmqtt:\n  url: mqtt://127.0.0.1:1\n  protocol: 6\n")
        let result = try runProcess(Binaries.path("nfcbridge"), ["run", "--config", bad])
        #expect(result.status == 2)
        let error = (try? JSONSerialization.jsonObject(with: Data(result.err.utf8))) as? [String: [String: String]]
        #expect(error?["error"]?["code"] == "invalid_config")
        #expect(error?["error"]?["message"] == "\(bad):4: mqtt.protocol: must be one of 3.1.1, 5, got '6'")

        let missing = try runProcess(Binaries.path("nfcbridge"), ["run", "--config", folder.path + "/none.yaml"])
        #expect(missing.status == 2)
        let notFound = (try? JSONSerialization.jsonObject(with: Data(missing.err.utf8))) as? [String: [String: String]]
        #expect(notFound?["error"]?["code"] == "config_not_found", "\(missing.err)")
        #expect(notFound?["error"]?["message"] == "\(folder.path)/none.yaml: the configuration file does not exist")

        let good = try folder.write("good.yaml", "id: e2e\nstate_dir: \(folder.path)/state\n")
        let broker = try runProcess(Binaries.path("nfcbridge"), ["run", "--config", good, "--broker", "http://x"])
        #expect(broker.status == 2)
        #expect(broker.err.contains("--broker: not a broker URL"), "\(broker.err)")

        let usage = try runProcess(Binaries.path("nfcbridge"), ["run", "--frobnicate", "1"])
        #expect(usage.status == 2)
        #expect(usage.err.contains("unknown option --frobnicate"))
        let positional = try runProcess(Binaries.path("nfcbridge"), ["run", "now"])
        #expect(positional.status == 2)
        #expect(positional.err.contains("\"usage\""))
    }

    @Test func tapsBecomeEventsAndSIGTERMEndsCleanly() async throws {
        let scenario = """
            tags:
              - {id: hass, type: ntag215, ndef: [{uri: 'https://www.home-assistant.io/tag/abc-123'}]}
            """
        try await withAgentRun(.init(scenario: scenario, extra: "dump: {on_scan: true}")) { run in
            let (simulator, seen, agent) = (run.simulator, run.watcher.seen, run.agent)

            try await seen.next { $0.topic == "nfc/e2e/status" && $0.payloadString == "online" }
            let (_, info) = try await seen.next { $0.topic == "nfc/e2e/info" && Self.json($0)["reader"] is [String: Any] }
            #expect((Self.json(info)["reader"] as? [String: Any])?["firmware"] as? String == "PN532 v1.6")
            try await seen.next { $0.topic == "nfc/e2e/reader" && Self.json($0)["state"] as? String == "ok" }

            _ = try simulator.control(["cmd": "place", "id": "hass"])
            let (scannedAt, scannedMessage) = try await seen.next { $0.topic == "nfc/e2e/event/scanned" }
            let scanned = Self.json(scannedMessage)
            #expect(scanned["cardType"] as? String == "NTAG215")
            #expect(scanned["tag_id"] as? String == "abc-123")
            #expect(scanned["buffered"] as? Bool == false)
            let records = (scanned["ndef"] as? [String: Any])?["records"] as? [[String: Any]]
            #expect(records?.first?["uri"] as? String == "https://www.home-assistant.io/tag/abc-123")
            let (dumpAt, dumpMessage) = try await seen.next { $0.topic == "nfc/e2e/event/dump" }
            #expect(scannedAt < dumpAt)
            let dump = Self.json(dumpMessage)
            #expect((dump["dump"] as? [String: Any])?["cardType"] as? String == "NTAG215")
            #expect(dump["seq"] as? Int == (scanned["seq"] as? Int).map { $0 + 1 })
            try await seen.next(after: scannedAt) { $0.topic == "nfc/e2e/tag" && Self.json($0)["present"] as? Bool == true }

            _ = try simulator.control(["cmd": "remove", "id": "hass"])
            let (removedAt, removedMessage) = try await seen.next { $0.topic == "nfc/e2e/event/removed" }
            #expect(Self.json(removedMessage)["uid"] as? String == scanned["uid"] as? String)

            // Idle again (a poll is waiting on an empty field): SIGTERM stops it cleanly.
            agent.send(SIGTERM)
            #expect(agent.waitForExit(timeout: .seconds(30)) == 0, "\(agent.errorOutput)")
            try await seen.next(after: removedAt) { $0.topic == "nfc/e2e/status" && $0.payloadString == "offline" }
            #expect(seen.received.last { $0.topic == "nfc/e2e/tag" }.map(Self.json)?["present"] as? Bool == false)
            #expect(agent.errorOutput.contains("stopped"))
        }
    }

    @Test func sigtermAbortsABlockedPoll() async throws {
        // Ten-second polls on an empty field: only an abort ends one early.
        try await withAgentRun(.init(intervalMilliseconds: 10_000)) { run in
            let (simulator, seen, agent) = (run.simulator, run.watcher.seen, run.agent)
            // Connected (health closes what a connect publishes) and the reader open.
            let (onlineAt, _) = try await seen.next { $0.topic == "nfc/e2e/status" && $0.payloadString == "online" }
            try await seen.next(after: onlineAt) { $0.topic == "nfc/e2e/health" }
            try await seen.next { $0.topic == "nfc/e2e/reader" && Self.json($0)["state"] as? String == "ok" }
            // The chip got the poll's InAutoPoll: the agent is inside its ten-second poll.
            try await simulator.waitForCommand("60")
            let stopAt = seen.received.count - 1
            agent.send(SIGTERM)
            // Well under the 10 s the poll would otherwise take: only a bound against a hang (the
            // assertions are on what was published, and in which order).
            #expect(agent.waitForExit(timeout: .seconds(8)) == 0, "\(agent.errorOutput)")
            try await seen.next(after: stopAt) { $0.topic == "nfc/e2e/status" && $0.payloadString == "offline" }
            #expect(!seen.received.contains { $0.topic.hasPrefix("nfc/e2e/event/") }, "an aborted poll is not an error")
            let log = agent.errorOutput
            #expect(log.contains("signal 15: stopping") && log.hasSuffix("stopped\n"), "\(log)")
        }
    }

    @Test func aReaderThatAppearsLaterIsPickedUp() async throws {
        try await withAgentRun(.init(reader: .absent(link: "later.tty"))) { run in
            let (seen, agent, link) = (run.watcher.seen, run.agent, run.linkPath)

            try await seen.next { $0.topic == "nfc/e2e/reader" && Self.json($0)["state"] as? String == "absent" && Self.json($0)["detail"] as? String != "not opened yet" }
            let (_, error) = try await seen.next { $0.topic == "nfc/e2e/event/error" }
            #expect(Self.json(error)["op"] as? String == "open")
            #expect((Self.json(error)["error"] as? [String: Any])?["code"] as? String == "reader_unavailable")
            #expect(agent.isRunning)

            // The reader is plugged in.
            let simulator = try run.startSimulator(
                scenario: """
                    tags:
                      - {id: card, type: ntag213}
                    """)
            #expect(symlink(simulator.linkPath, link) == 0)
            try await seen.next { $0.topic == "nfc/e2e/reader" && Self.json($0)["state"] as? String == "ok" }
            _ = try simulator.control(["cmd": "place", "id": "card"])
            let (_, scanned) = try await seen.next { $0.topic == "nfc/e2e/event/scanned" }
            #expect(Self.json(scanned)["cardType"] as? String == "NTAG213")

            agent.send(SIGTERM)
            #expect(agent.waitForExit(timeout: .seconds(30)) == 0, "\(agent.errorOutput)")
        }
    }
}
