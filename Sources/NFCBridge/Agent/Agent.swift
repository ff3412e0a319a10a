import FoundationEssentials
import Glibc
import NFCCore
import Synchronization

/// The NFCBridge agent: runs the reader loop, turns what it sees into MQTT events and retained
/// state, keeps Home Assistant discovery, health and the systemd watchdog going, and buffers events
/// in the durable spool while the broker is away.
///
/// ```swift
/// let agent = try Agent(configuration: config, publisher: publisher, device: reader, scanner: scanner)
/// let running = Task { await agent.run() }
/// // … on SIGTERM:
/// agent.stop()
/// await running.value   // `tag` cleared, `status` offline, reader closed
/// ```
public final class Agent: Sendable {
    /// The configuration in force.
    public let configuration: AgentConfiguration
    /// The topics.
    public let topics: TopicMap
    /// The outgoing message path (events, spool, retained state).
    public let pipeline: EventPipeline
    /// The request/response commands (`<base>/<id>/request/<command>`).
    public let commands: CommandRouter
    /// How commands get the tags the reader loop sees.
    let tagAccess = ReaderTagAccess()

    let publisher: any MessagePublisher
    let device: any ReaderDevice
    let scanner: any TagScanning
    let clock: any AgentClock
    let logger: AgentLogger
    let notifier: any ServiceNotifying
    let spool: EventSpool
    let loopSettings: ReaderLoop.Settings
    let discovery: HomeAssistantDiscovery
    let presenceStore: PresenceStore
    private let state: Mutex<AgentState>
    private let stopSignal = StopSignal()
    /// Bumped when the reader became known or changed: discovery goes out again (its hw_version).
    private let discoveryRequests = Watched(0)
    /// Whose turn it is to publish discovery documents: claims (``AgentState/discoveryClaims``) go out
    /// one after the other, in claim order.
    private let discoveryTurn = Watched(0)

    /// Creates the agent: makes the state directory and opens the spool and the sequence there.
    /// Throws a ``StorageError`` when the state directory cannot be used.
    public init(
        configuration: AgentConfiguration, publisher: any MessagePublisher, device: any ReaderDevice,
        scanner: any TagScanning, clock: any AgentClock = SystemClock(), logger: AgentLogger? = nil,
        notifier: any ServiceNotifying = SilentNotifier(), readerLoopSettings: ReaderLoop.Settings? = nil,
        commandExecutor: (any CommandExecuting)? = nil, commandClock: (any CommandClock)? = nil,
        eventIDs: (@Sendable (Date) -> String)? = nil
    ) throws(StorageError) {
        self.configuration = configuration
        self.topics = TopicMap(configuration)
        self.publisher = publisher
        self.device = device
        self.scanner = scanner
        self.clock = clock
        self.logger = logger ?? AgentLogger(level: configuration.log.level, clock: clock)
        self.notifier = notifier
        self.loopSettings = readerLoopSettings ?? ReaderLoop.Settings(configuration)
        self.discovery = HomeAssistantDiscovery(topics: topics, version: NFCBridgeAgent.version)
        try AtomicFile.makeDirectory(configuration.stateDirectory)
        spool = try EventSpool(
            directory: configuration.stateDirectory, maxEvents: configuration.spool.maxEvents,
            maxBytes: configuration.spool.maxBytes, maxAgeSeconds: configuration.spool.maxAgeSeconds)
        if spool.corruptLineCount > 0 || spool.hadTornTail {
            self.logger.warning(
                "spool \(spool.logPath): skipped \(spool.corruptLineCount) unreadable line(s)"
                    + (spool.hadTornTail ? " and a torn last line (a crash during an append)" : ""))
        }
        let sequence = try SequenceStore(directory: configuration.stateDirectory, floor: spool.highestSeq)
        if let recovery = sequence.recovery { self.logger.warning(recovery) }
        pipeline = EventPipeline(
            topics: topics, publisher: publisher, spool: spool, sequence: sequence, clock: clock, logger: self.logger,
            eventIDs: eventIDs, acknowledgementDeadline: .seconds(configuration.mqtt.stallAfterSeconds),
            recycleDeadline: .seconds(configuration.mqtt.recycleAfterSeconds))
        let policy = CommandPolicy(configuration)
        let pipeline = self.pipeline
        commands = CommandRouter(
            topics: topics, policy: policy, access: tagAccess, executor: commandExecutor ?? TagCommandExecutor(classicKeys: configuration.dump.classicKeys),
            publisher: PipelinePublisher(pipeline: pipeline, underlying: publisher),
            clock: commandClock ?? (clock as? any CommandClock) ?? SystemClock(),
            cache: try CommandResultCache(
                capacity: policy.resultCacheCapacity, directory: configuration.stateDirectory, logger: self.logger,
                windowSeconds: policy.idempotencyWindowSeconds, now: { clock.now }),
            signatures: configuration.commands.signatureKey.map {
                RequestSignatureVerifier(key: Array($0.value.utf8), windowSeconds: configuration.commands.signatureWindowSeconds)
            },
            logger: self.logger,
            audit: { audit in await pipeline.emit(.lock, audit) })
        // What the previous run last saw in the field: tags found there again at start-up are `initial`.
        presenceStore = PresenceStore(directory: configuration.stateDirectory)
        let (previous, problem) = presenceStore.load()
        if let problem { self.logger.warning("\(problem.message); starting without the previous run's presence") }
        state = Mutex(
            AgentState(
                startedAt: clock.now, startedMonotonic: clock.monotonicMilliseconds,
                reader: ReaderStatus(state: .starting, device: configuration.reader.device, since: clock.now),
                tags: TagPresence(previous: previous)))
    }

