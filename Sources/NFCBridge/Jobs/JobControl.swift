/// Pause, resume and cancel for a running encode job (`request/job`), from any task. Pausing
/// and cancelling take effect between tags: a tag being written is finished first.
package final class JobControl: Sendable {
    /// What the job is told to do.
    package enum Mode: Sendable, Equatable {
        case running
        case paused
        case canceled
    }

    private let mode = Watched(Mode.running)

    /// A control in ``Mode/running``.
    package init() {}

    /// The mode now.
    package var current: Mode { mode.value }

    /// Stops taking new tags until ``resume()``.
    package func pause() { mode.update { if $0 == .running { $0 = .paused } } }

    /// Takes tags again after ``pause()``.
    package func resume() { mode.update { if $0 == .paused { $0 = .running } } }

    /// Ends the job after the tag in hand, if any.
    package func cancel() { mode.update { $0 = .canceled } }

    /// Waits until the mode is not `mode` any more; returns the new one.
    func waitForChange(from mode: Mode) async -> Mode {
        await self.mode.wait { $0 != mode }
    }
}
