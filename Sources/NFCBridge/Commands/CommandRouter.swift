import FoundationEssentials
import Glibc
import NFCCore

/// The MQTT request/response layer: requests on `<base>/<id>/request/<command>` are validated
/// (``CommandParser``), answered at once when refused, otherwise queued and run one at a time —
/// find the tag (of those in the field the one it names or the only one, ``TagChoice``; or the next
/// to arrive, publishing `waiting` meanwhile), act through the ``CommandExecuting`` executor with the reader borrowed from ``TagAccess``, and
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
/// Run ``run()`` in a task for the worker and feed it with ``receive(_:command:)``; cancelling the
/// task answers every pending request with `canceled`. The parts: ``RequestIntake`` (what is held),
/// ``TagWait`` (waiting for a tag), ``CommandResponder`` (answering).
package actor CommandRouter {
    /// The topics.
    package nonisolated let topics: TopicMap
    /// The limits and permissions.
    package nonisolated let policy: CommandPolicy
    let access: any TagAccess
    let executor: any CommandExecuting
    let clock: any AgentClock
    let cache: CommandResultCache
    let signatures: RequestSignatureVerifier?
    let logger: AgentLogger
    let responder: CommandResponder
    /// The encode job runner (`request/job`); nil: no jobs.
    let jobs: (any JobHandling)?
    /// Shows a `request/feedback` signal (the agent's ``FeedbackDriver``); nil: the command is `unsupported`.
    let feedbackHandler: (@Sendable (IndicatorSignal) async -> FeedbackOutcome)?

    /// False while the response queue is nearly full (``EventPipeline/acceptsRequests``): a new
    /// request is refused with `busy` rather than let an answer be dropped later.
    let acceptsRequests: @Sendable () -> Bool

    /// The running request and the queue behind it.
    var intake: RequestIntake
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation

    /// Creates the router. `cache` defaults to an in-memory one of `policy.resultCacheCapacity` and
    /// `policy.idempotencyWindowSeconds` on `clock`. `signatures` checks signed requests (nil: no
    /// signature key configured, signed envelopes are refused as unknown fields).
    package init(
        topics: TopicMap, policy: CommandPolicy, access: any TagAccess, executor: any CommandExecuting,
        publisher: any MessagePublisher, clock: any AgentClock, cache: CommandResultCache? = nil,
        signatures: RequestSignatureVerifier? = nil, logger: AgentLogger, audit: LockAuditHandler? = nil,
        acceptsRequests: @escaping @Sendable () -> Bool = { true }, jobs: (any JobHandling)? = nil,
        feedback: (@Sendable (IndicatorSignal) async -> FeedbackOutcome)? = nil
    ) {
        self.jobs = jobs
        self.acceptsRequests = acceptsRequests
        self.feedbackHandler = feedback
        self.topics = topics
        self.policy = policy
        self.access = access
        self.executor = executor
        self.clock = clock
        let cache =
            cache
            ?? CommandResultCache(
                capacity: policy.resultCacheCapacity, windowSeconds: policy.idempotencyWindowSeconds, now: { clock.now })
        self.cache = cache
        self.signatures = signatures
        self.logger = logger
        responder = CommandResponder(topics: topics, publisher: publisher, cache: cache, logger: logger, audit: audit)
        intake = RequestIntake(capacity: policy.queueCapacity)
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Requests waiting behind the running one (tests, health).
    package var queueDepth: Int { intake.queueDepth }

    // MARK: - Intake

    /// Takes one message from the request topic of `command` (the `<command>` the caller read from
    /// the topic, once: ``TopicMap/command(inRequestTopic:)``): ignores it when retained, answers
    /// at once when it is refused or a cancel, otherwise queues it. Returns without waiting for the
    /// command to run.
    package func receive(_ message: InboundMessage, command name: String) async {
        if message.retained {
            // A retained request is stale by definition: whoever sent it is not waiting for this run.
            logger.warning("ignoring the retained request on \(message.topic): commands are never taken from retained messages")
            return
        }
        let route = responder.route(for: message, command: name)
        guard let (payload, signed) = await verifiedPayload(of: message, command: name, route: route) else { return }
        let parsed = CommandParser.parse(
            command: name, payload, policy: policy, now: clock.now, monotonic: clock.monotonicMilliseconds)
        let request: CommandRequest
        switch parsed {
        case let .failure(rejection):
            await refuse(name, id: rejection.id, transaction: rejection.transaction, rejection.error, route: route)
            return
        case let .success(parsedRequest):
            request = parsedRequest
        }
        if request.command == .cancel {
            await cancel(request, route: route)
            return
        }
        // Every other command — jobs and feedback too — acts at most once per id (rule 6).
        if let first = cache.response(for: request.key) {
            logger.info("request \(request.command.rawValue) \(request.id.jsonText) repeated: answering with its first result")
            var replay = first
            replay.transaction = request.transaction
            replay.replayed = true
            await responder.send(replay, to: route)
            return
        }
        if await answeredAtOnce(RequestIntake.Pending(request: request, route: route), signed: signed) { return }
        if let busy = refusalDuringJob(request) {
            await refuse(name, id: request.id, transaction: request.transaction, busy, route: route)
            return
        }
        // Admitted after the cache check: a result is in the cache before it is published, so a client
        // repeating the id as soon as it sees the result gets the result again, not `duplicate`.
        let failure: CommandError
        guard acceptsRequests() else {
            failure = CommandError(.busy, "the agent's responses wait for the broker (a slow or stalled broker): try again later")
            await responder.send(.failure(id: request.id, transaction: request.transaction, failure), to: route)
            return
        }
        switch intake.admit(RequestIntake.Pending(request: request, route: route)) {
        case let .queued(behind):
            logger.info("request \(request.command.rawValue) \(request.id.jsonText) queued\(behind.map { " behind \($0) other(s)" } ?? "")")
            ring.yield()
            return
        case .duplicate:
            failure = CommandError(.duplicate, "a request with id \(request.id.jsonText) is already pending: it answers on its own")
        case let .busy(queued):
            failure = CommandError(.busy, "\(queued) requests are already queued: try again later")
        }
        await responder.send(.failure(id: request.id, transaction: request.transaction, failure), to: route)
    }

    /// The request's payload, read once, once its signature checked out (the body of a signed
    /// envelope, `signed` true), or nil when it was refused (answered `not_permitted`). Without a
    /// signature key: as it came.
    private func verifiedPayload(of message: InboundMessage, command name: String, route: CommandResponder.Route) async
        -> (payload: RequestPayload, signed: Bool)?
    {
        // An envelope escapes its request, so it may be up to twice the limit; anything larger is
        // not read but refused by the parser (over the size limit), before it can act. A bare request
        // over the limit is refused by the parser too.
        let limit = signatures == nil ? policy.maximumPayloadBytes : 2 * policy.maximumPayloadBytes
        let payload = RequestPayload(message.payload, limit: limit)
        guard let signatures, payload.content != nil else { return (payload, false) }
        switch signatures.check(topic: message.topic, payload: payload, now: clock.now) {
        case let .verified(body):
            return (body, true)
        case let .rejected(rejection):
            await refuse(name, id: rejection.id, transaction: rejection.transaction, rejection.error, route: route)
            return nil
        case .unsigned where policy.requiresSignature(name, hasKey: true):
            let echo: (id: RequestID?, transaction: TransactionID?) =
                if case let .object(fields)? = payload.content { CommandParser.echo(fields) } else { (nil, nil) }
            let scope = policy.requireSignature ? "this agent takes signed requests only (commands.require_signature)"
                : "lock needs a signed request when commands.signature_key_file is set"
            let error = CommandError(.notPermitted, "unsigned request refused: \(scope); see docs/mqtt.md, \"Signed requests\"")
            await refuse(name, id: echo.id, transaction: echo.transaction, error, route: route)
            return nil
        case .unsigned:
            return (payload, false)
        }
    }

    /// Logs and answers a request refused before it was queued.
    private func refuse(
        _ name: String, id: RequestID?, transaction: TransactionID?, _ error: CommandError, route: CommandResponder.Route
    ) async {
        logger.warning("request \(name) \(id?.jsonText ?? "(no id)") refused: \(error)")
        await responder.send(.failure(id: id, transaction: transaction, error), to: route)
    }

    // MARK: - Worker

    /// Runs queued requests one at a time until the task is cancelled; then answers every pending
    /// request with `canceled`.
    package func run() async {
        for await _ in doorbell {
            while !Task.isCancelled, let next = intake.next() {
                await execute(next)
            }
            if Task.isCancelled { break }
        }
        for pending in intake.removeAll() {
            await responder.finish(
                pending, .failure(id: pending.request.id, transaction: pending.request.transaction, .agentStopping))
        }
    }

    private func execute(_ pending: RequestIntake.Pending) async {
        intake.running = RequestIntake.Running(pending: pending, phase: .starting)
        let response = await respond(to: pending)
        // Done before its answer goes out: a `cancel` arriving while it is stored and sent finds it
        // finished, not acting (`busy`); a repeat of its id is a `duplicate`, never a second run.
        intake.running = nil
        intake.answering.insert(pending.request.key)
        await finishAnswering(pending, response)
    }

    /// Everything from "its turn came" to the final response.
    private func respond(to pending: RequestIntake.Pending) async -> CommandResponse {
        let request = pending.request
        func failure(_ error: CommandError) -> CommandResponse {
            .failure(id: request.id, transaction: request.transaction, error)
        }
        if let expiry = request.expiresAtMonotonic, clock.monotonicMilliseconds >= expiry {
            return failure(CommandError(.expired, "the request expired while queued: nothing was done"))
        }
        if let busy = refusalDuringJob(request) { return failure(busy) }
        var tags: [PresentTag] = []
        do {
            tags = try await access.presentTags()
        } catch {
            if request.waitForTagMilliseconds == 0 { return failure(CommandError.fromReader(error)) }
            logger.warning("cannot look for a tag now: \(error); waiting for one")
        }
        if intake.running?.canceled == true || Task.isCancelled { return failure(.canceledNow) }
        if tags.isEmpty {
            guard request.waitForTagMilliseconds > 0 else {
                return failure(CommandError(.noTag, "no tag in the field (wait_for_tag_s is 0)"))
            }
            switch await waitForTag(request, route: pending.route) {
            case let .tag(found): tags = [found]
            case .canceled: return failure(.canceledNow)
            case let .failed(error): return failure(error)
            case .deadline:
                if let expiry = request.expiresAtMonotonic, clock.monotonicMilliseconds >= expiry {
                    return failure(CommandError(.expired, "the request expired while waiting for a tag: nothing was done"))
                }
                let seconds = Double(request.waitForTagMilliseconds) / 1000
                return failure(CommandError(.timeout, "no tag came within wait_for_tag_s (\(seconds) s)"))
            }
        }
        // A job may have started while this request waited for its tag: the job has the reader.
        if let busy = refusalDuringJob(request) { return failure(busy) }
        // The tag the request names, or the only one: with several and no `uid`, `several_tags`.
        let tag: PresentTag
        do throws(CommandError) {
            tag = try TagChoice.pick(from: tags, uid: request.uid)
        } catch {
            return failure(error)
        }
        intake.running?.phase = .acting
        logger.info("request \(request.command.rawValue) \(request.id.jsonText) acting on tag \(tag.uid.hexString)")
        let executor = self.executor
        let action = request.action
        let identified = tag.cardInfo
        do {
            let outcome = try await access.withExclusiveAccess(to: tag) { transport in
                try await executor.execute(action, on: transport, identified: identified)
            }
            return .ok(id: request.id, transaction: request.transaction, outcome, of: request.command)
        } catch let error as CommandError {
            return failure(error)
        } catch {
            return failure(CommandError.fromReader(error, reading: request.command == .dump))
        }
    }

    /// Publishes `waiting`, then waits for a tag, the deadline (`wait_for_tag_s` or the expiry,
    /// whichever comes first) or a cancel.
    private func waitForTag(_ request: CommandRequest, route: CommandResponder.Route) async -> TagWait.Outcome {
        let waitEnd = clock.monotonicMilliseconds + request.waitForTagMilliseconds
        let deadline = request.expiresAtMonotonic.map { min(waitEnd, $0) } ?? waitEnd
        intake.running?.phase = .waiting
        await responder.send(
            .waiting(id: request.id, transaction: request.transaction, seconds: Double(request.waitForTagMilliseconds) / 1000),
            to: route)
        if intake.running?.canceled == true { return .canceled }
        let wait = TagWait(access: access, clock: clock, deadline: deadline)
        intake.running?.wait = wait
        let outcome = await wait.outcome()
        intake.running?.wait = nil
        // A cancel that raced with an arriving tag still wins: nothing has been done yet.
        if intake.running?.canceled == true || Task.isCancelled { return .canceled }
        return outcome
    }
}
