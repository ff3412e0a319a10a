import Foundation
import MQTTClient
import NFCBridge
import Testing
import TestSupport

/// `nfcbridge run` end to end: retained state (`status` and the will, `info`), Home Assistant
/// discovery and its re-sending on Home Assistant's birth, and `seq` across agent restarts.
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentE2EStateTests {
    static let scenario = """
        tags:
          - {id: card, type: ntag215, uid: 04A1B2C3D4E5F6}
        """

    static let discoveryTopics = [
        "homeassistant/tag/e2e/config", "homeassistant/event/e2e_nfc/config",
        "homeassistant/binary_sensor/e2e_tag_present/config", "homeassistant/sensor/e2e_last_uid/config",
        "homeassistant/device_automation/e2e_tag_scanned/config", "homeassistant/device_automation/e2e_tag_removed/config",
        "homeassistant/binary_sensor/e2e_agent/config", "homeassistant/sensor/e2e_reader_state/config",
        "homeassistant/sensor/e2e_scans/config", "homeassistant/sensor/e2e_spool_depth/config",
        "homeassistant/sensor/e2e_dropped_events/config", "homeassistant/sensor/e2e_mqtt_reconnects/config",
        "homeassistant/sensor/e2e_version/config",
    ]
    /// The entities about the tag on the reader: unavailable without the agent or its reader.
    static let tagEntityTopics = ["homeassistant/event/e2e_nfc/config", "homeassistant/binary_sensor/e2e_tag_present/config"]

    @Test func infoAndDiscoveryAreRetainedAndResentOnHomeAssistantBirth() async throws {
        let options = AgentRun.Options(
            scenario: Self.scenario, mqtt: ["username: e2e"], extra: "health_interval_s: 3600",
            watcherFilters: ["\(e2eRoot)/#", "homeassistant/#"], startsAgent: false)
        try await withAgentRun(options) { run in
            let (broker, simulator, watcher) = (run.broker!, run.simulator, run.watcher)
            let secret = "s3cret-\(UUID().uuidString)"
            let agent = try run.startAgent(environment: ["NFCBRIDGE_MQTT_PASSWORD": secret])

            let online = await watcher.status("online")
            let (_, info, _) = await watcher.next("info", after: online) { $0["reader"] is [String: Any] }
            let agentInfo = info["agent"] as? [String: Any]
            #expect(agentInfo?["id"] as? String == "e2e")
            #expect((agentInfo?["version"] as? String)?.isEmpty == false)
            #expect(agentInfo?["started_at"] as? String != nil)
            let reader = info["reader"] as? [String: Any]
            #expect(reader?["connstring"] as? String == simulator.connstring)
            #expect(reader?["firmware"] as? String == "PN532 v1.6")
            let mqtt = info["mqtt"] as? [String: Any]
            #expect(mqtt?["url"] as? String == broker.url)
            #expect(mqtt?["protocol"] as? String == "5")
            #expect(mqtt?["tls"] as? Bool == false)
            #expect(info["commands"] as? [String] == ["write", "format", "dump", "cancel", "write_blocks", "job", "feedback"], "lock only when enabled: \(info)")
            let configuration = info["config"] as? [String: Any]
            #expect(configuration?["id"] as? String == "e2e")
            #expect((configuration?["mqtt"] as? [String: Any])?["username"] as? String == "e2e")
            #expect((configuration?["reader"] as? [String: Any])?["device"] as? String == simulator.connstring)

            // Discovery: one device, thirteen components; the tag entities available only with agent
            // and reader, the diagnostic ones with the agent.
            var documents: [String: [String: Any]] = [:]
            for topic in Self.discoveryTopics {
                documents[topic] = await watcher.message { $0.topic == topic }.element.json
            }
            let tagScanner = documents["homeassistant/tag/e2e/config"] ?? [:]
            #expect(tagScanner["topic"] as? String == "nfc/e2e/event/scanned")
            #expect((tagScanner["value_template"] as? String)?.contains("tag_id") == true)
            let event = documents["homeassistant/event/e2e_nfc/config"] ?? [:]
            #expect(event["state_topic"] as? String == "nfc/e2e/event/+")
            #expect(event["event_types"] as? [String] == ["scanned", "removed"])
            #expect(documents["homeassistant/binary_sensor/e2e_tag_present/config"]?["state_topic"] as? String == "nfc/e2e/tag")
            let lastUID = documents["homeassistant/sensor/e2e_last_uid/config"] ?? [:]
            #expect(lastUID["state_topic"] as? String == "nfc/e2e/tag", "a retained topic: it survives an HA restart")
            #expect(lastUID["entity_category"] as? String == "diagnostic")
            for (topic, document) in documents {
                let device = document["device"] as? [String: Any]
                #expect(device?["identifiers"] as? [String] == ["nfcbridge_e2e"], "\(topic)")
                let availability = (document["availability"] as? [[String: Any]])?.compactMap { $0["topic"] as? String }
                if Self.tagEntityTopics.contains(topic) {
                    #expect(availability == ["nfc/e2e/status", "nfc/e2e/reader"], "\(topic)")
                    #expect(document["availability_mode"] as? String == "all", "\(topic)")
                    #expect(document["unique_id"] as? String != nil, "\(topic)")
                } else if topic == "homeassistant/binary_sensor/e2e_agent/config" {
                    #expect(availability == nil, "the agent's connectivity is never unavailable: \(topic)")
                    #expect(document["unique_id"] as? String != nil, "\(topic)")
                } else if document["entity_category"] as? String == "diagnostic" {
                    #expect(availability == ["nfc/e2e/status"], "\(topic)")
                    #expect(document["unique_id"] as? String != nil, "\(topic)")
                } else {
                    #expect(topic.contains("/tag/") || topic.contains("/device_automation/"), "\(topic)")
                }
            }
            // `health` closes what a connect publishes.
            await watcher.next("health", after: online)

            // A late subscriber gets all of it retained.
            let late = try await run.connectWatcher(clientID: "late", filters: ["\(e2eRoot)/#", "homeassistant/#"])
            for topic in ["status", "info", "reader", "tag", "health"].map({ "\(e2eRoot)/\($0)" }) + Self.discoveryTopics {
                let (_, message) = await late.message { $0.topic == topic }
                #expect(message.retain, "\(topic) is retained")
            }
            await late.disconnect()

            // Home Assistant restarts: its birth message brings discovery and state again.
            let homeAssistant = try await run.connectWatcher(clientID: "homeassistant", filters: [])
            let beforeBirth = watcher.lastIndex
            try await homeAssistant.client.publish(to: "homeassistant/status", text: "online", qos: .atLeastOnce)
            for topic in Self.discoveryTopics + ["\(e2eRoot)/status", "\(e2eRoot)/info", "\(e2eRoot)/reader", "\(e2eRoot)/tag"] {
                await watcher.message(after: beforeBirth) { $0.topic == topic }
            }
            await homeAssistant.disconnect()

            // The password went to the broker only: no payload, no log line holds it.
            let leaked = watcher.seen.received.filter { $0.payloadString?.contains(secret) == true }.map(\.topic)
            #expect(leaked.isEmpty, "\(leaked)")
            agent.expectCleanStop()
            #expect(!agent.errorOutput.contains(secret))
        }
    }

    @Test func theWillSaysOfflineWhenTheAgentIsKilled() async throws {
        try await withAgentRun(.init(scenario: Self.scenario)) { run in
            let (simulator, watcher) = (run.simulator, run.watcher)
            let online = await watcher.status("online")
            // `reader` goes out before `status` online: ok already, or `starting` and ok after.
            await watcher.next("reader") { $0["state"] as? String == "ok" }

            // No chance to say goodbye: the broker publishes the will.
            #expect(run.killAgent() == SIGKILL)
            await watcher.status("offline", after: online)
            let late = try await run.connectWatcher(clientID: "late")
            let (_, retained) = await late.message { $0.topic == "\(e2eRoot)/status" }
            #expect(retained.payloadString == "offline")
            #expect(retained.retain)
            await late.disconnect()

            // The sequence survives the crash: the next run goes on above the reservation the killed one
            // had written (docs/mqtt.md: a gap of at most one block, never a number given twice).
            try simulator.place("card")
            try run.startAgent()
            let (_, scanned, _) = await watcher.next("event/scanned")
            let first = scanned["seq"] as? Int ?? 0
            #expect((2...Int(SequenceStore.block) + 1).contains(first), "\(scanned)")
            try simulator.remove("card")
            #expect(run.killAgent() == SIGKILL)
            let again = try run.startAgent()
            try simulator.place("card")
            let (_, next, _) = await watcher.next("event/scanned") { $0["seq"] as? Int != first }
            let second = next["seq"] as? Int ?? 0
            #expect(second > first && second - first <= Int(SequenceStore.block) + 1, "\(next)")
            again.expectCleanStop()
        }
    }

    @Test func seqKeepsGrowingAcrossARestartOfTheAgent() async throws {
        try await withAgentRun(.init(scenario: Self.scenario, startsAgent: false)) { agentRun in
            let (simulator, watcher) = (agentRun.simulator, agentRun.watcher)

            var lastSeq = 0
            for run in 1...2 {
                let start = watcher.lastIndex
                let agent = try agentRun.startAgent()
                await watcher.next("reader", after: start) { $0["state"] as? String == "ok" }
                try simulator.place("card")
                let (scannedAt, scanned, _) = await watcher.next("event/scanned", after: start)
                try simulator.remove("card")
                let (_, removed, _) = await watcher.next("event/removed", after: scannedAt)
                #expect(scanned["seq"] as? Int == lastSeq + 1, "run \(run): \(scanned)")
                #expect(removed["seq"] as? Int == lastSeq + 2, "run \(run): \(removed)")
                lastSeq = removed["seq"] as? Int ?? lastSeq
                agent.expectCleanStop()
                await watcher.status("offline", after: start)
            }
            #expect(lastSeq == 4)
        }
    }
}
