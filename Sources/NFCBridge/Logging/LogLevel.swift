/// Log levels, with their syslog priorities (the `<N>` prefix journald reads from stderr).
package enum LogLevel: String, Sendable, Equatable, Comparable, CaseIterable {
    case debug, info, notice, warning, error

    /// syslog(3) priority: LOG_DEBUG 7 … LOG_ERR 3.
    package var syslogPriority: Int {
        switch self {
        case .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        }
    }

    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.syslogPriority > rhs.syslogPriority
    }
}
