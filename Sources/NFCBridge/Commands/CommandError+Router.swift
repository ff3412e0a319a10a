import NFCCore

/// The errors the router itself answers with.
extension CommandError {
    /// Canceled by `request/cancel` before it acted.
    static let canceledByRequest = CommandError(.canceled, "canceled by request/cancel: nothing was done")

    /// Canceled because the agent is stopping.
    static let agentStopping = CommandError(
        .canceled, "the agent is stopping: nothing was done", details: CommandErrorDetails(isAgentStopping: true))

    /// Whether a final response with this error is remembered for a repeated id (docs/mqtt.md,
    /// "Commands", rule 6): not `busy`, `not_permitted` (a job's lock step refused by the
    /// configuration or for want of a signature, like every other refusal of that code) nor the
    /// agent stopping — nothing was done, and the same id sent again (corrected, signed, after the
    /// restart) must act.
    var isRemembered: Bool { code != .busy && code != .notPermitted && !details.isAgentStopping }

    /// Canceled by `request/cancel`, or by the agent stopping (the task is cancelled).
    static var canceledNow: CommandError { Task.isCancelled ? agentStopping : canceledByRequest }

    /// Any error from the reader or an executor that did not map it: its NFC code when it has one.
    static func fromReader(_ error: any Error, reading: Bool = true) -> CommandError {
        if let error = error as? CommandError { return error }
        if let error = error as? NFCError { return CommandError(error, reading: reading) }
        if error.isNFCCancellation { return canceledByRequest }
        return CommandError(reading ? .readFailed : .writeFailed, "\(error)")
    }
}
