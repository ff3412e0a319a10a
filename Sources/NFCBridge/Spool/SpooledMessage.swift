/// One event waiting in the spool for the broker: where it goes, what it is — its `seq`,
/// `event_id` and kind, as the journal gave them — and the copy a replay sends (`buffered: true`),
/// as the bytes published.
package struct SpooledMessage: Sendable {
    /// The event topic.
    package let topic: String
    /// The event's `seq`.
    package let seq: Int64
    /// The event's `event_id`.
    package let eventID: String
    /// The event's `type`.
    package let kind: EventKind
    /// When it entered the spool (milliseconds since 1970), for the spool's age in `health`.
    package let queuedAt: Int64
    /// The event as a replay sends it (`buffered: true`): compact JSON, as spooled.
    package let payload: [UInt8]
    /// How an event of this run is encoded with other flags; nil for one read from disk.
    let copies: Copies?

    /// The other copies of an event of this run (`buffered: false`, `durable: false`), encoded from
    /// its typed envelope when one goes out; the envelope is kept until the event leaves the spool.
    package struct Copies: Sendable {
        let encode: @Sendable (_ buffered: Bool, _ durable: Bool) -> [UInt8]?

        /// Copies encoded by `encode`.
        package init(_ encode: @escaping @Sendable (_ buffered: Bool, _ durable: Bool) -> [UInt8]?) {
            self.encode = encode
        }
    }

    /// Creates a message.
    package init(
        topic: String, seq: Int64, eventID: String, kind: EventKind, queuedAt: Int64, payload: [UInt8],
        copies: Copies? = nil
    ) {
        self.topic = topic
        self.seq = seq
        self.eventID = eventID
        self.kind = kind
        self.queuedAt = queuedAt
        self.payload = payload
        self.copies = copies
    }

    /// The copy to publish: ``payload`` when `buffered` and `durable`; otherwise the event with
    /// `buffered` set and, unless `durable`, `durable: false` — encoded from the envelope (an event
    /// of this run) or the codec's copy of ``payload`` with those members set (one read from disk:
    /// the bytes an earlier run sent, as they were). Nil when that encoding fails (not expected).
    func copy(buffered: Bool, durable: Bool) -> [UInt8]? {
        if buffered && durable { return payload }
        if let copies { return copies.encode(buffered, durable) }
        var flags = ["buffered": buffered]
        if !durable { flags["durable"] = false }
        return JSONWire.object(payload, setting: flags)
    }
}

extension SpooledMessage: Equatable {
    /// The same event, spooled with the same bytes (the envelope is not compared).
    package static func == (lhs: SpooledMessage, rhs: SpooledMessage) -> Bool {
        lhs.eventID == rhs.eventID && lhs.seq == rhs.seq && lhs.kind == rhs.kind && lhs.topic == rhs.topic
            && lhs.queuedAt == rhs.queuedAt && lhs.payload == rhs.payload
    }
}

extension SpooledMessage {
    /// Its spool line: `{"payload":{…},"queuedAt":…,"topic":"…"}` and a newline, the layout every
    /// version wrote (JSON text never holds a raw newline); the payload goes in as its bytes.
    var spoolLine: [UInt8] {
        JSONWire.object(splicing: [
            "payload": payload, "queuedAt": JSONWire.payload(queuedAt), "topic": JSONWire.payload(topic),
        ]) + [UInt8(ascii: "\n")]
    }

    /// The message of one spool line (without its newline): nil unless the line is a JSON object
    /// with a `topic`, a `queuedAt` and a `payload` object carrying `seq`, `event_id` and a known
    /// `type`. `seq` is the payload's, when it has one, even when the rest is unusable.
    static func read(line: ArraySlice<UInt8>) -> (message: SpooledMessage?, seq: Int64?) {
        guard case let .object(fields) = JSONFields.parse(Array(line)), let event = fields.fields("payload") else {
            return (nil, nil)
        }
        let seq = event.integer("seq")
        guard let seq, let eventID = event.string("event_id"),
            let kind = event.string("type").flatMap(EventKind.init(rawValue:)),
            let topic = fields.string("topic"), let queuedAt = fields.integer("queuedAt"),
            let payload = fields.encoded("payload")
        else { return (nil, seq) }
        return (SpooledMessage(topic: topic, seq: seq, eventID: eventID, kind: kind, queuedAt: queuedAt, payload: payload), seq)
    }
}
