/// The requests the router holds: the one running and, behind it in arrival order, at most
/// `capacity` queued ones. An id is held once: a repeat while it is pending is a duplicate.
struct RequestIntake {
    /// A request and where its answers go.
    struct Pending: Sendable {
        var request: CommandRequest
        var route: CommandResponder.Route
    }

    /// How far the running request got.
    enum Phase: Sendable {
        case starting, waiting, acting
    }

    /// The request being run.
    struct Running {
        var pending: Pending
        var phase: Phase
        /// A `cancel` came for it before it acted.
        var canceled = false
        /// Its wait for a tag, while it waits.
        var wait: TagWait?
    }

    /// What ``admit(_:)`` did with a request.
    enum Admission: Equatable {
        /// Queued; `behind` is how many requests came before it (nil: none, it runs next).
        case queued(behind: Int?)
        /// A request with the same id is running or queued.
        case duplicate
        /// The queue is full (`queued` requests).
        case busy(queued: Int)
    }

    /// How many requests may wait behind the running one.
    let capacity: Int
    /// The requests waiting, in arrival order.
    private(set) var queue: [Pending] = []
    /// The request being run, if one is.
    var running: Running?

    /// An empty intake holding at most `capacity` queued requests.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Requests waiting behind the running one.
    var queueDepth: Int { queue.count }

    /// Keys of the requests being answered: `job` and `feedback` (answered at once, never queued),
    /// and a finished request while its result is stored and sent.
    var answering: Set<String> = []

    /// Whether a request with this key is running, queued or being answered.
    func isPending(_ key: String) -> Bool {
        running?.pending.request.key == key || queue.contains { $0.request.key == key } || answering.contains(key)
    }

    /// Queues `pending` unless its id is pending already or the queue is full.
    mutating func admit(_ pending: Pending) -> Admission {
        if isPending(pending.request.key) { return .duplicate }
        let busy = running != nil || !queue.isEmpty
        guard !busy || queue.count < capacity else { return .busy(queued: queue.count) }
        let behind = busy ? queue.count + 1 : nil
        queue.append(pending)
        return .queued(behind: behind)
    }

    /// Takes the next queued request, in arrival order.
    mutating func next() -> Pending? {
        queue.isEmpty ? nil : queue.removeFirst()
    }

    /// Takes the queued request with this key out of the queue.
    mutating func removeQueued(key: String) -> Pending? {
        queue.firstIndex { $0.request.key == key }.map { queue.remove(at: $0) }
    }

    /// Takes every queued request out of the queue.
    mutating func removeAll() -> [Pending] {
        defer { queue = [] }
        return queue
    }
}
