import FoundationEssentials
import Glibc
import NFCCore
import Synchronization

/// The NFCBridge agent: runs the reader loop, turns what it sees into MQTT events and retained
/// state, keeps Home Assistant discovery, health and the systemd watchdog going, and buffers events
/// in the durable spool while the broker is away.
///
/// What it runs on is chosen by its caller and put together in an ``AgentAssembly`` (`nfcbridge run`
/// does it from the configuration: reader backend, broker, system clock):
///
/// ```swift
/// let parts = try AgentAssembly(
///     configuration: config, publisher: publisher, device: reader, scanner: scanner, clock: SystemClock())
/// let agent = Agent(parts)
/// let running = Task { await agent.run() }
/// // … on SIGTERM:
/// agent.stop()
/// await running.value   // `status` offline, reader closed (`tag` kept as it was)
/// ```
package final class Agent: Sendable {
    /// The configuration in force.
    package let configuration: AgentConfiguration
    /// The topics.
    package let topics: TopicMap
    /// The outgoing message path (events, spool, retained state).
    package let pipeline: EventPipeline
    /// The request/response commands (`<base>/<id>/request/<command>`).
    package let commands: CommandRouter

    let publisher: any MessagePublisher
    let device: any ReaderDevice
    let scanner: any TagScanning
    let clock: any AgentClock
    let logger: AgentLogger
    let notifier: any ServiceNotifying
    /// What it runs on: the seams and the parts built from the configuration (spool, presence
    /// store, discovery, tag access).
    let parts: AgentAssembly
    let state: Mutex<AgentState>
    /// The order in which the retained `reader`, `tag` and `info` were read from ``state``: each
    /// is queued with its place, so a value read before another one (on another task: the connect
    /// publishing everything while the reader loop publishes what just changed) never replaces it
    /// (``EventPipeline/publishState(_:_:retain:snapshot:)``).
    let stateReads = Tickets()
    /// The `health` reports made so far (made one at a time: their number is their order).
    let healthReports = Watched(0)
    private let stopSignal = StopSignal()

    /// Creates the agent with everything it runs on chosen here (tests, embedding): a shorthand
    /// for ``init(_:)`` over an ``AgentAssembly`` of these, on the system clock unless `clock` says
    /// otherwise. Throws a ``StorageError`` when the state directory cannot be used.
    package convenience init(
        configuration: AgentConfiguration, publisher: any MessagePublisher, device: any ReaderDevice,
        scanner: any TagScanning, clock: any AgentClock = SystemClock(), logger: AgentLogger? = nil,
        notifier: any ServiceNotifying = SilentNotifier(), readerLoopSettings: ReaderLoop.Settings? = nil,
        commandExecutor: (any CommandExecuting)? = nil, eventIDs: (@Sendable (Date) -> String)? = nil
    ) throws(StorageError) {
        self.init(
            try AgentAssembly(
                configuration: configuration, publisher: publisher, device: device, scanner: scanner, clock: clock,
                logger: logger, notifier: notifier, readerLoopSettings: readerLoopSettings,
                commandExecutor: commandExecutor, eventIDs: eventIDs))
    }

    /// The agent over the parts an ``AgentAssembly`` put together: it runs them (``run()``,
    /// ``stop()``); it chooses none of them.
    package init(_ parts: AgentAssembly) {
        (configuration, publisher, device, scanner, clock, notifier) =
            (parts.configuration, parts.publisher, parts.device, parts.scanner, parts.clock, parts.notifier)
        (topics, pipeline, commands, logger, self.parts) = (parts.topics, parts.pipeline, parts.commands, parts.logger, parts)
        state = Mutex(parts.initialState)
    }

    /// The durable spool of events the broker has not acknowledged yet.
    var spool: EventSpool { parts.spool }
    /// Home Assistant discovery (nil when it is off).
    var discovery: DiscoveryPublisher? { parts.discovery }

    /// Runs until ``stop()`` (or until the calling task is cancelled), then publishes `status`
    /// offline (`tag` stays as it was) and closes the reader.
    package func run() async {
        logger.info("nfcbridge \(NFCBridgeAgent.version) starting as '\(topics.id)' on \(topics.root); configuration \(JSONWire.text(configuration.publicConfiguration))")
        if !spool.isEmpty { logger.notice("\(spool.depth) buffered event(s) from an earlier run wait in the spool") }
        pipeline.start()
        let loop = ReaderLoop(device: device, scanner: scanner, clock: clock, settings: parts.loopSettings, tagAccess: parts.tagAccess) {
            [self] event in
            await handle(event)
        }
        let watchdog = notifier.watchdogInterval.map(makeWatchdog)
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
            group.addTask { [parts, configuration] in
                // A job the agent was running when it stopped goes on (its tag in hand reported torn).
                await parts.jobs.resumeActive(lockRefusal: CommandPolicy(configuration).lockDisabledRefusal)
                return .other
            }
            if let discovery {
                group.addTask {
                    await discovery.runRepublishing()
                    return .other
                }
            }
            // READY before the watchdog task exists: its first ping could otherwise reach systemd first.
            notifier.notify("READY=1")
            if let watchdog {
                group.addTask {
                    await watchdog.run()
                    return .other
                }
            }
            while let child = await group.next() {
                if child == .stop { break }
            }
            // The watchdog first: once it stopped, no ping can follow STOPPING=1.
            watchdog?.stop()
            notifier.notify("STOPPING=1")
            logger.info("stopping")
            device.abort()
            group.cancelAll()
        }
        await shutdown()
    }

    /// Asks ``run()`` to finish: callable from any thread (signal handlers), any number of times.
    package func stop() {
        stopSignal.fire()
        device.abort()
    }

    /// A snapshot of what the agent knows (tests, health).
    package var snapshot: AgentState { state.withLock { $0 } }

    /// The systemd watchdog for `interval`, reading the reader loop's progress from the state.
    private func makeWatchdog(_ interval: Duration) -> ProgressWatchdog {
        ProgressWatchdog(interval: interval, notifier: notifier, clock: clock, logger: logger) { [self] in
            state.withLock {
                ProgressWatchdog.Progress(
                    lastProgress: $0.lastProgress, busySince: $0.busySince, isReaderHung: $0.isReaderHung,
                    readerDetail: $0.reader.detail)
            }
        }
    }

    // MARK: - Connection

    private func watchConnection() async {
        for await event in publisher.events() {
            switch event {
            case .connected:
                let connection = state.withLock { s -> Int in
                    s.connections += 1
                    return s.connections
                }
                let node = (publisher as? MQTTClientPublisher)?.client.connectedURL ?? configuration.mqtt.url
                logger.info(connection > 1 ? "reconnected to the broker \(node)" : "connected to the broker \(node)")
                if configuration.mqtt.tlsInsecure {
                    logger.warning(
                        "mqtt.tls_insecure is on: the broker's certificate and host name were NOT verified; "
                            + "anyone on the network path can pose as the broker (lab use only)")
                }
                pipeline.connectionUp()
                // Subscribe first: a Home Assistant birth arriving while we publish is not missed.
                if configuration.homeAssistant.enabled { await subscribe(to: topics.homeAssistantStatus) }
                await subscribe(to: topics.requestFilter)
                // Stopping: a broker that stalled after its CONNACK must not hold up the exit.
                if Task.isCancelled { return }
                discovery?.connected(connection)
                await publishEverything(resendingDiscovery: false)
                await pipeline.drain()
            case .disconnected:
                pipeline.connectionDown()
                logger.warning("lost the broker connection; events go to the spool until it is back")
            case let .duplicateClientID(takeovers, retryIn):
                let clientID = configuration.mqttClientConfiguration.clientID ?? configuration.id
                logger.error(
                    "duplicate_client_id: another client connects as \(clientID): the broker gave it the session \(takeovers) "
                        + "times within seconds; give every agent its own id. Retrying in \(retryIn), then backing off up to 5 min")
                await pipeline.emit(.error, DuplicateClientIDEvent(takeovers: takeovers, clientID: clientID))
            case let .fellBackToV311(broker):
                logger.warning("the broker \(broker) speaks only MQTT 3.1.1 (it refused an MQTT 5 CONNECT): the agent speaks 3.1.1 "
                    + "to it from now on, without MQTT 5 properties (docs/fleet.md); set mqtt.protocol: \"3.1.1\" to skip the MQTT 5 try")
            case let .message(message):
                if let command = topics.command(inRequestTopic: message.topic) {
                    await commands.receive(message, command: command)
                } else if configuration.homeAssistant.enabled, message.topic == topics.homeAssistantStatus,
                    message.text == "online"
                {
                    // Home Assistant's birth message: it (re)started and wants discovery and state again.
                    logger.info("Home Assistant came online: re-sending discovery and state")
                    await publishEverything(resendingDiscovery: true)
                }
            }
        }
    }

    /// Subscribes to `filter`, logging why it failed; a stop (the task cancelled) ends the wait for
    /// the broker's answer without a word.
    private func subscribe(to filter: String) async {
        do {
            try await publisher.subscribe(to: filter, qos: .atLeastOnce)
        } catch is CancellationError {
        } catch {
            logger.warning("cannot subscribe to \(filter): \(error)")
        }
    }

    // MARK: - Reader loop events

    /// Runs the event through ``AgentReducer`` and carries out its effects, in order.
    func handle(_ event: ReaderLoopEvent) async {
        let (event, failures) = admittingSUN(event)
        let now = clock.now
        let monotonic = clock.monotonicMilliseconds
        let linkLive = publisher.isConnected && !pipeline.brokerStatus.stalled
        let effects = state.withLock {
            $0.linkLive = linkLive
            return AgentReducer.reduce(&$0, event, now: now, monotonic: monotonic)
        }
        for effect in effects {
            switch effect {
            case let .log(level, message): logger.log(level, message)
            case .publishReader: await publishReader()
            case .publishInfo:
                await publishInfo()
                // The reader became known (or changed): discovery carries it as the device's hw_version.
                discovery?.readerChanged(to: state.withLock { $0.readerInfo })
            case .publishTag:
                // Persisted first: once `tag` is out, a SIGKILL cannot lose what the next run needs.
                savePresence()
                await publishTag()
            case let .emitScanned(scan, date): await emitScanned(scan, at: date)
            case let .emitRemoved(removed): await pipeline.emit(.removed, removed)
            case let .emitDump(scan, dump):
                await pipeline.emit(.dump, DumpEvent(uid: scan.uid, cardType: scan.cardType, dump: dump))
            case let .emitError(error, operation, uid): await emitError(error, operation: operation, uid: uid)
            }
        }
        for failure in failures { await handle(failure) }
    }

    private func emitScanned(_ scan: TagScan, at date: Date? = nil) async {
        let receipt = await pipeline.emit(.scanned, ScannedEvent(scan: scan), at: date)
        // A new tap (not a re-scan, not a tag left there before a restart): the person at the reader sees and
        // hears it; the LED command waits its turn on the reader thread, never holding this one.
        if date != nil, !scan.initial, parts.feedback.signal(forScanWith: scan.trust?.verdict) != nil {
            let feedback = parts.feedback, uid = scan.uid, verdict = scan.trust?.verdict
            Task { await feedback.tagScanned(uid: uid, verdict: verdict) }
        }
        // A dump follows: let the scan show first — briefly, never waiting for a stalled broker.
        if configuration.dump.onScan { await pipeline.awaitAcknowledgement(of: receipt, upTo: Self.scanBeforeDumpLimit) }
    }

    /// How long the dump on scan waits for the `scanned` event's acknowledgement at most.
    static let scanBeforeDumpLimit: Duration = .milliseconds(250)

    private func emitError(_ error: NFCError, operation: String, uid: [UInt8]?) async {
        await pipeline.emit(.error, ErrorEvent(error: error, operation: operation, uid: uid))
    }
}
