import FoundationEssentials
import Glibc

/// Tells systemd how the service is doing (`Type=notify`): READY=1 once the agent runs,
/// WATCHDOG=1 while it makes progress, STOPPING=1 on the way out. Every call is a no-op when the
/// process was not started by systemd (no `NOTIFY_SOCKET`), which is what sd_notify(3) does.
package protocol ServiceNotifying: Sendable {
    /// Sends one state string (`READY=1`, `WATCHDOG=1`, `STOPPING=1`, `STATUS=…`).
    func notify(_ state: String)
    /// The watchdog period systemd expects pings within (`WatchdogSec=`), if enabled.
    var watchdogInterval: Duration? { get }
}

/// The real notifier: one datagram per state to systemd's notification socket, as sd_notify(3)
/// sends it. The socket and the watchdog period are values given at creation
/// (``init(environment:processID:)`` reads them from the environment, at the edge), so nothing
/// here reads or changes the process environment.
package struct SystemdNotifier: ServiceNotifying {
    /// The notification socket (`NOTIFY_SOCKET`; a leading `@` names an abstract socket), nil
    /// when systemd did not start the process: then ``notify(_:)`` does nothing.
    package let socketPath: String?
    package let watchdogInterval: Duration?

    /// A notifier sending to `socketPath`, expecting pings within `watchdogInterval`.
    package init(socketPath: String?, watchdogInterval: Duration? = nil) {
        self.socketPath = socketPath.flatMap { $0.isEmpty ? nil : $0 }
        self.watchdogInterval = watchdogInterval
    }

    /// The notifier systemd set up in `environment` (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, and
    /// `WATCHDOG_PID`, which must name `processID` when set — sd_watchdog_enabled(3)'s rules).
    package init(environment: [String: String], processID: Int32 = getpid()) {
        let pidMatches = environment["WATCHDOG_PID"].map { Int32($0) == processID } ?? true
        let microseconds = environment["WATCHDOG_USEC"].flatMap { Int64($0) } ?? 0
        self.init(
            socketPath: environment["NOTIFY_SOCKET"],
            watchdogInterval: pidMatches && microseconds > 0 ? .microseconds(microseconds) : nil)
    }

    package func notify(_ state: String) {
        guard let socketPath else { return }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        // An abstract socket (`@name`) is named by a leading NUL byte instead.
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.enumerated() { buffer[index] = byte }
        }
        // `sun_path` follows `sun_family`: the address is the family and the name's bytes.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(state.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, length) }
            }
        }
    }
}

/// A notifier that does nothing (tests and the CLI outside systemd).
package struct SilentNotifier: ServiceNotifying {
    /// Creates the notifier.
    package init() {}
    package func notify(_ state: String) {}
    package var watchdogInterval: Duration? { nil }
}
