/// A one-shot signal: ``wait()`` returns once ``fire()`` was called (before or after), or when the
/// waiting task is cancelled.
final class StopSignal: Sendable {
    private let fired = Watched(false)

    /// Fires the signal (any number of times, from any thread).
    func fire() { fired.update { $0 = true } }

    /// Returns once the signal fired (or the task is cancelled).
    func wait() async { await fired.wait { $0 } }
}
