import Foundation
import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// An executor whose results the test scripts, which records what it was asked, and which can
/// hold a command in its "acting" phase until released.
final class ScriptedExecutor: CommandExecuting {
    private struct State {
        var calls: [(action: CommandAction, uid: [UInt8])] = []
        var results: [Result<[String: JSONValue], CommandError>] = []
    }

    private let state = Mutex(State())
    /// Calls started so far.
    private let started = Watched(0)
    /// True while calls must wait in the acting phase.
    private let holding = Watched(false)

    /// Results for the next calls, in order; when none is left a call returns `["done": true]`.
    func script(_ results: Result<[String: JSONValue], CommandError>...) {
        state.withLock { $0.results += results }
    }

    /// Makes every call wait in the acting phase until ``release()``.
    func hold() { holding.update { $0 = true } }

    /// Lets held calls (and later ones) finish.
    func release() { holding.update { $0 = false } }

    /// The actions run so far, in order.
    var actions: [CommandAction] { state.withLock { $0.calls.map(\.action) } }
    /// The UIDs of the tags acted on, in order.
    var uids: [[UInt8]] { state.withLock { $0.calls.map(\.uid) } }

    /// Returns once `count` calls have started.
    func waitUntilStarted(_ count: Int = 1) async {
        await started.wait { $0 >= count }
    }

    func execute(_ action: CommandAction, on transport: any TagTransport, identified: CardInfo?)
        async throws(CommandError) -> any CommandOutcome
    {
        state.withLock { $0.calls.append((action, transport.target.uid)) }
        started.update { $0 += 1 }
        await holding.wait { !$0 }
        let result = state.withLock { s -> Result<[String: JSONValue], CommandError> in
            s.results.isEmpty ? .success(["done": true]) : s.results.removeFirst()
        }
        return ScriptedOutcome(data: try result.get())
    }
}

/// A scripted executor's outcome: the members the test chose for the response's `data`.
struct ScriptedOutcome: CommandOutcome, Equatable {
    var data: [String: JSONValue]

    func encode(to encoder: any Encoder) throws {
        try data.encode(to: encoder)
    }
}

/// A router on a virtual reader, an in-memory broker, a scripted (or real) executor and a hand-driven
/// clock, with its worker running until ``stop()``.
final class CommandHarness: Sendable {
    static let tagUID: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
    static let otherUID: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    let publisher = InMemoryPublisher(connected: true)
    let device = VirtualReaderDevice()
    let clock = ManualClock(monotonic: 1_000_000)
    let logs = LogRecorder()
    let auditLog = AuditLog()
    /// The scripted executor (the router uses it unless the test passed another).
    let scripted = ScriptedExecutor()
    let router: CommandRouter
    let worker: Task<Void, Never>

    init(
        policy: CommandPolicy = CommandPolicy(), executor: (any CommandExecuting)? = nil,
        cache: CommandResultCache? = nil, signatures: RequestSignatureVerifier? = nil,
        afterPublish: (@Sendable (OutboundMessage, CommandRouter) async -> Void)? = nil,
        acceptsRequests: @escaping @Sendable () -> Bool = { true }, jobs: (any JobHandling)? = nil
    ) async throws {
        let executor = executor ?? scripted
        let routerBox = Mutex<CommandRouter?>(nil)
        let inMemory = self.publisher
        let publisher: any MessagePublisher = afterPublish.map { hook in
            HookedPublisher(inner: inMemory) { message in
                if let router = routerBox.withLock({ $0 }) { await hook(message, router) }
            }
        } ?? inMemory
        _ = try await device.open()
        let audits = self.auditLog
        router = CommandRouter(
            topics: TopicMap(base: "nfc", id: "test"), policy: policy,
            access: DeviceTagAccess(device: device, modulations: [.iso14443a], interval: .milliseconds(20)), executor: executor,
            publisher: publisher, clock: clock, cache: cache, signatures: signatures,
            logger: AgentLogger(level: .debug, journald: false, clock: clock, sink: logs.sink),
            audit: { audit in audits.append(audit) }, acceptsRequests: acceptsRequests, jobs: jobs)
        let router = self.router
        routerBox.withLock { $0 = router }
        worker = Task { await router.run() }
    }

