import FoundationEssentials
import NFCCore

/// What an ``Agent`` runs on, put together (composition; ``Agent`` keeps the lifecycle): the seams
/// the caller chose — reader backend, broker, scanner, clock, systemd notifier — and the parts built
/// from the configuration on them: the state directory with the spool and the sequence, the event
/// pipeline, the command router, Home Assistant discovery, the presence store and the first state.
/// `nfcbridge run` builds one from its configuration and hands it to ``Agent/init(_:)``.
package struct AgentAssembly: Sendable {
    let configuration: AgentConfiguration
    let publisher: any MessagePublisher
    let device: any ReaderDevice
    let scanner: any TagScanning
    /// Presence timings, timestamps and the commands' deadlines alike.
    let clock: any AgentClock
    let notifier: any ServiceNotifying
    let topics: TopicMap
    /// The one given, or one at the configured level.
    let logger: AgentLogger
    let loopSettings: ReaderLoop.Settings
    let tagAccess: ReaderTagAccess
    let spool: EventSpool
    let pipeline: EventPipeline
    let commands: CommandRouter
    /// The encode job runner (`request/job`).
    let jobs: JobRunner
    /// Nil when Home Assistant discovery is off.
    let discovery: DiscoveryPublisher?
    let presenceStore: PresenceStore
    /// The reader's LED and buzzer and `feedback.exec` (docs/readers.md).
    let feedback: FeedbackDriver
    /// The last SDM read counter per NTAG 424 DNA (state_dir/sun-counters): `replayed` SUN messages.
    let sunCounters: SUNCounterStore
    let initialState: AgentState

    /// Makes the state directory, opens the spool and the sequence there and builds the parts on
    /// them. Without a `logger`, one at the configured level; without `readerLoopSettings` or a
    /// `commandExecutor`, the ones the configuration gives; without `eventIDs`, random ULIDs.
    /// Throws a ``StorageError`` when the state directory cannot be used.
    package init(
        configuration: AgentConfiguration, publisher: any MessagePublisher, device: any ReaderDevice,
        scanner: any TagScanning, clock: any AgentClock, logger: AgentLogger? = nil,
        notifier: any ServiceNotifying = SilentNotifier(), readerLoopSettings: ReaderLoop.Settings? = nil,
        commandExecutor: (any CommandExecuting)? = nil, eventIDs: (@Sendable (Date) -> String)? = nil
    ) throws(StorageError) {
        (self.configuration, self.publisher, self.device, self.scanner, self.clock, self.notifier) =
            (configuration, publisher, device, scanner, clock, notifier)
        let topics = configuration.topics
        let logger = logger ?? AgentLogger(level: configuration.log.level, clock: clock)
        (self.topics, self.logger) = (topics, logger)
        loopSettings = readerLoopSettings ?? ReaderLoop.Settings(configuration)
        try AtomicFile.makeDirectory(configuration.stateDirectory)
        spool = try Self.openSpool(configuration, logger: logger)
        let sequence = try SequenceStore(directory: configuration.stateDirectory, floor: spool.highestSeq)
        if let recovery = sequence.recovery { logger.warning(recovery) }
        sunCounters = SUNCounterStore(directory: configuration.stateDirectory)
        if let recovery = sunCounters.recovery { logger.warning(recovery) }
        let pipeline = EventPipeline(
            topics: topics, publisher: publisher, spool: spool, sequence: sequence, clock: clock, logger: logger,
            eventIDs: eventIDs, acknowledgementDeadline: .seconds(configuration.mqtt.stallAfterSeconds),
            recycleDeadline: .seconds(configuration.mqtt.recycleAfterSeconds),
            liveWindow: .seconds(configuration.mqtt.liveWindowSeconds))
        self.pipeline = pipeline
        let tagAccess = ReaderTagAccess()
        self.tagAccess = tagAccess
        let policy = CommandPolicy(configuration)
        let executor = commandExecutor ?? TagCommandExecutor(familyOptions: configuration.dump.families)
        let feedback = FeedbackDriver(settings: configuration.feedback, device: device, agentID: configuration.id, logger: logger)
        self.feedback = feedback
        let jobs = JobRunner(
            stateDirectory: configuration.stateDirectory, access: tagAccess, executor: executor,
            reporting: EncodeStation.Reporting(
                tag: { result in
                    await pipeline.emit(EventKind.job, result)
                    // The person at the reader sees and hears the tag's result; the LED command waits
                    // its turn on the reader thread, never holding the job.
                    if feedback.signal(forJob: result.result.feedback) != nil {
                        Task { await feedback.jobTag(result.result.feedback, uid: [UInt8](hex: result.uid)) }
                    }
                },
                state: { state in await pipeline.publishState(topics.topic(StateTopic.job), json: state) }),
            logger: logger, passwords: configuration.dump.families.type2Keys.passwords)
        self.jobs = jobs
        commands = CommandRouter(
            topics: topics, policy: policy, access: tagAccess,
            executor: executor,
            publisher: PipelinePublisher(pipeline: pipeline, underlying: publisher), clock: clock,
            cache: try CommandResultCache(
                capacity: policy.resultCacheCapacity, directory: configuration.stateDirectory, logger: logger,
                windowSeconds: policy.idempotencyWindowSeconds, now: { clock.now }),
            signatures: configuration.commands.signatureKey.map {
                RequestSignatureVerifier(key: Array($0.value.utf8), windowSeconds: configuration.commands.signatureWindowSeconds)
            },
            logger: logger,
            audit: { audit in await pipeline.emit(.lock, audit) },
            acceptsRequests: { pipeline.acceptsRequests }, jobs: jobs,
            feedback: { signal in await feedback.show(signal, for: .request) })
        discovery =
            configuration.homeAssistant.enabled
            ? DiscoveryPublisher(documents: HomeAssistantDiscovery(
                topics: topics, version: NFCBridgeAgent.version, liveWindowSeconds: configuration.mqtt.liveWindowSeconds,
                healthIntervalSeconds: configuration.healthIntervalSeconds, trustedOnly: configuration.homeAssistant.trustedOnly)) {
                message in await pipeline.publishState(message.topic, message.payload)
            } : nil
        // What the previous run last saw in the field: tags found there again at start-up are `initial`.
        presenceStore = PresenceStore(directory: configuration.stateDirectory)
        let (previous, problem) = presenceStore.load()
        if let problem { logger.warning("\(problem.message); starting without the previous run's presence") }
        initialState = AgentState(
            startedAt: clock.now, startedMonotonic: clock.monotonicMilliseconds,
            reader: ReaderStatus(state: .starting, device: configuration.reader.device, since: clock.now),
            tags: TagPresence(previous: previous))
    }

    /// The spool in the state directory; what it could not read back is logged.
    private static func openSpool(_ configuration: AgentConfiguration, logger: AgentLogger) throws(StorageError) -> EventSpool {
        let spool = try EventSpool(
            directory: configuration.stateDirectory, maxEvents: configuration.spool.maxEvents,
            maxBytes: configuration.spool.maxBytes, maxAgeSeconds: configuration.spool.maxAgeSeconds)
        if spool.corruptLineCount > 0 || spool.hadTornTail {
            logger.warning(
                "spool \(spool.logPath): skipped \(spool.corruptLineCount) unreadable line(s)"
                    + (spool.hadTornTail ? " and a torn last line (a crash during an append)" : ""))
        }
        if let problem = spool.liveSends.problem { logger.warning("spool: \(problem)") }
        return spool
    }
}

extension EncodeTagResult.Result {
    /// The `feedback.on_job` rule of this result: a torn tag is a failure at the reader (the tag left
    /// mid-write), a duplicate a refusal (nothing was written).
    var feedback: JobFeedback {
        switch self {
        case .ok: .ok
        case .failed, .torn: .failed
        case .refused, .duplicate: .refused
        }
    }
}
