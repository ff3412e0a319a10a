/// `request/job`, `request/feedback` and the one-job-per-reader rule (docs/mqtt.md, "Encode jobs").
extension CommandRouter {
    /// Answers a request that is never queued (``CommandAction/isAnsweredAtOnce``) and remembers its
    /// result like any other (rule 6: a repeated id gets it again and acts no second time); a repeat
    /// while it is being answered is a `duplicate`. `signed`: the request came signed.
    func answerAtOnce(_ pending: RequestIntake.Pending, signed: Bool) async {
        let request = pending.request
        guard !intake.isQueuedOrRunning(request.key), intake.answering.insert(request.key).inserted else {
            let error = CommandError(.duplicate, "a request with id \(request.id.jsonText) is already pending: it answers on its own")
            await responder.send(.failure(id: request.id, transaction: request.transaction, error), to: pending.route)
            return
        }
        let response: CommandResponse
        switch request.action {
        case let .job(job): response = await jobResponse(request, job, signed: signed)
        case let .feedback(signal): response = await feedbackResponse(request, signal: signal)
        default: response = .failure(id: request.id, transaction: request.transaction, CommandError(.unsupported, "not answered at once"))
        }
        let recorded = await responder.record(pending, response)
        intake.answering.remove(request.key)
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
