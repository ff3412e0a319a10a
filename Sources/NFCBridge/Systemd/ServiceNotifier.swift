import CSystemd
import FoundationEssentials
import Glibc

/// Tells systemd how the service is doing (`Type=notify`): READY=1 once the agent runs,
/// WATCHDOG=1 while it makes progress, STOPPING=1 on the way out. Every call is a no-op when the
/// process was not started by systemd (no `NOTIFY_SOCKET`), which is what sd_notify(3) does.
public protocol ServiceNotifying: Sendable {
    /// Sends one state string (`READY=1`, `WATCHDOG=1`, `STOPPING=1`, `STATUS=…`).
    func notify(_ state: String)
    /// The watchdog period systemd expects pings within (`WatchdogSec=`), if enabled.
    var watchdogInterval: Duration? { get }
}

/// The real notifier over libsystemd.
public struct SystemdNotifier: ServiceNotifying {
    /// Creates the notifier.
    public init() {}

    public func notify(_ state: String) {
        _ = sd_notify(0, state)
    }

    public var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }
}

/// A notifier that does nothing (tests and the CLI outside systemd).
public struct SilentNotifier: ServiceNotifying {
    /// Creates the notifier.
    public init() {}
    public func notify(_ state: String) {}
    public var watchdogInterval: Duration? { nil }
}
