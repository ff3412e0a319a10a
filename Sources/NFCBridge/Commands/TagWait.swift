import NFCCore

/// Waiting for a tag: the next one the reader sees, or the deadline (monotonic milliseconds on
/// the agent's clock), whichever comes first. Started at creation; ``cancel()`` (a `cancel`
/// request, from another task) ends it with ``Outcome/canceled``.
final class TagWait: Sendable {
    /// How the wait ended.
    enum Outcome: Sendable {
        case tag(PresentTag)
        case deadline
        case canceled
        case failed(CommandError)
    }

    private let task: Task<Outcome, Never>

    /// Starts waiting on `access` for a tag until `deadline` on `clock`.
    init(access: any TagAccess, clock: any AgentClock, deadline: Int64) {
        task = Task {
            await withTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    do {
                        return .tag(try await access.nextTag())
                    } catch {
                        if Task.isCancelled || error is CancellationError { return .canceled }
                        return .failed(CommandError.fromReader(error))
                    }
                }
                group.addTask {
                    do {
                        try await clock.sleep(untilMonotonic: deadline)
                        return .deadline
                    } catch {
                        return .canceled
                    }
                }
                let first = await group.next() ?? .canceled
                group.cancelAll()
                return first
            }
        }
    }

    /// How the wait ended; cancelling the calling task cancels the wait.
    func outcome() async -> Outcome {
        await withTaskCancellationHandler {
            await task.value
        } onCancel: { [task] in
            task.cancel()
        }
    }

    /// Ends the wait (``Outcome/canceled``, unless it already ended otherwise).
    func cancel() {
        task.cancel()
    }
}
