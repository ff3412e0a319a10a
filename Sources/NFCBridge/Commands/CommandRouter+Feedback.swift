import NFCCore

extension CommandRouter {
    /// The answer to `request/feedback` (``answeredAtOnce(_:signed:)``: whatever the queue holds, it
    /// touches no tag): the reader's LED and buzzer where it has them, and `feedback.exec`. `ok` with
    /// what each part did when one of them reached the person at the reader; `unsupported` naming why
    /// when neither could.
    func feedbackResponse(_ request: CommandRequest, signal: IndicatorSignal) async -> CommandResponse {
        guard let show = feedbackHandler else {
            return .failure(id: request.id, transaction: request.transaction,
                            CommandError(.unsupported, "this agent has no feedback: its reader has no LED or buzzer and feedback.exec is not set"))
        }
        let outcome = await show(signal)
        guard outcome.didSignal else {
            let why = [outcome.readerMessage, outcome.exec == "none" ? "feedback.exec is not set" : "feedback.exec: \(outcome.exec)"]
                .compactMap { $0 }.joined(separator: "; ")
            return .failure(id: request.id, transaction: request.transaction, CommandError(.unsupported, "no feedback was given: \(why)"))
        }
        logger.info("request feedback \(request.id.jsonText): \(signal.light.rawValue), \(signal.beeps) beep(s)")
        return .ok(id: request.id, transaction: request.transaction, .outcome(outcome, of: .feedback))
    }
}

/// A feedback's result is the `data` of its `ok` response.
extension FeedbackOutcome: CommandOutcome {}

extension CommandParser {
    /// `light` (required: off, green, red, both) and `beeps` (0…5, default 0) of `request/feedback`.
    static func feedbackSignal(_ object: JSONFields) throws(CommandError) -> IndicatorSignal {
        let lights = IndicatorSignal.Light.allCases.map(\.rawValue).joined(separator: ", ")
        guard let text = object.string("light") else { throw .invalid("light", "required: one of \(lights)") }
        guard let light = IndicatorSignal.Light(rawValue: text) else { throw .invalid("light", "must be one of \(lights)") }
        var beeps = 0
        if object.has("beeps") {
            guard let count = object.integer("beeps"), (0...Int64(IndicatorSignal.maximumBeeps)).contains(count) else {
                throw .invalid("beeps", "must be a whole number from 0 to \(IndicatorSignal.maximumBeeps)")
            }
            beeps = Int(count)
        }
        return IndicatorSignal(light: light, beeps: beeps)
    }
}
