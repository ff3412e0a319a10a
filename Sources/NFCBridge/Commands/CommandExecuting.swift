import NFCCore

/// Does what a validated request asks, on the tag the router found: the seam between the queue and
/// NFCCore's operations (``TagCommandExecutor``), replaced by scripted executors in tests.
public protocol CommandExecuting: Sendable {
    /// Runs `action` on the tag behind `transport` and returns what it found (the response's `data`,
    /// encoded by the router). Throws a ``CommandError`` with the stable code (and `pages_written`
    /// where the tag was changed).
    func execute(_ action: CommandAction, on transport: any TagTransport) async throws(CommandError) -> any CommandOutcome
}