    /// Runs until ``stop()`` (or until the calling task is cancelled), then publishes `tag`
    /// cleared and `status` offline and closes the reader.
    public func run() async {
        logger.info("nfcbridge \(NFCBridgeAgent.version) starting as '\(topics.id)' on \(topics.root); configuration \(configuration.publicJSON.jsonString)")
        if !spool.isEmpty { logger.notice("\(spool.depth) buffered event(s) from an earlier run wait in the spool") }
        pipeline.start()
        let loop = ReaderLoop(device: device, scanner: scanner, clock: clock, settings: loopSettings, tagAccess: tagAccess) {
            [self] event in
            await handle(event)
        }
        enum Child { case stop, other }
        await withTaskGroup(of: Child.self) { group in
            group.addTask { [stopSignal] in
                await stopSignal.wait()
                return .stop
            }
            group.addTask { [self] in
                await watchConnection()
                return .other
            }
            group.addTask {
                await loop.run()
                return .other
            }
            group.addTask { [self] in
                await publishHealthPeriodically()
                return .other
            }
            group.addTask { [commands] in
                await commands.run()
                return .other
            }
            group.addTask { [self] in
                await republishDiscoveryWhenTheReaderChanges()
                return .other
            }
            // READY before the watchdog task exists: its first ping could otherwise reach systemd first.
            notifier.notify("READY=1")
            if let interval = notifier.watchdogInterval {
                group.addTask { [self] in
                    await pingWatchdog(every: interval)
                    return .other
                }
            }
            while let child = await group.next() {
                if child == .stop { break }
            }
            notifier.notify("STOPPING=1")
            logger.info("stopping")
            device.abort()
            group.cancelAll()
        }
        await shutdown()
    }

    /// Asks ``run()`` to finish: callable from any thread (signal handlers), any number of times.
    public func stop() {
        stopSignal.fire()
        device.abort()
    }

    /// A snapshot of what the agent knows (tests, health).
    public var snapshot: AgentState { state.withLock { $0 } }

    // MARK: - Connection

    private func watchConnection() async {
        for await event in publisher.events() {
            switch event {
            case .connected:
                let reconnect = state.withLock { s -> Bool in
                    s.connections += 1
                    return s.connections > 1
                }
                logger.info(reconnect ? "reconnected to the broker" : "connected to the broker \(configuration.mqtt.url)")
                if configuration.mqtt.tlsInsecure {
                    logger.warning(
                        "mqtt.tls_insecure is on: the broker's certificate and host name were NOT verified; "
                            + "anyone on the network path can pose as the broker (lab use only)")
                }
                pipeline.connectionUp()
                // Subscribe first: a Home Assistant birth arriving while we publish is not missed.
                if configuration.homeAssistant.enabled {
                    do {
                        try await publisher.subscribe(to: topics.homeAssistantStatus, qos: .atLeastOnce)
                    } catch {
                        logger.warning("cannot subscribe to \(topics.homeAssistantStatus): \(error)")
                    }
                }
                do {
                    try await publisher.subscribe(to: topics.requestFilter, qos: .atLeastOnce)
                } catch {
                    logger.warning("cannot subscribe to \(topics.requestFilter): \(error)")
                }
                await publishEverything(resendingDiscovery: false)
                await pipeline.drain()
            case .disconnected:
                pipeline.connectionDown()
                logger.warning("lost the broker connection; events go to the spool until it is back")
            case let .message(message) where topics.command(inRequestTopic: message.topic) != nil:
                await commands.receive(message)
            case let .message(message):
                // Home Assistant's birth message: it (re)started and wants discovery and state again.
                if configuration.homeAssistant.enabled, message.topic == topics.homeAssistantStatus,
                    message.text == "online"
                {
                    logger.info("Home Assistant came online: re-sending discovery and state")
                    await publishEverything(resendingDiscovery: true)
                }
            }
        }
    }

