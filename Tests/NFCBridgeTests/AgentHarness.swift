import Foundation
import NFCCore
import PN532Sim
import Testing

@testable import NFCBridge

/// A scanner whose answers the test decides.
struct StubScanner: TagScanning {
    var scanResult: @Sendable (any TagTransport) throws -> TagScan = { TagScan(target: $0.target) }
    var dumpResult: @Sendable (TagScan) throws -> TagDump = { scan in .stub(of: scan, pages: [[0x04, 0xA1, 0xB2, 0xC3]]) }

    func scan(_ transport: any TagTransport) async throws -> TagScan { try scanResult(transport) }
    func dump(_ transport: any TagTransport, scan: TagScan) async throws -> TagDump { try dumpResult(scan) }
}

extension TagScan {
    /// A scan of a tag of `type` whose NDEF message holds `records` (none: no message).
    static func stub(uid: [UInt8], type: CardType = .ntag215, records: [NDEFRecord] = []) -> TagScan {
        let info = CardInfo(type: type, uid: uid)
        let message = records.isEmpty ? nil : try? NDEFMessage(records: records).bytes
        return TagScan(uid: uid, report: ScanReport(cardInfo: info, ndefMessage: message), cardInfo: info)
    }
}

extension TagDump {
    /// A dump of the tag of `scan` holding `pages` (numbered from 0).
    static func stub(of scan: TagScan, pages: [[UInt8]]) -> TagDump {
        let info = scan.cardInfo ?? CardInfo(type: .unknown(atqa: [0x00, 0x44], sak: 0), uid: scan.uid)
        return TagDump(cardInfo: info, pages: pages.enumerated().map { Page(number: $0.offset, data: $0.element) })
    }
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
    private func passGrace() {
        clock.advance(milliseconds: Int64(agent.configuration.presence.removalGraceMilliseconds) + 1)
    }

    /// Takes `tag` (one the reader loop has seen arrive) out of the field, waits until the loop
    /// has seen it missing, and only then advances the clock past the removal grace: the next
    /// check reports the removal.
    ///
    /// Advancing at once raced the loop: a presence check that found the tag just before the
    /// removal hands its result to the tracker with the clock read afterwards, so the tag counted
    /// as seen at the advanced time, and with the clock never moving again `removed` never came.
    /// A check that misses the tag polls in the same turn; a poll begun after the removal (the
    /// device's poll count moved past its value read after ``VirtualReaderDevice/remove(_:)``)
    /// comes after every observation that still had the tag, and cannot find it itself.
    func removeAndPassGrace(_ tag: any VirtualTag) async {
        device.remove(tag)
        await device.waitForPoll(after: device.pollCount)
        passGrace()
    }

    /// A state directory left by a run that never reached the broker: the `scanned` of
    /// ``makeTag(uid:)`` (seq 1) waits in its spool, and the tag in its presence record.
    static func directoryWithOneSpooledScan() async throws -> StateDirectory {
        let directory = StateDirectory()
        let h = try AgentHarness(directory: directory, connected: false)
        h.device.place(makeTag())
        await h.agent.pipeline.waitUntil { $0.spooled >= 1 }
        await h.stop()
        return directory
    }

    /// The `removed` (`after_restart`) of the tag the run of ``directoryWithOneSpooledScan()``
    /// left in the presence record: this run's reader starts empty, so its first poll reports it
    /// (the run's first event). Await it before the next tap, which otherwise races that poll for
    /// the next `seq`.
    func leftTagRemoved() async -> JSONValue {
        await waitFor(.removed, where: { $0["after_restart"] == true && $0["uid"] == "04A1B2C3D4E5F6" }).json
    }
}

/// An NTAG215 with a fixed UID.
func makeTag(uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]) -> VirtualType2Tag {
    VirtualType2Tag(model: .ntag215, uid: uid)
}
