extension Agent {
    /// How long a stop waits for `status` `offline` and the backlog before it to go out.
    static let stopFlushLimit: Duration = .seconds(5)

    /// After ``run()``'s tasks ended: `status` offline, the pipeline flushed (bounded) and
    /// stopped, the presence store and SUN counters saved, the reader closed.
    func shutdown() async {
        await parts.jobs.stop()
        // `tag` stays as it was: a tag resting on the reader is still there, and `status` offline
        // makes Home Assistant's tag entities unavailable (never `off` first: a clean restart or an
        // upgrade runs no "cleared" automation). The next run's first poll finds the tags again as
        // `initial`, or reports their `removed`.
        let status = topics.topic(.status), offline = Array("offline".utf8)
        await pipeline.publishState(status, offline)
        // Bounded: a stalled broker must not hold up the exit (what is not out stays in the spool).
        await pipeline.flush(upTo: Self.stopFlushLimit)
        if !pipeline.isAcknowledged(state: status, offline) {
            // `offline` is not out (a backlog before it, a stalled broker): a plain DISCONNECT would
            // make the broker discard the will and leave `online` retained. The connection ends so
            // that the broker publishes the will instead, the same retained `offline` (docs/mqtt.md).
            if publisher.isConnected {
                logger.warning("the broker did not acknowledge status offline within \(Self.stopFlushLimit.components.seconds) s: "
                    + "ending the connection so that it publishes the will (offline)")
            }
            publisher.leaveWillOnDisconnect()
        }
        await pipeline.stop()
        await parts.presenceStore.flush()
        await parts.sunCounters.flush()
        await device.close()
        logger.info("stopped")
    }
}