    /// Everything retained, in this order: `reader`, `tag`, `status` online, `info`, discovery and
    /// `health` (which closes what a connect publishes). A consumer that follows `status` (Home
    /// Assistant's availability) sees it go online only once `reader` and `tag` hold this run's
    /// state: the previous run's retained `tag` (after a SIGKILL: `present: true`) is replaced
    /// while `status` still says `offline` (its will), and `reader` says `starting` — not
    /// `absent` — until the first open has been tried.
    /// `resendingDiscovery`: Home Assistant asked (its birth message), so discovery goes out even
    /// when this connection already carried it.
    private func publishEverything(resendingDiscovery: Bool) async {
        await publishReader()
        await publishTag()
        await pipeline.publishState(topics.topic(.status), Array("online".utf8))
        await publishInfo()
        await publishDiscovery(force: resendingDiscovery)
        await publishHealth()
    }

    private func republishDiscoveryWhenTheReaderChanges() async {
        var handled = 0
        while !Task.isCancelled {
            handled = await discoveryRequests.wait(until: { [handled] in $0 > handled })
            if Task.isCancelled { break }
            await publishDiscovery(force: false)
        }
    }

    /// The Home Assistant discovery documents (when enabled), the device's `hw_version` from the
    /// reader as last opened: once per connection and again when the reader becomes known or
    /// changes (the connect and the reader's first open may cross: the documents go out once), or
    /// always when `force`.
    private func publishDiscovery(force: Bool) async {
        guard configuration.homeAssistant.enabled else { return }
        let claimed = state.withLock { s -> (reader: ReaderInfo?, claim: Int)? in
            // Before the first connect is handled, its sequence sends them: the reader's first open
            // can come between the client's CONNACK and the agent's `.connected` (sending them here
            // too made a second copy on the same connection).
            if !force, s.connections == 0 { return nil }
            if !force, s.discoveredReader == s.readerInfo, s.discoveredConnection == s.connections { return nil }
            s.discoveredReader = s.readerInfo
            s.discoveredConnection = s.connections
            s.discoveryClaims += 1
            return (s.readerInfo, s.discoveryClaims - 1)
        }
        guard let claimed else { return }
        // One claim at a time, in claim order: the connect's claim (reader not yet known) and the
        // reader's first open (with its hw_version) used to interleave topic by topic, so the older
        // document could be the one retained last. A claim overtaken by a newer one stops: the
        // newer one sends every document after it.
        await discoveryTurn.wait(until: { $0 >= claimed.claim })
        defer { discoveryTurn.update { $0 = max($0, claimed.claim + 1) } }
        for message in discovery.messages(reader: claimed.reader) {
            let overtaken = state.withLock { $0.discoveryClaims > claimed.claim + 1 }
            if overtaken || Task.isCancelled { return }
            await pipeline.publishState(message.topic, message.payload)
        }
    }

    private func shutdown() async {
        // The field is no longer watched: `tag` says nothing is present (keeping `last`). The
        // presence record keeps the tags, which are still there: the next run's first poll finds
        // them as `initial`.
        state.withLock { $0.tags.tags = [] }
        await publishTag()
        await pipeline.publishState(topics.topic(.status), Array("offline".utf8))
        // Bounded: a stalled broker must not hold up the exit (what is not out stays in the spool).
        await pipeline.flush(upTo: .seconds(5))
        await pipeline.stop()
        await presenceStore.flush()
        await device.close()
        logger.info("stopped")
    }

    // MARK: - Reader loop events

