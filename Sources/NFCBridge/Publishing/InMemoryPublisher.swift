import Synchronization

/// A ``MessagePublisher`` that keeps everything in memory: the test double for the agent core
/// (as NIOEmbedded is for swift-nio). Tests flip the connection, inject incoming messages and await
/// published ones.
package final class InMemoryPublisher: MessagePublisher {
    private struct State {
        var connected: Bool
        var subscriptions: [String] = []
        var continuation: AsyncStream<PublisherEvent>.Continuation?
        var stream: AsyncStream<PublisherEvent>?
        /// Armed failures, each for the next publish whose topic ends with its suffix ("": any topic).
        var failures: [(error: PublisherError, topicSuffix: String)] = []
        /// Payloads larger than this are refused (`payload_too_large`), as by a broker's
        /// `max_packet_size` under MQTT 5.
        var maximumPayload = Int.max
    }

    private let state: Mutex<State>
    /// Everything published, in order: tests wait on it.
    private let log = Watched<[OutboundMessage]>([])

    /// Creates a publisher, connected or not. When connected, the first event is `.connected`.
    package init(connected: Bool = true) {
        let (stream, continuation) = AsyncStream.makeStream(of: PublisherEvent.self)
        if connected { continuation.yield(.connected) }
        state = Mutex(State(connected: connected, continuation: continuation, stream: stream))
    }

    package var isConnected: Bool { state.withLock { $0.connected } }

    /// Everything published so far, in order.
    package var published: [OutboundMessage] { log.value }

    /// The filters subscribed to.
    package var subscriptions: [String] { state.withLock { $0.subscriptions } }

    /// The messages published to `topic`, in order.
    package func published(to topic: String) -> [OutboundMessage] { published.filter { $0.topic == topic } }

    package func publish(_ message: OutboundMessage) async throws {
        // Checked and logged under one lock: a message published before a disconnect is in the log.
        let failure: PublisherError? = state.withLock { s in
            guard s.connected else { return .notConnected }
            if let index = s.failures.firstIndex(where: { message.topic.hasSuffix($0.topicSuffix) }) {
                return s.failures.remove(at: index).error
            }
            if message.payload.count > s.maximumPayload { return .refused(.payloadTooLarge(size: message.payload.count)) }
            log.update { $0.append(message) }
            return nil
        }
        if let failure { throw failure }
    }

    package func subscribe(to filter: String, qos: MessageQoS) async throws {
        state.withLock { $0.subscriptions.append(filter) }
    }

    package func events() -> AsyncStream<PublisherEvent> {
        state.withLock { s in
            let stream = s.stream ?? AsyncStream { $0.finish() }
            s.stream = nil
            return stream
        }
    }

    /// Connects or disconnects, and tells the agent.
    package func setConnected(_ connected: Bool) {
        let continuation = state.withLock { s -> AsyncStream<PublisherEvent>.Continuation? in
            guard s.connected != connected else { return nil }
            s.connected = connected
            return s.continuation
        }
        continuation?.yield(connected ? .connected : .disconnected)
    }

    /// Delivers an incoming message to the agent.
    package func deliver(_ message: InboundMessage) {
        _ = state.withLock { $0.continuation }?.yield(.message(message))
    }

    /// Makes the next publish fail with `error` (once per call) while staying connected; with
    /// `topicSuffix`, the next publish to a topic ending with it (another message published first,
    /// such as a periodic `health`, does not take the failure).
    package func failNextPublish(with error: PublisherError, topicSuffix: String = "") {
        state.withLock { $0.failures.append((error, topicSuffix)) }
    }

    /// Refuses every payload larger than `size` bytes with `payload_too_large` from now on.
    package func refusePayloads(over size: Int) {
        state.withLock { $0.maximumPayload = size }
    }

    /// Ends the event stream (the agent's connection watcher stops).
    package func finish() {
        state.withLock { $0.continuation }?.finish()
    }

    /// Waits until a message matching `predicate` is published after position `index` of
    /// ``published`` (-1: from the start, including messages already there); returns its position
    /// and the message.
    @discardableResult
    package func waitForMessage(
        after index: Int = -1, where predicate: @escaping @Sendable (OutboundMessage) -> Bool
    ) async -> (index: Int, message: OutboundMessage) {
        let start = max(0, index + 1)
        let list = await log.wait { list in start < list.count && list[start...].contains(where: predicate) }
        // Found (the wait returns early only when the test's task is cancelled: then the last message).
        let position = start < list.count ? list[start...].firstIndex(where: predicate) : nil
        guard let position else { return (max(0, list.count - 1), list.last ?? OutboundMessage(topic: "", payload: [])) }
        return (position, list[position])
    }
}
