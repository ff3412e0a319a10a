import NFCCore

/// Does what a validated request asks, on the tag the router found: the seam between the queue and
/// NFCCore's operations (``TagCommandExecutor``), replaced by scripted executors in tests.
package protocol CommandExecuting: Sendable {
    /// Runs `action` on the tag behind `transport` and returns what it found (the response's `data`,
    /// encoded by the router). `identified` is what the reader loop's identification found for the
    /// tag in the field (``PresentTag/cardInfo``), nil when it did not run or failed: an executor
    /// may act on it instead of identifying the tag again, when its UID is the transport's. Throws a
    /// ``CommandError`` with the stable code (and `pages_written` where the tag was changed).
    func execute(_ action: CommandAction, on transport: any TagTransport, identified: CardInfo?)
        async throws(CommandError) -> any CommandOutcome
}

extension CommandExecuting {
    /// Runs `action` on a tag nothing has identified yet.
    package func execute(_ action: CommandAction, on transport: any TagTransport) async throws(CommandError)
        -> any CommandOutcome
    {
        try await execute(action, on: transport, identified: nil)
    }
}