    /// Runs the event through ``AgentReducer`` and carries out its effects, in order.
    func handle(_ event: ReaderLoopEvent) async {
        let now = clock.now
        let monotonic = clock.monotonicMilliseconds
        let effects = state.withLock { AgentReducer.reduce(&$0, event, now: now, monotonic: monotonic) }
        for effect in effects {
            switch effect {
            case let .log(level, message): logger.log(level, message)
            case .publishReader: await publishReader()
            case .publishInfo:
                await publishInfo()
                // The reader became known (or changed): discovery carries it as the device's
                // hw_version. Sent from its own task: thirteen acknowledged publishes must not hold
                // up the reader loop.
                discoveryRequests.update { $0 += 1 }
            case .publishTag:
                // Persisted first: once `tag` is out, a SIGKILL cannot lose what the next run needs.
                savePresence()
                await publishTag()
            case let .emitScanned(scan, date): await emitScanned(scan, at: date)
            case let .emitRemoved(uid, present, afterRestart):
                await pipeline.emit(.removed, RemovedEvent(uid: uid, presentMilliseconds: present, afterRestart: afterRestart))
            case let .emitDump(scan, export):
                await pipeline.emit(.dump, DumpEvent(uid: scan.uid, cardType: scan.cardType, dump: export))
            case let .emitError(error, operation, uid): await emitError(error, operation: operation, uid: uid)
            }
        }
    }

    private func emitScanned(_ scan: TagScan, at date: Date? = nil) async {
        let receipt = await pipeline.emit(.scanned, ScannedEvent(scan: scan), at: date)
        // A dump follows: let the scan show first — briefly, never waiting for a stalled broker.
        if configuration.dump.onScan { await pipeline.awaitAcknowledgement(of: receipt, upTo: Self.scanBeforeDumpLimit) }
    }

    /// How long the dump on scan waits for the `scanned` event's acknowledgement at most.
    static let scanBeforeDumpLimit: Duration = .milliseconds(250)

    private func emitError(_ error: NFCError, operation: String, uid: [UInt8]?) async {
        await pipeline.emit(.error, ErrorEvent(error: error, operation: operation, uid: uid))
    }

    // MARK: - Retained state

    private func publishReader() async {
        await pipeline.publishState(topics.topic(.reader), json: state.withLock { $0.reader })
    }

    private func publishTag() async {
        await pipeline.publishState(topics.topic(.tag), json: state.withLock { $0.tags })
    }

    /// Persists the field for the next run (``PresenceStore``), on the store's own thread: the
    /// reader never waits for the disk. A failure is logged, nothing else.
    private func savePresence() {
        presenceStore.saveInBackground(state.withLock { $0.tags }) { [logger] error in
            logger.warning("cannot persist the tag presence: \(error.message)")
        }
    }

    private func publishInfo() async {
        let (readerInfo, startedAt) = state.withLock { ($0.readerInfo, $0.startedAt) }
        let info = AgentInfo(
            id: topics.id, version: NFCBridgeAgent.version, startedAt: startedAt, reader: readerInfo,
            mqtt: configuration.mqtt, commands: configuration.enabledCommands, config: configuration.publicConfiguration)
        await pipeline.publishState(topics.topic(.info), json: info)
    }

    /// The current health report.
    public var health: HealthReport {
        let now = clock.now
        let monotonic = clock.monotonicMilliseconds
        let s = snapshot
        return HealthReport(
            date: now, uptimeSeconds: (monotonic - s.startedMonotonic) / 1000, residentBytes: ProcessStats.residentBytes,
            readerState: s.reader.state, readerReopens: s.readerReopens, pollErrors: s.pollErrors,
            scansTotal: s.scansTotal, mqttConnected: publisher.isConnected, mqttReconnects: max(0, s.connections - 1),
            spoolDepth: spool.depth, spoolBytes: spool.byteCount,
            spoolDropped: pipeline.statistics.dropped,
            spoolOldestAgeSeconds: spool.oldestQueuedAt.map { max(0, Timestamp.milliseconds(now) - $0) / 1000 },
            mqttConnectFailures: (publisher as? MQTTClientPublisher)?.client.connectionFailureCounts ?? [:],
            spoolCorruptLines: spool.corruptLineCount, broker: pipeline.brokerStatus)
    }

    private func publishHealth() async {
        await pipeline.publishState(topics.topic(.health), json: health)
    }

