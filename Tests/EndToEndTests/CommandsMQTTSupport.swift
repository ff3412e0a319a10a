import Foundation
import Synchronization
import LibNFCReader
import MQTTClient
import NFCBridge
import NFCCore
import Testing
import TestSupport

extension MQTTMessage {
    /// The payload as a JSON object.
    var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] }
    /// `status` of a response.
    var status: String? { object?["status"] as? String }
    /// `error.code` of a response.
    var errorCode: String? { (object?["error"] as? [String: Any])?["code"] as? String }
    /// `error.message` of a response.
    var errorMessage: String? { (object?["error"] as? [String: Any])?["message"] as? String }
    /// `data` of a response.
    var data: [String: Any]? { object?["data"] as? [String: Any] }
}

/// The whole agent as it runs on a board — the real MQTT client against a real mosquitto, the real
/// libnfc `pn532_uart` driver against `nfcbridge-sim` — either the `nfcbridge run` executable or the
/// same `Agent` in this process — plus a test client that sends requests and reads responses and
/// events. Broker, simulator, folder, configuration, client and the `nfcbridge run` agent are an
/// ``AgentRun``'s; made only by ``withCommandAgent(scenario:mode:lockEnabled:commands:agentProtocol:mqtt:extraConfiguration:modulations:clientProtocol:brokerOptions:before:isolation:_:)``,
/// which stops all of it however the test ends.
final class CommandAgentHarness: @unchecked Sendable {
    /// How the agent runs.
    enum Mode {
        /// `nfcbridge run --config …` as a child process.
        case executable
        /// `Agent` with `MQTTClientPublisher` and `LibNFCDevice` in the test process.
        case inProcess
    }

    static let uid = "04A1B2C3D4E5F6"
    static let root = "nfc/e2e"

    let run: AgentRun
    let publisher: MQTTClientPublisher?
    let agent: Agent?
    let running: Task<Void, Never>?
    let client: MQTTClient
    let messages: RecordingStream<MQTTMessage>
    /// Positions in ``messages`` already returned by ``next(where:)``.
    private let consumed = Mutex<Set<Int>>([])

    var broker: MosquittoBroker { run.broker }
    var simulator: SimulatorProcess { run.simulator }
    /// The `nfcbridge run` process (executable mode).
    let process: ChildProcess?

    /// Starts the agent of `run` (which has its broker, simulator, configuration and `watcher`) in `mode`.
    fileprivate init(run: AgentRun, watcher: Watcher, mode: Mode, lockEnabled: Bool) throws {
        self.run = run
        (client, messages) = (watcher.client, watcher.seen)
        switch mode {
        case .executable:
            process = try run.startAgent()
            (publisher, agent, running) = (nil, nil, nil)
        case .inProcess:
            var config = AgentConfiguration(id: "e2e")
            config.mqtt.url = run.broker.url
            config.reader.device = run.device
            config.reader.modulations = [.iso14443a]
            config.homeAssistant.enabled = false
            config.stateDirectory = run.folder.path + "/state"
            config.commands.lockEnabled = lockEnabled
            config.log.level = .debug
            let publisher = MQTTClientPublisher(client: try MQTTClient(configuration: config.mqttClientConfiguration))
            let agent = try Agent(
                configuration: config, publisher: publisher, device: LibNFCDevice(connstring: config.reader.device),
                scanner: NFCCoreScanner())
            try publisher.start()
            (self.publisher, self.agent, process) = (publisher, agent, nil)
            running = Task { await agent.run() }
        }
    }

    /// The agent takes requests once it is connected and its reader is open.
    fileprivate func ready() async {
        _ = await next { $0.topic == "\(Self.root)/status" && $0.payloadString == "online" }
        _ = await next { $0.topic == "\(Self.root)/reader" && $0.payloadString?.contains("\"ok\"") == true }
    }

    /// Stops the in-process agent and its publisher (the run stops the rest), first when the run stops.
    fileprivate func stopInProcessAgent() async {
        agent?.stop()
        await running?.value
        await publisher?.disconnect()
    }

    /// The first message matching `predicate` that no earlier call returned.
    /// Gives up after ``RecordingStream/guardTimeout`` (or the suite's time limit) with a recorded issue
    /// and an empty message, so a missing answer fails the test instead of hanging the run.
    func next(
        sourceLocation: SourceLocation = #_sourceLocation, where predicate: @escaping @Sendable (MQTTMessage) -> Bool
    ) async -> MQTTMessage {
        var after = -1
        while true {
            guard let (index, message) = await messages.next(after: after, timeout: RecordingStream<MQTTMessage>.guardTimeout, where: predicate) else {
                Issue.record("no matching message after #\(after) within \(RecordingStream<MQTTMessage>.guardTimeout)", sourceLocation: sourceLocation)
                return MQTTMessage(topic: "", payload: [])
            }
            if consumed.withLock({ $0.insert(index).inserted }) { return message }
            after = index
        }
    }

