import NFCCore

extension CommandRouter {
    /// Answers `request/cancel`: ends the queued or waiting request it names with `canceled`
    /// (answered `ok` with where it was); one already acting on the tag cannot be canceled (`busy`).
    func cancel(_ request: CommandRequest, route: CommandResponder.Route) async {
        let key = request.key
        let target = request.id.jsonText
        func answer(_ error: CommandError) async {
            await responder.send(.failure(id: request.id, transaction: request.transaction, error), to: route)
        }
        func answer(canceledWhile state: ResponseData.CancelState) async {
            await responder.send(.ok(id: request.id, transaction: request.transaction, .canceled(state)), to: route)
        }
        if let pending = intake.removeQueued(key: key) {
            logger.info("request \(target) canceled while queued")
            await responder.finish(
                pending, .failure(id: pending.request.id, transaction: pending.request.transaction, .canceledByRequest))
            await answer(canceledWhile: .queued)
            return
        }
        if var current = intake.running, current.pending.request.key == key {
            guard current.phase != .acting else {
                await answer(CommandError(.busy, "request \(target) is already acting on the tag and cannot be canceled"))
                return
            }
            current.canceled = true
            current.wait?.cancel()
            intake.running = current
            logger.info("request \(target) canceled while waiting for a tag")
            await answer(canceledWhile: .waiting)
            return
        }
        let detail = cache.response(for: key).map { "it already finished with status \($0.status.rawValue)" } ?? "no such request"
        await answer(CommandError.invalid("id", "no queued or waiting request has id \(target): \(detail)"))
    }
}
