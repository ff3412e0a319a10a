/// `request/job` and the one-job-per-reader rule (docs/mqtt.md, "Encode jobs").
extension CommandRouter {
    /// Answers a `request/job` at once through the job runner: it is never queued behind tag
    /// commands (a `pause` or `cancel` must not wait for a tag).
    func receiveJob(_ request: CommandRequest, _ job: JobRequest, route: CommandResponder.Route) async {
        guard let jobs else {
            let error = CommandError(.unsupported, "this agent runs no encode jobs")
            await responder.send(.failure(id: request.id, transaction: request.transaction, error), to: route)
            return
        }
        do {
            let outcome = try await jobs.handle(job)
            logger.info("request job \(request.id.jsonText) \(job.action): job \(outcome.job) \(outcome.state)")
            await responder.send(.ok(id: request.id, transaction: request.transaction, outcome, of: .job), to: route)
        } catch {
            logger.warning("request job \(request.id.jsonText) refused: \(error)")
            await responder.send(.failure(id: request.id, transaction: request.transaction, error), to: route)
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
