import Synchronization

/// Listens to the spool's writer: the first failed write of an outage is logged, counted in
/// `health` and handed to `report` (the journal records it as one `event/error`
/// `spool_write_failed`); the first write that works again is logged. A disk that fails again
/// within `quietMilliseconds` of working (a full disk that takes the rewritten log, then refuses the
/// next event) is the same outage: counted and logged, not reported again. Each durable batch is
/// logged at debug (`spool: on disk up to seq N`).
enum SpoolWriteWatch {
    static func start(
        spool: EventSpool, quietMilliseconds: Int64, clock: any AgentClock, logger: AgentLogger,
        counters: Watched<EventPipeline.Counters>, report: @escaping @Sendable (StorageError) async -> Void
    ) {
        let episodes = Mutex(OutageEpisodes(quietMilliseconds: quietMilliseconds))
        spool.observeWrites { failure in
            let now = clock.monotonicMilliseconds
            guard let failure else {
                episodes.withLock { $0.recovered(at: now) }
                logger.notice("spool: the state directory takes writes again; the waiting events are on disk")
                return
            }
            counters.update { $0.spoolWriteFailures += 1 }
            guard episodes.withLock({ $0.failed(at: now) }) else {
                logger.warning("spool: \(failure.message) again (the same outage: no new event/error)")
                return
            }
            logger.error("spool: \(failure.message); events are kept in memory and still published until the disk takes writes again")
            Task { await report(failure) }
        }
        spool.observeDurability { seq in logger.debug("spool: on disk up to seq \(seq)") }
    }
}
