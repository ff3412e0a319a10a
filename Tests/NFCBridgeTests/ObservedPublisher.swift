import TestSupport

@testable import NFCBridge

/// Wraps a real publisher and records the connection events the agent gets, so a test can await
/// "the agent saw the broker go away".
final class ObservedPublisher: MessagePublisher {
    let base: any MessagePublisher
    let (stream, continuation) = AsyncStream.makeStream(of: PublisherEvent.self)
    let seen: RecordingStream<PublisherEvent>

    init(_ base: any MessagePublisher) {
        self.base = base
        let (observed, observer) = AsyncStream.makeStream(of: PublisherEvent.self)
        seen = RecordingStream(observed)
        let forwarded = continuation
        let events = base.events()
        Task {
            for await event in events {
                observer.yield(event)
                forwarded.yield(event)
            }
            observer.finish()
            forwarded.finish()
        }
    }

    var isConnected: Bool { base.isConnected }
    func publish(_ message: OutboundMessage) async throws { try await base.publish(message) }
    func subscribe(to filter: String, qos: MessageQoS) async throws { try await base.subscribe(to: filter, qos: qos) }
    func events() -> AsyncStream<PublisherEvent> { stream }
}
