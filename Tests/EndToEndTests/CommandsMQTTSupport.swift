import Foundation
import LibNFCReader
import MQTTClient
import NFCBridge
import NFCCore
import Testing
import TestSupport

/// Messages a test client received, awaited one match at a time. The deadline only guards against
/// a hang (the failure lists what was seen); no test measures time with it.
actor MessageInbox {
    private var messages: [MQTTMessage] = []
    private var consumed: Set<Int> = []
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Starts collecting `client`'s messages.
    static func collecting(_ client: MQTTClient) -> MessageInbox {
        let inbox = MessageInbox()
        Task {
            for await message in client.messages { await inbox.append(message) }
        }
        return inbox
    }

    private func append(_ message: MQTTMessage) {
        messages.append(message)
        let ready = waiters
        waiters = []
        for waiter in ready { waiter.resume() }
    }

    /// The first message not returned before that matches `predicate`.
    func next(guard limit: Duration = .seconds(90), where predicate: @Sendable (MQTTMessage) -> Bool) async throws
        -> MQTTMessage
    {
        let deadline = ContinuousClock.now + limit
        while true {
            if let index = messages.indices.first(where: { !consumed.contains($0) && predicate(messages[$0]) }) {
                consumed.insert(index)
                return messages[index]
            }
            guard ContinuousClock.now < deadline else {
                let seen = messages.map { "\($0.topic) \($0.payloadString ?? "")" }.joined(separator: "\n")
                throw SimulatorProcess.Failure(description: "no matching message (hang guard); seen:\n\(seen)")
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiters.append(continuation)
                let wake = Task {
                    try? await Task.sleep(for: .seconds(1))
                    self.wakeAll()
                }
                _ = wake
            }
        }
    }

    private func wakeAll() {
        let ready = waiters
        waiters = []
        for waiter in ready { waiter.resume() }
    }

    /// Every message received on `topic` so far.
    func all(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }
}

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
/// libnfc `pn532_uart` driver against `nfcbridge-sim` — plus a test client that sends requests and
/// reads responses and events.
final class CommandAgentHarness: @unchecked Sendable {
    static let uid = "04A1B2C3D4E5F6"
    static let root = "nfc/e2e"

    let broker: MosquittoBroker
    let simulator: SimulatorProcess
    let stateDirectory: String
    let publisher: MQTTClientPublisher
    let agent: Agent
    let running: Task<Void, Never>
    let client: MQTTClient
    let inbox: MessageInbox

    /// Starts broker, simulator and agent; `before` runs with the broker up and the agent not yet
    /// connected (to leave retained requests there, for instance).
    init(
        scenario: String, lockEnabled: Bool = false, clientProtocol: MQTTProtocolVersion = .v5,
        before: (MosquittoBroker) async throws -> Void = { _ in }
    ) async throws {
        broker = try MosquittoBroker()
        simulator = try SimulatorProcess(scenario: scenario)
        stateDirectory = NSTemporaryDirectory() + "nfcbridge-e2e-" + UUID().uuidString
        try await before(broker)

        client = try MQTTClient(configuration: MQTTConfiguration(
            url: broker.url, protocolVersion: clientProtocol, clientID: "e2e-client-\(UUID().uuidString.prefix(8))",
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(400))))
        inbox = MessageInbox.collecting(client)
        try await client.connect()
        try await client.subscribe(to: "\(Self.root)/response/#", qos: .atLeastOnce)
        try await client.subscribe(to: "\(Self.root)/event/#", qos: .atLeastOnce)
        try await client.subscribe(to: "replies/#", qos: .atLeastOnce)

        var config = AgentConfiguration(id: "e2e")
        config.mqtt.url = broker.url
        config.mqtt.baseTopic = "nfc"
        config.reader.device = "pn532_uart:\(simulator.linkPath)"
        config.reader.modulations = [.iso14443a]
        config.homeAssistant.enabled = false
        config.stateDirectory = stateDirectory
        config.commands.lockEnabled = lockEnabled
        config.log.level = .debug
        publisher = MQTTClientPublisher(client: try MQTTClient(configuration: config.mqttClientConfiguration))
        agent = try Agent(
            configuration: config, publisher: publisher, device: LibNFCDevice(connstring: config.reader.device),
            scanner: AnticollisionScanner())
        try publisher.start()
        let agent = self.agent
        running = Task { await agent.run() }
        // The agent is ready for requests once it published its retained state.
        try await client.subscribe(to: "\(Self.root)/status", qos: .atLeastOnce)
        try await client.subscribe(to: "\(Self.root)/reader", qos: .atLeastOnce)
        _ = try await inbox.next { $0.topic == "\(Self.root)/status" && $0.payloadString == "online" }
        _ = try await inbox.next { $0.topic == "\(Self.root)/reader" && $0.payloadString?.contains("\"ok\"") == true }
    }

    /// Stops the agent, the clients, the simulator and the broker.
    func stop() async {
        agent.stop()
        await running.value
        await publisher.disconnect()
        await client.disconnect()
        simulator.stop()
        broker.stop()
        try? FileManager.default.removeItem(atPath: stateDirectory)
    }

    /// Publishes a request (never retained), with MQTT 5 properties when given.
    func request(_ command: String, _ json: String, responseTopic: String? = nil, correlation: [UInt8]? = nil) async throws {
        try await client.publish(
            to: "\(Self.root)/request/\(command)", payload: Array(json.utf8), qos: .atLeastOnce,
            properties: MQTTPublishProperties(responseTopic: responseTopic, correlationData: correlation))
    }

    /// The next final (`ok` / `error`) response to `id` on `response/<command>` (or `topic`).
    func final(_ command: String, id: String, topic: String? = nil) async throws -> MQTTMessage {
        let topic = topic ?? "\(Self.root)/response/\(command)"
        return try await inbox.next { message in
            message.topic == topic && message.object?["id"] as? String == id && message.status != "waiting"
        }
    }

    /// The next response to `id` (any status).
    func any(_ command: String, id: String) async throws -> MQTTMessage {
        try await inbox.next { message in
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
        Type2TLV.extractMessage(fromMemory: try memory(id))?.hexString
    }

    /// Sends a control request to the simulator and checks that it was accepted.
    func control(_ request: [String: Any]) throws {
        let reply = try simulator.control(request)
        guard reply["ok"] as? Bool == true else { throw SimulatorProcess.Failure(description: "\(request): \(reply)") }
    }
}
