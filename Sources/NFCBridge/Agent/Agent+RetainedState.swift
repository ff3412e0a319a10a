import FoundationEssentials
import NFCCore

/// The retained state topics: `reader`, `tag`, `status`, `info`, `job`, `health` (and discovery,
/// through ``DiscoveryPublisher``), and the presence record the next run starts from.
extension Agent {
    /// Everything retained, in this order: `reader`, `tag`, `status` online, `info`, `job` (the last
    /// state of this run's job, if it had one), discovery and `health` (which closes what a connect
    /// publishes). A consumer that follows `status` (Home
    /// Assistant's availability) sees it go online only once `reader` and `tag` hold this run's
    /// state: the previous run's retained `tag` (after a SIGKILL: `present: true`) is replaced
    /// while `status` still says `offline` (its will), and `reader` says `starting` — not
    /// `absent` — until the first open has been tried.
    /// `resendingDiscovery`: Home Assistant asked (its birth message), so discovery goes out even
    /// when this connection already carried it.
    ///
    /// `health` is made first and queued last: it tells how the link was when the connection came
    /// up, not this connect's own messages on their way (made after them, `mqtt.unacked_s` would
    /// be `0` or `null` depending on whether the sender was between a publish and its
    /// acknowledgement at that instant).
    func publishEverything(resendingDiscovery: Bool) async {
        let health = makeHealthReport()
        await publishReader()
        await publishTag()
        await pipeline.publishState(topics.topic(.status), Array("online".utf8))
        await publishInfo()
        if let job = parts.jobs.lastState { await pipeline.publishState(topics.topic(StateTopic.job), json: job) }
        await discovery?.publish(force: resendingDiscovery)
        await publishHealth(health)
    }

    /// Reads `part` of the state and its place in the order of reads (``stateReads``), in one step.
    private func read<Part>(_ part: (AgentState) -> Part) -> (Part, snapshot: Int) {
        state.withLock { s in (part(s), stateReads.next()) }
    }

    func publishReader() async {
        let (reader, snapshot) = read { $0.reader }
        await pipeline.publishState(topics.topic(.reader), json: reader, snapshot: snapshot)
    }

    func publishTag() async {
        let (tags, snapshot) = read { $0.tags }
        await pipeline.publishState(topics.topic(.tag), json: tags, snapshot: snapshot)
    }

    /// Persists the field for the next run (``PresenceStore``), on the store's own thread: the
    /// reader never waits for the disk. A failure is logged, nothing else.
    func savePresence() {
        parts.presenceStore.saveInBackground(
            state.withLock { $0.tags }, onSaved: { [logger] count in logger.debug("presence: on disk with \(count) tag(s)") },
            onFailure: { [logger] error in logger.warning("cannot persist the tag presence: \(error.message)") })
    }

    func publishInfo() async {
        let ((readerInfo, startedAt), snapshot) = read { ($0.readerInfo, $0.startedAt) }
        let info = AgentInfo(
            id: topics.id, version: NFCBridgeAgent.version, startedAt: startedAt, reader: readerInfo,
            mqtt: configuration.mqtt, commands: configuration.enabledCommands, config: configuration.publicConfiguration,
            authKeys: configuration.auth.keyNames)
        await pipeline.publishState(topics.topic(.info), json: info, snapshot: snapshot)
    }

    /// The current health report.
    package var health: HealthReport {
        let now = clock.now
        let monotonic = clock.monotonicMilliseconds
        let s = snapshot
        let statistics = pipeline.statistics
        let client = (publisher as? MQTTClientPublisher)?.client
        return HealthReport(
            date: now, uptimeSeconds: (monotonic - s.startedMonotonic) / 1000, residentBytes: ProcessStats.residentBytes,
            readerState: s.reader.state, readerReopens: s.readerReopens, pollErrors: s.pollErrors,
            scansTotal: s.scansTotal, mqttConnected: publisher.isConnected, mqttReconnects: max(0, s.connections - 1),
            spoolDepth: spool.depth, spoolBytes: spool.byteCount,
            spoolDropped: statistics.dropped,
            spoolOldestAgeSeconds: spool.oldestQueuedAt.map { max(0, Timestamp.milliseconds(now) - $0) / 1000 },
            mqttConnectFailures: client?.connectionFailureCounts ?? [:],
            spoolCorruptLines: spool.corruptLineCount, spoolWriteFailed: spool.writeFailure != nil,
            spoolWriteFailures: statistics.spoolWriteFailures, responsesDropped: statistics.responsesDropped,
            refusedForSize: statistics.refusedForSize, mqttNode: client?.connectedURL, mqttFailovers: client?.failovers ?? 0,
            duplicateClientIDTakeovers: client?.duplicateClientIDTakeovers ?? 0, spoolReplayed: statistics.replayed,
            clockSynchronized: clock.isSynchronized, broker: pipeline.brokerStatus)
    }

    /// A `health` report and its number: reports are made one at a time, so a larger number is a
    /// later report (queued after an earlier one, the earlier one is dropped as out of date).
    func makeHealthReport() -> (report: HealthReport, number: Int) {
        healthReports.update { count in
            count += 1
            return (health, count)
        }
    }

    func publishHealth(_ made: (report: HealthReport, number: Int)? = nil) async {
        let (report, number) = made ?? makeHealthReport()
        await pipeline.publishState(topics.topic(.health), json: report, snapshot: number)
    }

    /// `health` every `health_interval_s`, with `status` online again: Home Assistant's Agent
    /// sensor expires when neither comes through (``HomeAssistantDiscovery/agentSensor(_:)``).
    func publishHealthPeriodically() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(configuration.healthIntervalSeconds))
            if Task.isCancelled { break }
            await pipeline.publishState(topics.topic(.status), Array("online".utf8))
            await publishHealth()
            await pipeline.drain()  // also retries a replay that an earlier failure paused
        }
    }
}