    private func publishHealthPeriodically() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(configuration.healthIntervalSeconds))
            if Task.isCancelled { break }
            await publishHealth()
            await pipeline.drain()  // also retries a replay that an earlier failure paused
        }
    }

    /// How long one scan or dump may run before the watchdog stops pinging.
    static let longestTagOperationMilliseconds: Int64 = 5 * 60 * 1000

    /// Pets the systemd watchdog (`WATCHDOG=1`) every quarter of `WatchdogSec`, but only while the
    /// reader loop makes progress: a poll, presence check or command finished (or a back-off slice
    /// ended while the reader is away) within the last `WatchdogSec`/2, or a tag operation is under
    /// way (for at most ``longestTagOperationMilliseconds``). It stops when a libnfc call hangs and
    /// when the reader stopped answering and ``AgentReducer/reopensBeforeHung`` reopens failed
    /// (``AgentState/isReaderHung``); systemd then restarts the service. The broker plays no part.
    /// Each change is told to systemd as `STATUS=` (shown by `systemctl status`) and logged.
    private func pingWatchdog(every interval: Duration) async {
        let window = Self.milliseconds(interval) / 2
        /// Why the pings stopped: told to systemd once per change.
        enum Stall: Equatable { case hung, noProgress }
        var stalled: Stall?
        while !Task.isCancelled {
            let (last, busySince, hung, detail) = state.withLock {
                ($0.lastProgress, $0.busySince, $0.isReaderHung, $0.reader.detail)
            }
            let now = clock.monotonicMilliseconds
            let busy = busySince.map { now - $0 < Self.longestTagOperationMilliseconds } ?? false
            let stall: Stall? = hung ? .hung : (now - last >= window && !busy ? .noProgress : nil)
            if let stall {
                if stall != stalled {
                    let reason =
                        stall == .hung
                        ? "reader unresponsive after \(AgentReducer.reopensBeforeHung) reopen attempts (\(detail ?? "no detail"))"
                        : "reader loop made no progress for \(now - last) ms"
                    logger.error("watchdog: \(reason); not pinging systemd")
                    notifier.notify("STATUS=watchdog stopped: \(reason)")
                }
            } else {
                if stalled != nil {
                    logger.notice("watchdog: the reader loop makes progress again; pinging systemd")
                    notifier.notify("STATUS=running")
                }
                notifier.notify("WATCHDOG=1")
            }
            stalled = stall
            try? await Task.sleep(for: interval / 4)
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}

/// What the agent knows right now.
public struct AgentState: Sendable {
    /// When the agent started (wall clock).
    public var startedAt: Date
    /// When the agent started (monotonic milliseconds).
    public var startedMonotonic: Int64
    /// The reader's state.
    public var reader: ReaderStatus
    /// The reader's identity, once opened.
    public var readerInfo: ReaderInfo?
    /// Tags in the field.
    public var tags = TagPresence()
    /// The reader the discovery documents published last describe.
    public var discoveredReader: ReaderInfo?
    /// The connection (``connections``) that carried them.
    public var discoveredConnection: Int?
    /// Discovery claims so far (each a full set of documents to send, in this order).
    public var discoveryClaims = 0
    /// Reported scans (arrivals and repeats).
    public var scansTotal = 0
    /// Successful reopens of the reader.
    public var readerReopens = 0
    /// Failed polls and presence checks.
    public var pollErrors = 0
    /// Broker connections so far (reconnects = connections − 1).
    public var connections = 0
    /// Last sign of life of the reader loop (monotonic milliseconds).
    public var lastProgress: Int64 = 0
    /// When the tag operation under way started (monotonic milliseconds), if one is.
    public var busySince: Int64?
    /// Reopens of a reader that does not answer (``NFCError/readerUnresponsive(_:)``) that failed
    /// in a row; reset when it opens or turns out to be gone instead.
    public var failedUnresponsiveReopens = 0
    /// The reader stopped answering and ``AgentReducer/reopensBeforeHung`` reopens failed: the
    /// watchdog is no longer petted, so systemd restarts the service.
    public var isReaderHung: Bool { failedUnresponsiveReopens >= AgentReducer.reopensBeforeHung }

    init(startedAt: Date, startedMonotonic: Int64, reader: ReaderStatus, tags: TagPresence = TagPresence()) {
        self.startedAt = startedAt
        self.startedMonotonic = startedMonotonic
        self.reader = reader
        self.tags = tags
        self.lastProgress = startedMonotonic
    }
}

/// A one-shot signal: ``wait()`` returns once ``fire()`` was called (before or after), or when the
/// waiting task is cancelled.
final class StopSignal: Sendable {
    private let fired = Watched(false)

    func fire() { fired.update { $0 = true } }

    func wait() async { await fired.wait { $0 } }
}
