import FoundationEssentials
import Glibc
import NFCCore

/// The MQTT request/response layer: requests on `<base>/<id>/request/<command>` are validated
/// (``CommandParser``), answered at once when refused, otherwise queued and run one at a time —
/// find the tag (the one in the field or the next to arrive, publishing `waiting` meanwhile), act
/// through the ``CommandExecuting`` executor with the reader borrowed from ``TagAccess``, and
/// answer `ok` or `error` on `<base>/<id>/response/<command>` or on the MQTT 5 Response Topic with
/// the Correlation Data echoed.
///
/// Promises (docs/mqtt.md, "Commands"):
/// - retained requests are ignored (a stale retained command never acts); under MQTT 5 the agent
///   subscribes with Retain As Published, so this holds also for one published while it is connected;
/// - with a signature key (``RequestSignatureVerifier``), `lock` — or every command, with
///   `commands.require_signature` — must come signed; an unsigned, badly signed, stale or replayed
///   request is answered `not_permitted` and logged;
/// - an `id` acts at most once: a repeat while it is pending gets `duplicate`, a repeat after it
///   finished gets the first result again, marked `"replayed": true` (``CommandResultCache``, for
///   `commands.idempotency_window_s`);
/// - `ttl_s` / `expires_at` that pass before the command acts end it with `expired`, nothing done;
/// - one command acts at a time, the others wait in arrival order; a full queue answers `busy`;
/// - `cancel` ends a queued or waiting request with `canceled` (not one already acting on the tag);
/// - every lock outcome is logged and handed to ``LockAuditHandler`` (the agent publishes it as an event).
///
/// Run ``run()`` in a task for the worker and feed it with ``receive(_:)``; cancelling the task
/// answers every pending request with `canceled`.
public actor CommandRouter {
    /// Called with the outcome of every `lock` that was accepted (the agent publishes an event).
    public typealias LockAuditHandler = @Sendable (LockAudit) async -> Void

    /// What happened to a lock request, for the audit trail: the body of `event/lock` — the final
    /// response's fields (without `transaction`) plus `uid` and `command`.
    public struct LockAudit: Sendable, Equatable, Encodable {
        /// The request's id.
        public var id: JSONValue
        /// The UID the request named.
        public var uid: [UInt8]
        /// The final response.
        public var response: CommandResponse

        enum CodingKeys: String, CodingKey { case uid, command }

        public func encode(to encoder: any Encoder) throws {
            var response = self.response
            response.transaction = nil
            try response.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(uid.hexString, forKey: .uid)
            try container.encode(CommandName.lock, forKey: .command)
        }

        /// The audit record as event fields: `id`, `uid`, `status`, `data`, `error`, `command`.
        public var fields: [String: JSONValue] { (try? JSONValueEncoder().encode(self))?.objectValue ?? [:] }
    }

    /// `data` of a `cancel` that worked.
    struct CancelResult: Encodable {
        /// Where the canceled request was.
        enum State: String, Encodable { case queued, waiting }
        var canceled = true
        var state: State
    }

    /// `data` of a `waiting` response.
    struct WaitingData: Encodable {
        var waitForTagSeconds: Double
        enum CodingKeys: String, CodingKey { case waitForTagSeconds = "wait_for_tag_s" }
    }

    /// Where and how a request is answered.
    struct Route: Sendable {
        var topic: String
        var correlationData: [UInt8]?
    }

    struct Pending: Sendable {
        var request: CommandRequest
        var route: Route
    }

    enum Phase: Sendable {
        case starting, waiting, acting
    }

    struct Running {
        var pending: Pending
        var phase: Phase
        var canceled = false
        var waitTask: Task<WaitOutcome, Never>?
    }

    enum WaitOutcome: Sendable {
        case tag(PresentTag)
        case deadline
        case canceled
        case failed(CommandError)
    }

    /// The topics.
    public nonisolated let topics: TopicMap
    /// The limits and permissions.
    public nonisolated let policy: CommandPolicy
    let access: any TagAccess
    let executor: any CommandExecuting
    let publisher: any MessagePublisher
    let clock: any CommandClock
    let cache: CommandResultCache
    let signatures: RequestSignatureVerifier?
    let logger: AgentLogger
    let audit: LockAuditHandler?

    private var queue: [Pending] = []
    private var running: Running?
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation

    /// Creates the router. `cache` defaults to an in-memory one of `policy.resultCacheCapacity` and
    /// `policy.idempotencyWindowSeconds` on `clock`. `signatures` checks signed requests (nil: no
    /// signature key configured, signed envelopes are refused as unknown fields).
    public init(
        topics: TopicMap, policy: CommandPolicy, access: any TagAccess, executor: any CommandExecuting,
        publisher: any MessagePublisher, clock: any CommandClock, cache: CommandResultCache? = nil,
        signatures: RequestSignatureVerifier? = nil, logger: AgentLogger, audit: LockAuditHandler? = nil
    ) {
        self.topics = topics
        self.policy = policy
        self.access = access
        self.executor = executor
        self.publisher = publisher
        self.clock = clock
        self.cache =
            cache
            ?? CommandResultCache(
                capacity: policy.resultCacheCapacity, windowSeconds: policy.idempotencyWindowSeconds, now: { clock.now })
        self.signatures = signatures
        self.logger = logger
        self.audit = audit
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Requests waiting behind the running one (tests, health).
    public var queueDepth: Int { queue.count }

    // MARK: - Intake

    /// Takes one message from the request topics: ignores it when retained or not a request topic,
    /// answers at once when it is refused or a cancel, otherwise queues it. Returns without waiting
    /// for the command to run.
    public func receive(_ message: InboundMessage) async {
        guard let name = topics.command(inRequestTopic: message.topic) else { return }
        if message.retained {
            // A retained request is stale by definition: whoever sent it is not waiting for this run.
            logger.warning("ignoring the retained request on \(message.topic): commands are never taken from retained messages")
            return
        }
        let route = route(for: message, command: name)
        var payload = message.payload
        // An envelope escapes its request, so it may be up to twice the limit; anything larger is
        // not parsed here but refused by the parser below (over the size limit), before it can act.
        if let signatures, payload.count <= 2 * policy.maximumPayloadBytes {
            switch signatures.check(topic: message.topic, payload: payload, now: clock.now) {
            case let .verified(body):
                payload = body
            case let .rejected(rejection):
                logger.warning("request \(name) \(rejection.id?.jsonString ?? "(no id)") refused: \(rejection.error)")
                await send(.failure(id: rejection.id, transaction: rejection.transaction, rejection.error), to: route)
                return
            case .unsigned where policy.requiresSignature(name, hasKey: true):
                let echo: (id: JSONValue?, transaction: JSONValue?) =
                    (try? JSONValue(parsing: Data(payload)))?.objectValue.map(CommandParser.echo) ?? (nil, nil)
                let scope = policy.requireSignature ? "this agent takes signed requests only (commands.require_signature)"
                    : "lock needs a signed request when commands.signature_key_file is set"
                let error = CommandError(.notPermitted, "unsigned request refused: \(scope); see docs/mqtt.md, \"Signed requests\"")
                logger.warning("request \(name) \(echo.id?.jsonString ?? "(no id)") refused: \(error)")
                await send(.failure(id: echo.id, transaction: echo.transaction, error), to: route)
                return
            case .unsigned:
                break
            }
        }
        let parsed = CommandParser.parse(
            command: name, payload: payload, policy: policy, now: clock.now,
            monotonic: clock.monotonicMilliseconds)
        let request: CommandRequest
        switch parsed {
        case let .failure(rejection):
            logger.warning("request \(name) \(rejection.id?.jsonString ?? "(no id)") refused: \(rejection.error)")
            await send(.failure(id: rejection.id, transaction: rejection.transaction, rejection.error), to: route)
            return
        case let .success(parsedRequest):
            request = parsedRequest
        }
        if request.command == .cancel {
            await cancel(request, route: route)
            return
        }
        if let first = cache.response(for: request.key) {
            logger.info("request \(request.command.rawValue) \(request.id.jsonString) repeated: answering with its first result")
            var replay = first
            replay.transaction = request.transaction
            replay.replayed = true
            await send(replay, to: route)
            return
        }
        // Checked after the cache: the final result is stored before it is published, and the request
        // still counts as running while that publish is awaited — a client repeating the id as soon as
        // it sees the result must get the result again, not `duplicate`.
        if isPending(request.key) {
            let error = CommandError(.duplicate, "a request with id \(request.id.jsonString) is already pending: it answers on its own")
            await send(.failure(id: request.id, transaction: request.transaction, error), to: route)
            return
        }
        let busy = running != nil || !queue.isEmpty
        guard !busy || queue.count < policy.queueCapacity else {
            let error = CommandError(.busy, "\(queue.count) requests are already queued: try again later")
            await send(.failure(id: request.id, transaction: request.transaction, error), to: route)
            return
        }
        logger.info("request \(request.command.rawValue) \(request.id.jsonString) queued\(busy ? " behind \(queue.count + 1) other(s)" : "")")
        queue.append(Pending(request: request, route: route))
        ring.yield()
    }

    /// The v5 Response Topic when the request has a usable one, else `<base>/<id>/response/<command>`.
    private func route(for message: InboundMessage, command: String) -> Route {
        if let topic = message.responseTopic, !topic.isEmpty, !topic.contains("+"), !topic.contains("#"),
            !topic.contains("\0")
        {
            return Route(topic: topic, correlationData: message.correlationData)
        }
        return Route(topic: topics.response(command), correlationData: message.correlationData)
    }

    private func isPending(_ key: String) -> Bool {
        running?.pending.request.key == key || queue.contains { $0.request.key == key }
    }

    // MARK: - Cancel

    private func cancel(_ request: CommandRequest, route: Route) async {
        let key = request.key
        let target = request.id.jsonString
        if let index = queue.firstIndex(where: { $0.request.key == key }) {
            let pending = queue.remove(at: index)
            logger.info("request \(target) canceled while queued")
            await finish(pending, .failure(id: pending.request.id, transaction: pending.request.transaction, Self.canceled))
            await send(.ok(id: request.id, transaction: request.transaction, data: JSONValueEncoder.members(of: CancelResult(state: .queued))), to: route)
            return
        }
        if var current = running, current.pending.request.key == key {
            guard current.phase != .acting else {
                let error = CommandError(.busy, "request \(target) is already acting on the tag and cannot be canceled")
                await send(.failure(id: request.id, transaction: request.transaction, error), to: route)
                return
            }
            current.canceled = true
            current.waitTask?.cancel()
            running = current
            logger.info("request \(target) canceled while waiting for a tag")
            await send(.ok(id: request.id, transaction: request.transaction, data: JSONValueEncoder.members(of: CancelResult(state: .waiting))), to: route)
            return
        }
        let detail = cache.response(for: key).map { "it already finished with status \($0.status.rawValue)" } ?? "no such request"
        let error = CommandError.invalid("id", "no queued or waiting request has id \(target): \(detail)")
        await send(.failure(id: request.id, transaction: request.transaction, error), to: route)
    }

    static let canceled = CommandError(.canceled, "canceled by request/cancel: nothing was done")

    // MARK: - Worker

    /// Runs queued requests one at a time until the task is cancelled; then answers every pending
    /// request with `canceled`.
    public func run() async {
        for await _ in doorbell {
            while !Task.isCancelled, !queue.isEmpty {
                let next = queue.removeFirst()
                await execute(next)
            }
            if Task.isCancelled { break }
        }
        let left = queue
        queue = []
        for pending in left {
            await finish(pending, .failure(id: pending.request.id, transaction: pending.request.transaction, Self.stopping))
        }
    }

    private func execute(_ pending: Pending) async {
        running = Running(pending: pending, phase: .starting)
        defer { running = nil }
        let response = await respond(to: pending)
        // Done before its answer goes out: a `cancel` arriving while the answer is being sent
        // (this actor suspends there) finds it finished, not still acting on the tag (`busy`).
        running = nil
        await finish(pending, response)
    }

    /// Everything from "its turn came" to the final response.
    private func respond(to pending: Pending) async -> CommandResponse {
        let request = pending.request
        func failure(_ error: CommandError) -> CommandResponse {
            .failure(id: request.id, transaction: request.transaction, error)
        }
        if let expiry = request.expiresAtMonotonic, clock.monotonicMilliseconds >= expiry {
            return failure(CommandError(.expired, "the request expired while queued: nothing was done"))
        }
        var tag: PresentTag?
        do {
            tag = try await access.presentTag()
        } catch {
            if request.waitForTagMilliseconds == 0 { return failure(Self.readerError(error)) }
            logger.warning("cannot look for a tag now: \(error); waiting for one")
        }
        if running?.canceled == true || Task.isCancelled { return failure(Self.canceledError) }
        if tag == nil {
            guard request.waitForTagMilliseconds > 0 else {
                return failure(CommandError(.noTag, "no tag in the field (wait_for_tag_s is 0)"))
            }
            switch await waitForTag(request, route: pending.route) {
            case let .tag(found): tag = found
            case .canceled: return failure(Self.canceledError)
            case let .failed(error): return failure(error)
            case .deadline:
                if let expiry = request.expiresAtMonotonic, clock.monotonicMilliseconds >= expiry {
                    return failure(CommandError(.expired, "the request expired while waiting for a tag: nothing was done"))
                }
                let seconds = Double(request.waitForTagMilliseconds) / 1000
                return failure(CommandError(.timeout, "no tag came within wait_for_tag_s (\(seconds) s)"))
            }
        }
        guard let tag else { return failure(CommandError(.noTag, "no tag in the field")) }
        if let expected = request.uid, expected != tag.uid {
            return failure(
                CommandError(
                    .tagMismatch,
                    "the tag in the field (UID \(tag.uid.hexString)) is not the one the request names (UID \(expected.hexString)): nothing was done"))
        }
        running?.phase = .acting
        logger.info("request \(request.command.rawValue) \(request.id.jsonString) acting on tag \(tag.uid.hexString)")
        let executor = self.executor
        let action = request.action
        do {
            let data = try await access.withExclusiveAccess(to: tag) { transport in
                try await executor.execute(action, on: transport)
            }
            return .ok(id: request.id, transaction: request.transaction, data: data)
        } catch let error as CommandError {
            return failure(error)
        } catch {
            return failure(Self.readerError(error, reading: request.command == .dump))
        }
    }

    /// Canceled by `request/cancel`, or by the agent stopping.
    private static var canceledError: CommandError { Task.isCancelled ? stopping : canceled }

    static let stopping = CommandError(.canceled, "the agent is stopping: nothing was done")

    /// Publishes `waiting`, then waits for a tag, the deadline (`wait_for_tag_s` or the expiry,
    /// whichever comes first) or a cancel.
    private func waitForTag(_ request: CommandRequest, route: Route) async -> WaitOutcome {
        let waitEnd = clock.monotonicMilliseconds + request.waitForTagMilliseconds
        let deadline = request.expiresAtMonotonic.map { min(waitEnd, $0) } ?? waitEnd
        running?.phase = .waiting
        await send(
            .waiting(
                id: request.id, transaction: request.transaction,
                data: JSONValueEncoder.members(of: WaitingData(waitForTagSeconds: Double(request.waitForTagMilliseconds) / 1000))), to: route)
        if running?.canceled == true { return .canceled }
        let access = self.access
        let clock = self.clock
        let task = Task<WaitOutcome, Never> {
            await withTaskGroup(of: WaitOutcome.self) { group in
                group.addTask {
                    do {
                        return .tag(try await access.nextTag())
                    } catch {
                        if Task.isCancelled || error is CancellationError { return .canceled }
                        return .failed(Self.readerError(error))
                    }
                }
                group.addTask {
                    do {
                        try await clock.sleep(untilMonotonic: deadline)
                        return .deadline
                    } catch {
                        return .canceled
                    }
                }
                let first = await group.next() ?? .canceled
                group.cancelAll()
                return first
            }
        }
        running?.waitTask = task
        let outcome = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        running?.waitTask = nil
        // A cancel that raced with an arriving tag still wins: nothing has been done yet.
        if running?.canceled == true || Task.isCancelled { return .canceled }
        return outcome
    }

    /// Any error from the reader or an executor that did not map it: its NFC code when it has one.
    static func readerError(_ error: any Error, reading: Bool = true) -> CommandError {
        if let error = error as? CommandError { return error }
        if let error = error as? NFCError { return CommandError(error, reading: reading) }
        if error.isNFCCancellation { return canceled }
        return CommandError(reading ? .readFailed : .writeFailed, "\(error)")
    }

    // MARK: - Answers

    /// Sends the final response, remembers it for repeats, and audits locks.
    private func finish(_ pending: Pending, _ response: CommandResponse) async {
        let request = pending.request
        cache.store(response, for: request.key)
        if let error = response.error {
            logger.warning("request \(request.command.rawValue) \(request.id.jsonString) failed: \(error)")
        } else {
            logger.info("request \(request.command.rawValue) \(request.id.jsonString) done")
        }
        await send(response, to: pending.route)
        if case let .lock(uid, _) = request.action {
            let outcome = response.error.map { "refused (\($0))" } ?? "LOCKED permanently"
            logger.notice("lock request \(request.id.jsonString) for tag \(uid.hexString): \(outcome)")
            await audit?(LockAudit(id: request.id, uid: uid, response: response))
        }
    }

    private func send(_ response: CommandResponse, to route: Route) async {
        let message = OutboundMessage(
            topic: route.topic, payload: response.json.jsonBytes, qos: .atLeastOnce, retain: false,
            correlationData: route.correlationData)
        do {
            try await publisher.publish(message)
        } catch {
            // Not spooled: a final result stays in the cache, so the client gets it by repeating its id.
            logger.warning("cannot publish the response on \(route.topic): \(error)")
        }
    }
}
