import NFCCore
import Synchronization

/// Sends the Home Assistant discovery documents (``HomeAssistantDiscovery``) with the device's
/// `hw_version` from the reader as last opened: once per broker connection, again when the reader
/// becomes known or changes, and always when Home Assistant asks (its birth message).
///
/// Each send is a claim, taken in order; claims go out one after the other, never interleaved
/// topic by topic (the connect's claim, made before the reader was known, and the reader's first
/// open used to cross, so the older document could be the one retained last). A claim overtaken
/// by a newer one stops: the newer one sends every document after it.
final class DiscoveryPublisher: Sendable {
    /// What the documents describe: the reader as last opened and the broker connections so far
    /// (0 before the first connect is handled).
    struct Subject: Sendable, Equatable {
        var reader: ReaderInfo?
        var connection: Int
    }

    /// One full set of documents to send, its place in claim order and the reader it describes.
    struct Claim: Sendable, Equatable {
        var number: Int
        var reader: ReaderInfo?
    }

    private struct Claims {
        /// What the documents describe now.
        var subject = Subject(reader: nil, connection: 0)
        /// What the last claim described (nil: no claim yet).
        var described: Subject?
        var count = 0
    }

    /// The documents.
    let documents: HomeAssistantDiscovery
    private let send: @Sendable (OutboundMessage) async -> Void
    private let claims = Mutex(Claims())
    /// The claim whose turn it is.
    private let turn = Watched(0)
    /// Bumped when the reader became known or changed.
    private let readerChanges = Watched(0)

    /// A publisher of `documents`, sending each message with `send`.
    init(documents: HomeAssistantDiscovery, send: @escaping @Sendable (OutboundMessage) async -> Void) {
        self.documents = documents
        self.send = send
    }

    /// What the documents describe now.
    var subject: Subject { claims.withLock { $0.subject } }

    /// Tells the publisher about broker connection number `connection` (1 for the first): the
    /// next ``publish(force:)`` sends the documents on it.
    func connected(_ connection: Int) {
        claims.withLock { $0.subject.connection = connection }
    }

    /// Tells the publisher that the reader became known or changed: ``runRepublishing()`` sends
    /// the documents again with its `hw_version` (from its own task: thirteen acknowledged
    /// publishes must not hold up the reader loop).
    func readerChanged(to reader: ReaderInfo?) {
        claims.withLock { $0.subject.reader = reader }
        readerChanges.update { $0 += 1 }
    }

    /// Sends the documents when this connection has not carried them for this reader yet, or
    /// always when `force`; returns once they are out (or the claim was overtaken).
    func publish(force: Bool) async {
        guard let claim = claim(force: force) else { return }
        await send(claim)
    }

    /// Takes the next claim, or nil when nothing is to be sent: before the first connect is handled
    /// (its own claim sends them: the reader's first open can come between the client's CONNACK
    /// and the agent's `.connected`), or when the last claim described the same reader on the same
    /// connection — unless `force`.
    func claim(force: Bool) -> Claim? {
        claims.withLock { claims -> Claim? in
            let now = claims.subject
            if !force, now.connection == 0 || claims.described == now { return nil }
            claims.described = now
            claims.count += 1
            return Claim(number: claims.count - 1, reader: now.reader)
        }
    }

    /// Sends `claim`'s documents once its turn comes, stopping early when a newer claim exists.
    func send(_ claim: Claim) async {
        await turn.wait(until: { $0 >= claim.number })
        defer { turn.update { $0 = max($0, claim.number + 1) } }
        for message in documents.messages(reader: claim.reader) {
            let overtaken = claims.withLock { $0.count > claim.number + 1 }
            if overtaken || Task.isCancelled { return }
            await send(message)
        }
    }

    /// Sends the documents after each ``readerChanged(to:)``, until the task is cancelled.
    func runRepublishing() async {
        var handled = 0
        while !Task.isCancelled {
            handled = await readerChanges.wait(until: { [handled] in $0 > handled })
            if Task.isCancelled { break }
            await publish(force: false)
        }
    }
}
