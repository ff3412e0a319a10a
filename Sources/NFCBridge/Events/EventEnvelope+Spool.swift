extension EventEnvelope {
    /// The event as the spool keeps it (for `topic`, queued at `queuedAt`, milliseconds since
    /// 1970): the copy a replay sends (`buffered: true`) as bytes, with its `seq`, `event_id` and
    /// kind as values, and this envelope for the copies that go out live or not durable.
    func spooled(topic: String, queuedAt: Int64) throws -> SpooledMessage {
        var replay = self
        replay.buffered = true
        let copies = SpooledMessage.Copies { [self] buffered, durable in
            var copy = self
            (copy.buffered, copy.durable) = (buffered, durable)
            return try? JSONWire.bytes(copy)
        }
        return SpooledMessage(
            topic: topic, seq: seq, eventID: eventID, kind: type, queuedAt: queuedAt, payload: try JSONWire.bytes(replay),
            copies: copies)
    }
}