    /// The lock audits so far.
    var audits: [CommandRouter.LockAudit] { auditLog.entries.value }

    /// The lock audits, once there are at least `count` (the audit follows the response).
    func audits(atLeast count: Int) async -> [CommandRouter.LockAudit] { await auditLog.waitFor(count) }

    /// Stops the worker and waits for it.
    func stop() async {
        worker.cancel()
        await worker.value
    }

    /// Sends a request the way the MQTT client would deliver it.
    func send(
        _ command: String, _ json: String, retained: Bool = false, responseTopic: String? = nil,
        correlationData: [UInt8]? = nil
    ) async {
        await router.receive(
            InboundMessage(
                topic: "nfc/test/request/\(command)", payload: Array(json.utf8), retained: retained,
                responseTopic: responseTopic, correlationData: correlationData),
            command: command)
    }

    /// The `count`-th message published on `topic`.
    func message(on topic: String, count: Int = 1) async -> OutboundMessage {
        var index = -1
        var message = OutboundMessage(topic: topic, payload: [])
        for _ in 0..<count {
            (index, message) = await publisher.waitForMessage(after: index) { $0.topic == topic }
        }
        return message
    }

    /// The `count`-th response on `topic` (default: `nfc/test/response/<command>`).
    func response(_ command: String, count: Int = 1, topic: String? = nil) async -> JSONValue {
        await message(on: topic ?? "nfc/test/response/\(command)", count: count).json ?? .null
    }

    /// The first final response on `nfc/test/response/<command>` whose `id` is `id`, among the
    /// messages published after the first `skipping`.
    func finalResponse(_ command: String, id: JSONValue, skipping: Int = 0) async -> JSONValue {
        let (_, message) = await publisher.waitForMessage(after: skipping - 1) { message in
            guard message.topic == "nfc/test/response/\(command)", let json = message.json else { return false }
            return json["id"] == id && json["status"] != "waiting"
        }
        return message.json ?? .null
    }

    /// Every response published on `nfc/test/response/<command>`.
    func responses(_ command: String) -> [JSONValue] {
        publisher.published(to: "nfc/test/response/\(command)").compactMap(\.json)
    }

    /// Puts an NTAG215 with `uid` into the field.
    @discardableResult
    func placeTag(uid: [UInt8] = CommandHarness.tagUID) -> VirtualType2Tag {
        let tag = VirtualType2Tag(model: .ntag215, uid: uid)
        device.place(tag)
        return tag
    }
}

/// Forwards to an ``InMemoryPublisher`` and then runs a hook — e.g. to deliver a request while the
/// router is still awaiting the publish of a response.
final class HookedPublisher: MessagePublisher {
    let inner: InMemoryPublisher
    let hook: @Sendable (OutboundMessage) async -> Void

    init(inner: InMemoryPublisher, hook: @escaping @Sendable (OutboundMessage) async -> Void) {
        self.inner = inner
        self.hook = hook
    }

    var isConnected: Bool { inner.isConnected }
    func publish(_ message: OutboundMessage) async throws {
        try await inner.publish(message)
        await hook(message)
    }
    func subscribe(to filter: String, qos: MessageQoS) async throws { try await inner.subscribe(to: filter, qos: qos) }
    func events() -> AsyncStream<PublisherEvent> { inner.events() }
}

/// The lock audits a router reported. The router audits after it published the response, so
/// tests that saw the response wait for the audit with ``waitFor(_:)``.
final class AuditLog: Sendable {
    let entries = Watched<[CommandRouter.LockAudit]>([])
    func append(_ audit: CommandRouter.LockAudit) { entries.update { $0.append(audit) } }
    /// The audits once there are at least `count`.
    func waitFor(_ count: Int) async -> [CommandRouter.LockAudit] { await entries.wait { $0.count >= count } }
}

extension JSONValue {
    /// `error.code` of a response.
    var errorCode: String? { self["error"]?["code"]?.stringValue }
    /// `status` of a response.
    var status: String? { self["status"]?.stringValue }
}
