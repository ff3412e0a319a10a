import FoundationEssentials
import Glibc
import Synchronization

/// Where every outgoing message passes: events get their envelope (`event_id`, `seq`, `ts`,
/// `reader`, `type`, `buffered`), go out live when the broker is reachable and nothing older waits,
/// and otherwise land in the durable ``EventSpool`` to be replayed in order with `buffered: true`.
/// Retained state goes out directly (it is re-published on every connect, so it never needs the spool).
///
/// Everything runs through one ``SerialQueue``: a `removed` can never overtake its `scanned`, and a
/// replay never interleaves with a live event.
public final class EventPipeline: Sendable {
    /// Counters for `health`.
    public struct Counters: Sendable, Equatable {
        /// Events published live.
        public var publishedLive = 0
        /// Events that went to the spool.
        public var spooled = 0
        /// Spooled events delivered later.
        public var replayed = 0
        /// Events lost: the spool was full (oldest dropped) or could not be written.
        public var dropped = 0
    }

    private let topics: TopicMap
    private let publisher: any MessagePublisher
    private let spool: EventSpool
    private let sequence: SequenceStore
    private let clock: any AgentClock
    private let logger: AgentLogger
    private let makeEventID: @Sendable (Date) -> String
    private let queue = SerialQueue()
    private let counters = Watched(Counters())

    /// Creates the pipeline. `eventIDs` makes the `event_id` of an event created at a date
    /// (default: a fresh ULID; tests pin it).
    public init(
        topics: TopicMap, publisher: any MessagePublisher, spool: EventSpool, sequence: SequenceStore,
        clock: any AgentClock, logger: AgentLogger, eventIDs: (@Sendable (Date) -> String)? = nil
    ) {
        self.makeEventID = eventIDs ?? { EventID.make(at: $0) }
        self.topics = topics
        self.publisher = publisher
        self.spool = spool
        self.sequence = sequence
        self.clock = clock
        self.logger = logger
    }

    /// The counters so far.
    public var statistics: Counters { counters.value }

    /// Returns once the counters satisfy `predicate` (e.g. "two events spooled").
    public func waitUntil(_ predicate: @escaping @Sendable (Counters) -> Bool) async {
        await counters.wait(until: predicate)
    }

    private func count(_ change: (inout Counters) -> Void) {
        counters.update(change)
    }

    /// Wraps `body` in the envelope of an event of `kind`, then publishes or spools it.
    /// `date` is the event's `ts` (default: now) — pass the time the retained state that goes with
    /// it carries, so `tag.since` and the `scanned` event's `ts` agree. Returns the payload as
    /// built (with `buffered: false`).
    @discardableResult
    public func emit(_ kind: EventKind, _ body: some Encodable & Sendable, at date: Date? = nil) async -> JSONValue {
        let date = date ?? clock.now
        let seq: Int64
        do {
            seq = try sequence.next()
        } catch {
            // Keep counting in memory: a full disk must not stop events.
            logger.error("cannot persist the event sequence: \(error.message)")
            seq = sequence.current + 1
        }
        var envelope = EventEnvelope(
            body: body, eventID: makeEventID(date), seq: seq, date: date, reader: topics.id, type: kind, buffered: false)
        let encoder = JSONValueEncoder()
        let live: JSONValue
        let buffered: JSONValue
        do {
            live = try encoder.encode(envelope)
            envelope.buffered = true
            buffered = try encoder.encode(envelope)
        } catch {
            // The payload models encode strings, numbers and JSON values only: not expected.
            logger.error("event \(kind.rawValue) could not be encoded: \(error)")
            return .null
        }
        let topic = topics.topic(kind)
        let queuedAt = Timestamp.milliseconds(date)
        await queue.run { [self] in
            if spool.isEmpty, publisher.isConnected {
                do {
                    try await publisher.publish(OutboundMessage(topic: topic, payload: live.jsonBytes))
                    count { $0.publishedLive += 1 }
                    return
                } catch {
                    logger.warning("publish to \(topic) failed (\(error)); spooling the event")
                }
            }
            store(SpooledMessage(topic: topic, payload: buffered, queuedAt: queuedAt))
            await drainInQueue()
        }
        return live
    }

    /// Publishes a retained state message (QoS 1) when connected; silently skipped otherwise —
    /// state is re-published on every connect.
    public func publishState(_ topic: String, _ payload: [UInt8], retain: Bool = true) async {
        await queue.run { [self] in
            guard publisher.isConnected else { return }
            do {
                try await publisher.publish(OutboundMessage(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain))
            } catch {
                logger.warning("publish to \(topic) failed: \(error)")
            }
        }
    }

    /// Publishes a retained JSON state message (a payload model).
    public func publishState(_ topic: String, json payload: some Encodable & Sendable) async {
        do {
            await publishState(topic, try JSONValueEncoder().encode(payload).jsonBytes)
        } catch {
            logger.error("state \(topic) could not be encoded: \(error)")
        }
    }

    /// Replays the spool, oldest first, while the broker takes it. Call after (re)connecting.
    public func drain() async {
        await queue.run { [self] in await drainInQueue() }
    }

    /// Waits until everything submitted so far has been handled.
    public func flush() async {
        await queue.run {}
    }

    private func store(_ message: SpooledMessage) {
        do {
            let dropped = try spool.append(message)
            count {
                $0.spooled += 1
                $0.dropped += dropped
            }
            if dropped > 0 { logger.warning("spool full: dropped the \(dropped) oldest buffered event(s)") }
        } catch {
            count { $0.dropped += 1 }
            logger.error("event to \(message.topic) lost: \(error.message)")
        }
    }

    private func drainInQueue() async {
        while publisher.isConnected, let message = spool.peek() {
            do {
                try await publisher.publish(OutboundMessage(topic: message.topic, payload: message.payload.jsonBytes))
            } catch {
                logger.debug("replay paused: \(error)")
                return
            }
            do {
                try spool.removeFirst()
            } catch {
                logger.error("spool: \(error.message)")
            }
            count { $0.replayed += 1 }
        }
    }
}
