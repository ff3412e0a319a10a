import Foundation
import NFCCore
import PN532Sim
import Testing

@testable import NFCBridge

/// A scanner whose answers the test decides.
struct StubScanner: TagScanning {
    var scanResult: @Sendable (any TagTransport) throws -> TagScan = { TagScan(target: $0.target) }
    var dumpResult: @Sendable (TagScan) throws -> JSONValue = { scan in ["pages": .int(Int64(scan.uid.count))] }

    func scan(_ transport: any TagTransport) async throws -> TagScan { try scanResult(transport) }
    func dump(_ transport: any TagTransport, scan: TagScan) async throws -> JSONValue { try dumpResult(scan) }
}

/// How a harness makes event ids (a struct, so the `configure` trailing closure stays unambiguous).
struct EventIDMaker: Sendable {
    let make: @Sendable (Date) -> String
}

/// One agent on a virtual reader, an in-memory broker and a hand-driven clock (presence, timestamps
/// and command deadlines alike: a command's wait ends only when the test advances ``clock``),
/// running until `stop()`.
final class AgentHarness: Sendable {
    let directory: StateDirectory
    let publisher: InMemoryPublisher
    let messagePublisher: any MessagePublisher
    let device: VirtualReaderDevice
    let clock = ManualClock()
    let logs = LogRecorder()
    let agent: Agent
    let running: Task<Void, Never>

    var topics: TopicMap { agent.topics }

    init(
        directory: StateDirectory = StateDirectory(), connected: Bool = true, publisher realPublisher: (any MessagePublisher)? = nil,
        device: VirtualReaderDevice = VirtualReaderDevice(),
        scanner: any TagScanning = StubScanner(), interval: Duration = .milliseconds(5),
        commandExecutor: any CommandExecuting = TagCommandExecutor(),
        eventIDs: EventIDMaker? = nil,
        configure: (inout AgentConfiguration) -> Void = { _ in }
    ) throws {
        self.directory = directory
        self.device = device
        publisher = InMemoryPublisher(connected: connected)
        messagePublisher = realPublisher ?? publisher
        var config = AgentConfiguration(id: "test")
        config.stateDirectory = directory.path
        config.reader.modulations = [.iso14443a]
        configure(&config)
        var settings = ReaderLoop.Settings(config)
        settings.interval = interval
        settings.retryInitial = .milliseconds(5)
        settings.retryMaximum = .milliseconds(20)
        // Composed the way `nfcbridge run` does it, on the hand-driven clock.
        agent = Agent(
            try AgentAssembly(
                configuration: config, publisher: messagePublisher, device: device, scanner: scanner, clock: clock,
                logger: AgentLogger(level: .debug, journald: false, clock: clock, sink: logs.sink),
                readerLoopSettings: settings, commandExecutor: commandExecutor, eventIDs: eventIDs?.make))
        let agent = self.agent
        running = Task { await agent.run() }
    }

    /// Stops the agent and waits for it to finish.
    func stop() async {
        agent.stop()
        await running.value
    }

    @discardableResult
    func waitFor(_ kind: EventKind, after index: Int = -1, where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true })
        async -> (index: Int, json: JSONValue)
    {
        await publisher.waitForJSON(on: topics.topic(kind), after: index, where: predicate)
    }

    @discardableResult
    func waitFor(_ state: StateTopic, after index: Int = -1, where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true })
        async -> (index: Int, json: JSONValue)
    {
        await publisher.waitForJSON(on: topics.topic(state), after: index, where: predicate)
    }

    /// Advances the clock past the removal grace.
    func passGrace() {
        clock.advance(milliseconds: Int64(agent.configuration.presence.removalGraceMilliseconds) + 1)
    }
}

/// An NTAG215 with a fixed UID.
func makeTag(uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]) -> VirtualType2Tag {
    VirtualType2Tag(model: .ntag215, uid: uid)
}