    /// Every message received on `topic` so far.
    func all(on topic: String) -> [MQTTMessage] { messages.received.filter { $0.topic == topic } }

    /// Publishes a request (never retained), with MQTT 5 properties when given.
    func request(_ command: String, _ json: String, responseTopic: String? = nil, correlation: [UInt8]? = nil) async throws {
        try await client.publish(
            to: "\(Self.root)/request/\(command)", payload: Array(json.utf8), qos: .atLeastOnce,
            properties: MQTTPublishProperties(responseTopic: responseTopic, correlationData: correlation))
    }

    /// The next final (`ok` / `error`) response to `id` on `response/<command>` (or `topic`).
    func final(_ command: String, id: String, topic: String? = nil) async -> MQTTMessage {
        let topic = topic ?? "\(Self.root)/response/\(command)"
        return await next { message in
            message.topic == topic && message.object?["id"] as? String == id && message.status != "waiting"
        }
    }

    /// The next response to `id` (any status).
    func any(_ command: String, id: String) async -> MQTTMessage {
        await next { message in
            message.topic == "\(Self.root)/response/\(command)" && message.object?["id"] as? String == id
        }
    }

    /// The tag's memory from the simulator.
    func memory(_ id: String = "sticker") throws -> [UInt8] {
        let reply = try simulator.control(["cmd": "dump", "id": id])
        guard let hex = reply["memory"] as? String, let bytes = [UInt8](hex: hex) else {
            throw SimulatorProcess.Failure(description: "dump \(id) failed: \(reply)")
        }
        return bytes
    }

    /// The NDEF message in the tag's memory, in hex ("" for an empty message).
    func ndef(_ id: String = "sticker") throws -> String? {
        NFCForumTLV.extractMessage(fromMemory: try memory(id))?.hexString
    }

    /// Sends a control request to the simulator and checks that it was accepted.
    func control(_ request: [String: Any]) throws {
        let reply = try simulator.control(request)
        guard reply["ok"] as? Bool == true else { throw SimulatorProcess.Failure(description: "\(request): \(reply)") }
    }
}

/// Runs `body` with a ``CommandAgentHarness``: broker, simulator and agent, then stops all of it, also
/// when `body` or the set-up throws. `before` runs with the broker up and the agent not yet connected
/// (to leave retained requests there, for instance). `commands` replaces the configuration's
/// `commands` section, `agentProtocol` is its `mqtt.protocol` (`mqtt`: more lines of the same
/// mapping, `key: value`), `extraConfiguration` is appended to the configuration (`dump: {on_scan:
/// true}`), `modulations` is its `reader.polling.modulations`, `intervalMilliseconds` its
/// `reader.polling.interval_ms` and `presence` its `presence` section, the agent's defaults when nil
/// (executable mode); `brokerOptions`
/// configure the broker, `clientProtocol` the test client.
func withCommandAgent<Result>(
    scenario: String, reader: AgentRun.Reader = .simulator, mode: CommandAgentHarness.Mode = .executable,
    lockEnabled: Bool = false, commands: String? = nil,
    agentProtocol: String = "5", mqtt: [String] = [], extraConfiguration: String = "", modulations: String = "[iso14443a]",
    intervalMilliseconds: Int? = nil, presence: String? = nil,
    clientProtocol: MQTTProtocolVersion = .v5, brokerOptions: MosquittoBroker.Options = .init(),
    before: (MosquittoBroker) async throws -> Void = { _ in }, isolation: isolated (any Actor)? = #isolation,
    _ body: (CommandAgentHarness) async throws -> Result
) async throws -> Result {
    let options = AgentRun.Options(
        scenario: scenario, reader: reader, broker: brokerOptions, intervalMilliseconds: intervalMilliseconds, modulations: modulations,
        presence: presence,
        mqtt: ["protocol: \"\(agentProtocol)\""] + mqtt, homeAssistant: false,
        extra: "commands: \(commands ?? "{lock: {enabled: \(lockEnabled)}}")" + (extraConfiguration.isEmpty ? "" : "\n" + extraConfiguration),
        watcherFilters: nil, startsAgent: false)
    return try await withAgentRun(options) { run in
        try await before(run.broker)
        let watcher = try await run.connectWatcher(
            clientID: "e2e-client-\(UUID().uuidString.prefix(8))", filters: ["\(CommandAgentHarness.root)/#", "replies/#"],
            protocolVersion: clientProtocol)
        let h = try CommandAgentHarness(run: run, watcher: watcher, mode: mode, lockEnabled: lockEnabled)
        run.atStop { await h.stopInProcessAgent() }
        await h.ready()
        return try await body(h)
    }
}
