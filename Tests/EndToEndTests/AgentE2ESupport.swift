import Foundation
import MQTTClient
import Testing
import TestSupport

// What the `nfcbridge run` end-to-end tests share: a temporary folder, the configuration file, the
// agent as a child process, and an MQTT client watching everything it publishes.

/// A temporary folder removed at the end of the test.
final class TemporaryFolder: @unchecked Sendable {
    let path: String

    init() throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/nfcbridge-run-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` in the folder and returns the file's path.
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}

/// The agent id every end-to-end configuration uses: topics are `nfc/e2e/…`.
let e2eRoot = "nfc/e2e"

/// The `presence` section the tests run with unless they say otherwise: a short removal grace,
/// re-taps always reported.
let e2ePresence = "{removal_grace_ms: 300, min_interval_ms: 0}"

/// A configuration for `nfcbridge run` with short timings: polls of `intervalMilliseconds`, a
/// short removal grace, re-taps always reported (unless `presence` says otherwise; nil leaves the
/// agent's default).
func agentConfiguration(
    device: String, brokerURL: String, stateDirectory: String, intervalMilliseconds: Int? = 100,
    modulations: String? = nil, presence: String? = e2ePresence, extra: String = ""
) -> String {
    let polling = [intervalMilliseconds.map { "interval_ms: \($0)" }, modulations.map { "modulations: \($0)" }].compactMap { $0 }
    return """
        id: e2e
        reader:
          device: "\(device)"
        \(polling.isEmpty ? "" : "  polling: {\(polling.joined(separator: ", "))}\n")mqtt:
          url: \(brokerURL)
        \(presence.map { "presence: \($0)\n" } ?? "")state_dir: \(stateDirectory)
        log: {level: debug}
        \(extra)
        """
}

extension TemporaryFolder {
    /// Writes `config.yaml` (``agentConfiguration(device:brokerURL:stateDirectory:intervalMilliseconds:modulations:presence:extra:)``)
    /// with the agent's state in `state/` of this folder, and returns the file's path.
    func writeAgentConfiguration(
        device: String, brokerURL: String, intervalMilliseconds: Int? = 100, modulations: String? = nil,
        presence: String? = e2ePresence, extra: String = ""
    ) throws -> String {
        try write(
            "config.yaml",
            agentConfiguration(
                device: device, brokerURL: brokerURL, stateDirectory: path + "/state", intervalMilliseconds: intervalMilliseconds,
                modulations: modulations, presence: presence, extra: extra))
    }
}

extension ChildProcess {
    /// Sends SIGTERM and expects a clean exit (status 0), with the process's standard error in the
    /// failure message: how every end-to-end test ends the agent it started.
    func expectCleanStop(sourceLocation: SourceLocation = #_sourceLocation) {
        send(SIGTERM)
        #expect(waitForExit() == 0, "\(errorOutput)", sourceLocation: sourceLocation)
    }
}

/// The launcher (``AgentRun/startAgent(environment:launcher:)``) that runs the agent under strace,
/// which delays every fsync it makes by `delay` (e.g. `100ms`; strace's fault injection,
/// --seccomp-bpf: only fsync stops in strace, everything else runs at full speed). The process is
/// strace's; the agent is its child (``ChildProcess/tracedAgentPID()``).
func straceDelayingFsync(by delay: String) -> [String] {
    ["/usr/bin/strace", "-f", "-qq", "--seccomp-bpf", "-o", "/dev/null", "-e", "trace=fsync", "-e", "inject=fsync:delay_enter=\(delay)"]
}

extension ChildProcess {
    /// The agent strace started (``straceDelayingFsync(by:)``): signal it, not strace (strace with
    /// -o blocks fatal signals; it exits with the agent's status).
    func tracedAgentPID() throws -> pid_t {
        let children = try String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
        return try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "strace has no child: \(errorOutput.suffix(2000))")
    }
}

/// An MQTT client subscribed to everything under `nfc/e2e/` (and more filters when asked), recording
/// what arrives so tests await messages instead of sleeping.
struct Watcher {
    let client: MQTTClient
    let seen: RecordingStream<MQTTMessage>

    /// Connects to `url` and subscribes. `persistent`: an MQTT 3.1.1 session that outlives the
    /// connection — on a broker with persistence, messages published while the broker (or the
    /// watcher) was down are queued and delivered after the reconnect, so none is missed.
    /// `protocolVersion`, when given, replaces the one `persistent` chooses; `tls`: a TLS broker's trust.
    static func connect(
        _ url: String, clientID: String = "watcher", filters: [String] = ["\(e2eRoot)/#"], persistent: Bool = false,
        protocolVersion: MQTTProtocolVersion? = nil, tls: MQTTTLSConfiguration? = nil
    ) async throws -> Watcher {
        var configuration = MQTTConfiguration(
            url: url, protocolVersion: protocolVersion ?? (persistent ? .v311 : .v5), clientID: clientID, cleanStart: !persistent,
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(250)))
        if let tls { configuration.tls = .enabled(tls) }
        configuration.keepAlive = .seconds(10)
        let client = try MQTTClient(configuration: configuration)
        let seen = RecordingStream(client.messages)
        try await client.connect()
        for filter in filters { try await client.subscribe(to: filter, qos: .atLeastOnce) }
        return Watcher(client: client, seen: seen)
    }

    func disconnect() async { await client.disconnect() }

    /// Publishes Home Assistant's birth message (`homeassistant/status` = `online`) on this
    /// watcher's connection and returns the current position: the agent answers with discovery and
    /// all its state, `health` last — a way to read the current counters without waiting for the
    /// health interval.
    func homeAssistantBirth() async throws -> Int {
        let index = lastIndex
        try await client.publish(to: "homeassistant/status", text: "online", qos: .atLeastOnce)
        return index
    }

    /// Waits for the next message on `nfc/e2e/<subtopic>` after `index` whose JSON satisfies
    /// `predicate`. Events are taken once: a second copy of an `event_id` received earlier (QoS 1
    /// delivers at least once — e.g. the broker sends again what it had not seen acknowledged before
    /// a restart) is skipped, as docs/mqtt.md tells consumers to do.
    @discardableResult
    func next(
        _ subtopic: String, after index: Int = -1, sourceLocation: SourceLocation = #_sourceLocation,
        where predicate: @escaping @Sendable ([String: Any]) -> Bool = { _ in true }
    ) async -> (index: Int, json: [String: Any], message: MQTTMessage) {
        let topic = "\(e2eRoot)/\(subtopic)"
        var start = index
        while true {
            guard
                let (position, message) = await seen.next(after: start, timeout: Self.guardTimeout, where: {
                    $0.topic == topic && predicate($0.json)
                })
            else {
                Issue.record("no message on \(topic) after #\(index) within \(Self.guardTimeout)", sourceLocation: sourceLocation)
                return (lastIndex, [:], MQTTMessage(topic: topic, payload: []))
            }
            let json = message.json
            if let id = json["event_id"] as? String,
                seen.received.prefix(position).contains(where: { $0.json["event_id"] as? String == id })
            {
                start = position
                continue
            }
            return (position, json, message)
        }
    }

    /// Waits for `status` to say `text` (`online` / `offline`) after `index`.
    @discardableResult
    func status(_ text: String, after index: Int = -1, sourceLocation: SourceLocation = #_sourceLocation) async -> Int {
        await message(after: index, sourceLocation: sourceLocation) { $0.topic == "\(e2eRoot)/status" && $0.payloadString == text }.index
    }

    /// Waits for any message matching `predicate` after `index` (a failure guard ends the wait).
    @discardableResult
    func message(
        after index: Int = -1, sourceLocation: SourceLocation = #_sourceLocation, where predicate: @escaping @Sendable (MQTTMessage) -> Bool
    ) async -> (index: Int, element: MQTTMessage) {
        if let found = await seen.next(after: index, timeout: Self.guardTimeout, where: predicate) { return found }
        Issue.record("no matching message after #\(index) within \(Self.guardTimeout)", sourceLocation: sourceLocation)
        return (lastIndex, MQTTMessage(topic: "", payload: []))
    }

    /// How long a wait may take before the test fails: far beyond what any step needs, so only a
    /// message that never comes trips it (and the run goes on instead of hanging).
    static let guardTimeout: Duration = .seconds(60)

    /// The events (`event/*`) received so far, in arrival order, as JSON; each `event_id` once
    /// (its first copy).
    var events: [[String: Any]] {
        var ids: Set<String> = []
        return seen.received.filter { $0.topic.hasPrefix("\(e2eRoot)/event/") }.map(\.json).filter { event in
            ids.insert(event["event_id"] as? String ?? UUID().uuidString).inserted
        }
    }

    /// The position of the last message received so far.
    var lastIndex: Int { seen.received.count - 1 }
}

extension MQTTMessage {
    /// The payload as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] ?? [:]
    }
}

/// What every event carries (docs/mqtt.md "Events"): checked on each event a test receives.
func expectEnvelope(
    _ event: [String: Any], type: String, buffered: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(event["type"] as? String == type, "\(event)", sourceLocation: sourceLocation)
    #expect(event["reader"] as? String == "e2e", "\(event)", sourceLocation: sourceLocation)
    #expect(event["buffered"] as? Bool == buffered, "\(event)", sourceLocation: sourceLocation)
    #expect(event["seq"] as? Int != nil, "\(event)", sourceLocation: sourceLocation)
    let id = event["event_id"] as? String ?? ""
    #expect(
        id.count == 26 && id.allSatisfy { "0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains($0) }, "event_id \(id)",
        sourceLocation: sourceLocation)
    let ts = event["ts"] as? String ?? ""
    #expect(
        ts.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "ts \(ts)", sourceLocation: sourceLocation)
}

/// `seq` of each event, in order.
func sequenceNumbers(_ events: [[String: Any]]) -> [Int] {
    events.compactMap { $0["seq"] as? Int }
}

/// The tags of the tap-round timelines (the spool's frozen broker, the slow disk): `tapNN`, NTAG213s
/// with the UID `04A1B2C3D4E5` and NN in hex.
enum TapTags {
    static func id(_ k: Int) -> String { "tap" + (k < 10 ? "0" : "") + String(k) }
    static func uid(_ k: Int) -> String { "04A1B2C3D4E5" + (k < 16 ? "0" : "") + String(k, radix: 16, uppercase: true) }
    /// `tags:` with taps 1 to `count`.
    static func definitions(_ count: Int) -> String {
        "tags:\n" + (1...count).map { "  - {id: \(id($0)), type: ntag213, uid: \(uid($0))}\n" }.joined()
    }
}
