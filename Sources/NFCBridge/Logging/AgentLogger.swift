import FoundationEssentials
import Glibc

/// The agent's log: one line per message on standard error. Under systemd (`JOURNAL_STREAM` set)
/// each line starts with its syslog priority (`<6>…`) so journald files it at the right level and
/// adds the timestamp itself; elsewhere a UTC timestamp and the level lead the line.
///
/// Never pass secrets: configuration is logged through its redacted JSON only.
package final class AgentLogger: Sendable {
    /// Where finished lines go (standard error in the daemon, an array in tests).
    package typealias Sink = @Sendable (String) -> Void

    /// The lowest level written.
    package let level: LogLevel
    private let journald: Bool
    private let sink: Sink
    private let clock: any AgentClock

    /// Creates a logger. `journald` defaults to "JOURNAL_STREAM is set".
    package init(
        level: LogLevel, journald: Bool = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil,
        clock: any AgentClock = SystemClock(), sink: @escaping Sink = AgentLogger.standardError
    ) {
        self.level = level
        self.journald = journald
        self.sink = sink
        self.clock = clock
    }

    /// Writes `line` and a newline to standard error in one write(2), so lines from several
    /// threads never interleave.
    package static let standardError: Sink = { line in
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// Logs `message` at `level` (multi-line messages are folded onto one line).
    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= self.level else { return }
        // `map`, not `replacing(_:with:)` (_StringProcessing's code, resident for this alone: issue 25).
        let text = String(message().map { $0 == "\n" ? " " : $0 })
        if journald {
            sink("<\(level.syslogPriority)>\(text)")
        } else {
            sink("\(Timestamp.string(clock.now)) \(level.rawValue): \(text)")
        }
    }

    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// A log sink that keeps lines in memory (tests).
package final class LogRecorder: Sendable {
    private let lines = Watched<[String]>([])

    /// Creates an empty recorder.
    package init() {}

    /// The sink to hand to ``AgentLogger``.
    package var sink: AgentLogger.Sink { { [self] line in lines.update { $0.append(line) } } }

    /// Every line so far.
    package var recorded: [String] { lines.value }

    /// Returns once a line containing `text` was logged (at once if one was), or when the task is
    /// cancelled.
    package func waitForLine(containing text: String) async {
        await lines.wait { $0.contains { $0.contains(text) } }
    }
}
