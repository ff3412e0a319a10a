/// `request/job`, `request/feedback` and the one-job-per-reader rule (docs/mqtt.md, "Encode jobs").
extension CommandRouter {
    /// Answers `job` and `feedback` at once, never queued behind tag commands (a `pause` or `cancel`
    /// must not wait for a tag; feedback touches none), and remembers the result like any other
    /// (rule 6: a repeated id gets it again and acts no second time); a repeat while it is being
    /// answered is a `duplicate`. `signed`: the request came signed. False for the other commands.
    func answeredAtOnce(_ pending: RequestIntake.Pending, signed: Bool) async -> Bool {
        let request = pending.request
        let respond: () async -> CommandResponse
        switch request.action {
        case let .job(job): respond = { await self.jobResponse(request, job, signed: signed) }
        case let .feedback(signal): respond = { await self.feedbackResponse(request, signal: signal) }
        case .write, .format, .lock, .dump, .cancel, .writeBlocks, .protect: return false
        }
        guard !intake.isPending(request.key) else {
            let error = CommandError(.duplicate, "a request with id \(request.id.jsonText) is already pending: it answers on its own")
            await responder.send(.failure(id: request.id, transaction: request.transaction, error), to: pending.route)
            return true
        }
        intake.answering.insert(request.key)
        await finishAnswering(pending, await respond())
        return true
    }

    /// Stores the final `response` of `pending`, whose key is in `intake.answering` (a repeat is a
    /// `duplicate` meanwhile), takes the key out once the result is in the cache, then sends it.
    func finishAnswering(_ pending: RequestIntake.Pending, _ response: CommandResponse) async {
        let recorded = await responder.record(pending, response)
        intake.answering.remove(pending.request.key)
        await responder.deliver(pending, recorded)
    }

    /// A `request/job` through the job runner.
    private func jobResponse(_ request: CommandRequest, _ job: JobRequest, signed: Bool) async -> CommandResponse {
        guard let jobs else {
            return .failure(id: request.id, transaction: request.transaction, CommandError(.unsupported, "this agent runs no encode jobs"))
        }
        do {
            let refusal = policy.jobLockRefusal(signed: signed, hasKey: signatures != nil)
            let outcome = try await jobs.handle(job, lockRefusal: refusal)
            logger.info("request job \(request.id.jsonText) \(job.action): job \(outcome.job) \(outcome.state)")
            return .ok(id: request.id, transaction: request.transaction, outcome, of: .job)
        } catch {
            return .failure(id: request.id, transaction: request.transaction, error)
        }
    }

    /// `busy` for a command that changes a tag while an encode job runs on the reader; nil otherwise.
    func refusalDuringJob(_ request: CommandRequest) -> CommandError? {
        guard let jobs, jobs.isRunning else { return nil }
        switch request.command {
        case .write, .format, .lock, .writeBlocks:
            return CommandError(
                .busy, "an encode job is running on this reader (one job at a time; request/job pause or cancel it first)")
        case .dump, .cancel, .job, .feedback:
            return nil
        }
    }
}
