import Synchronization

/// Pets the systemd watchdog (`WATCHDOG=1`) every quarter of `WatchdogSec`, but only while the
/// reader loop makes progress: a poll, presence check or command finished (or a back-off slice
/// ended while the reader is away) within the last `WatchdogSec`/2, or a tag operation is under
/// way (for at most ``longestTagOperationMilliseconds``). It stops when a libnfc call hangs and
/// when the reader stopped answering and ``AgentReducer/reopensBeforeHung`` reopens failed
/// (``AgentState/isReaderHung``); systemd then restarts the service. The broker plays no part.
/// Each change is told to systemd as `STATUS=` (shown by `systemctl status`) and logged.
///
/// After ``stop()`` returns it tells systemd nothing more, so the agent's `STOPPING=1` is the last
/// word: a ping sent after it would reach systemd out of order.
final class ProgressWatchdog: Sendable {
    /// What the watchdog reads of the agent's state at each tick.
    struct Progress: Sendable {
        /// Last sign of life of the reader loop (monotonic milliseconds).
        var lastProgress: Int64
        /// When the tag operation under way started (monotonic milliseconds), if one is.
        var busySince: Int64?
        /// The reader stopped answering and its reopens failed.
        var isReaderHung: Bool
        /// What the reader status says about it.
        var readerDetail: String?
    }

    /// Why the pings stopped: told to systemd once per change.
    enum Stall: Equatable, Sendable { case hung, noProgress }

    private struct State {
        var isStopped = false
        var stalled: Stall?
    }

    /// How long one scan or dump may run before the watchdog stops pinging.
    static let longestTagOperationMilliseconds: Int64 = 5 * 60 * 1000

    /// The period systemd expects pings within.
    let interval: Duration
    private let notifier: any ServiceNotifying
    private let clock: any AgentClock
    private let logger: AgentLogger
    private let progress: @Sendable () -> Progress
    /// Held while a tick notifies, so that ``stop()`` waits for a notification under way.
    private let state = Mutex(State())

    /// A watchdog for `interval` that reads `progress` at each tick and tells `notifier`.
    init(
        interval: Duration, notifier: any ServiceNotifying, clock: any AgentClock, logger: AgentLogger,
        progress: @escaping @Sendable () -> Progress
    ) {
        self.interval = interval
        self.notifier = notifier
        self.clock = clock
        self.logger = logger
        self.progress = progress
    }

    /// Ticks every quarter of the interval until ``stop()`` or the task is cancelled.
    func run() async {
        while !Task.isCancelled, tick() {
            try? await Task.sleep(for: interval / 4)
        }
    }

    /// Ends the pings; once it returns, no tick notifies systemd any more.
    func stop() {
        state.withLock { $0.isStopped = true }
    }

    /// One look at the progress: pings, or tells systemd why not (once per change). Returns false
    /// once stopped (nothing sent).
    @discardableResult
    func tick() -> Bool {
        let progress = self.progress()
        let now = clock.monotonicMilliseconds
        let window = interval.wholeMilliseconds / 2
        let busy = progress.busySince.map { now - $0 < Self.longestTagOperationMilliseconds } ?? false
        let stall: Stall? =
            progress.isReaderHung ? .hung : (now - progress.lastProgress >= window && !busy ? .noProgress : nil)
        return state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            defer { state.stalled = stall }
            if let stall {
                guard stall != state.stalled else { return true }
                let reason =
                    stall == .hung
                    ? "reader unresponsive after \(AgentReducer.reopensBeforeHung) reopen attempts (\(progress.readerDetail ?? "no detail"))"
                    : "reader loop made no progress for \(now - progress.lastProgress) ms"
                logger.error("watchdog: \(reason); not pinging systemd")
                notifier.notify("STATUS=watchdog stopped: \(reason)")
                return true
            }
            if state.stalled != nil {
                logger.notice("watchdog: the reader loop makes progress again; pinging systemd")
                notifier.notify("STATUS=running")
            }
            notifier.notify("WATCHDOG=1")
            return true
        }
    }
}
