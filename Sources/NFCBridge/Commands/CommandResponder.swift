import NFCCore

/// Answers requests: where a response goes (the MQTT 5 Response Topic, with the Correlation Data
/// echoed, or `<base>/<id>/response/<command>`), publishing it, and for a final response remembering
/// it for repeats (``CommandResultCache``), logging it and auditing a lock.
struct CommandResponder: Sendable {
    /// Where and how a request is answered.
    struct Route: Sendable, Equatable {
        var topic: String
        var correlationData: [UInt8]?
    }

    let topics: TopicMap
    let publisher: any MessagePublisher
    let cache: CommandResultCache
    let logger: AgentLogger
    let audit: CommandRouter.LockAuditHandler?

    /// The v5 Response Topic when the request has a usable one (``isUsable(responseTopic:)``), else
    /// `<base>/<id>/response/<command>`.
    func route(for message: InboundMessage, command: String) -> Route {
        if let topic = message.responseTopic {
            if isUsable(responseTopic: topic) { return Route(topic: topic, correlationData: message.correlationData) }
            logger.warning("request \(command): Response Topic \(topic.prefix(120).debugDescription) refused: answered on \(topics.response(command))")
        }
        return Route(topic: topics.response(command), correlationData: message.correlationData)
    }

    /// A Response Topic the agent publishes on for whoever sent the request: one it can publish to (no
    /// `+`, `#` or NUL), and none that only the agent may write, which the broker's ACL would let the
    /// requester reach through the agent: its own tree (state, events, responses) but `<base>/<id>/rr/…`,
    /// and the Home Assistant discovery prefix.
    func isUsable(responseTopic topic: String) -> Bool {
        guard !topic.isEmpty, !topic.contains("+"), !topic.contains("#"), !topic.contains("\0") else { return false }
        if topic.hasPrefix(topics.root + "/") || topic == topics.root { return topic.hasPrefix(topics.root + "/rr/") }
        return !topic.hasPrefix(topics.homeAssistantPrefix + "/")
    }

    /// Sends the final response, remembers it for repeats (unless it is one to try again:
    /// ``CommandError/isRemembered``), and audits locks. It is encoded once,
    /// here: should its outcome not encode, the failure that replaces it is what is sent, kept and
    /// audited (``CommandResponse/encoded()``).
    func finish(_ pending: RequestIntake.Pending, _ final: CommandResponse) async {
        await deliver(pending, await record(pending, final))
    }

    /// The final response encoded, and remembered for repeats: ``finish(_:_:)``'s first half, for
    /// a caller that must know the result is in the cache before it is sent.
    func record(_ pending: RequestIntake.Pending, _ final: CommandResponse) async -> (CommandResponse, [UInt8]) {
        let (response, payload) = final.encoded()
        if response.error?.isRemembered != false { await cache.store(response, for: pending.request.key) }
        return (response, payload)
    }

    /// ``finish(_:_:)``'s second half: logs, sends and audits a ``record(_:_:)``ed response.
    func deliver(_ pending: RequestIntake.Pending, _ recorded: (response: CommandResponse, payload: [UInt8])) async {
        let (request, response, payload) = (pending.request, recorded.response, recorded.payload)
        if let error = response.error {
            logger.warning("request \(request.command.rawValue) \(request.id.jsonText) failed: \(error)")
        } else {
            logger.info("request \(request.command.rawValue) \(request.id.jsonText) done")
        }
        await publish(payload, to: pending.route)
        if case let .lock(uid, _) = request.action {
            let outcome = response.error.map { "refused (\($0))" } ?? "LOCKED permanently"
            logger.notice("lock request \(request.id.jsonText) for tag \(uid.hexString): \(outcome)")
            await audit?(CommandRouter.LockAudit(id: request.id, uid: uid, response: response))
        }
    }

    /// Publishes `response` on `route` (QoS 1, not retained); a failure is logged.
    func send(_ response: CommandResponse, to route: Route) async {
        await publish(response.payload, to: route)
    }

    /// Publishes an encoded response on `route`.
    private func publish(_ payload: [UInt8], to route: Route) async {
        let message = OutboundMessage(
            topic: route.topic, payload: payload, qos: .atLeastOnce, retain: false, correlationData: route.correlationData)
        do {
            try await publisher.publish(message)
        } catch {
            // Not spooled: a final result stays in the cache, so the client gets it by repeating its id.
            logger.warning("cannot publish the response on \(route.topic): \(error)")
        }
    }
}
