import Glibc
import NFCCore
import POSIXThreads
import Synchronization

/// `feedback.exec`: a program of the board's own (a GPIO line, a relay) run for each feedback, as an
/// argv (no shell), with what happened in its environment (``environment(for:signal:uid:agentID:)``),
/// killed (with the processes it started: it runs in a process group of its own) when it outlives
/// `feedback.exec_timeout_ms`. One runs at a time, on a thread of its own
/// (never the reader's, never the cooperative pool): a feedback asked for while one runs is skipped and
/// said so (the person at the reader already gets one).
final class FeedbackExec: Sendable {
    /// What happened to one run.
    enum Outcome: Equatable, Sendable {
        /// It ran and exited with this status.
        case exited(Int32)
        /// It was ended by this signal (not the timeout's): a failure.
        case signaled(Int32)
        /// It outlived the timeout and was killed.
        case killed
        /// Another run was still going: this one was not started.
        case skipped
        /// It could not be started (errno's text).
        case failed(String)
    }

    let argv: [String]
    let timeoutMilliseconds: Int
    private let thread = JobThread(name: "feedback-exec")
    private let running = Mutex(false)

    init(argv: [String], timeoutMilliseconds: Int) {
        self.argv = argv
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    deinit { thread.stop() }

    /// True while a run is going.
    var isRunning: Bool { running.withLock { $0 } }

    /// The environment of a run: a fixed PATH and the facts of the feedback.
    static func environment(for occasion: FeedbackOccasion, signal: IndicatorSignal, uid: [UInt8]?, agentID: String) -> [String] {
        var environment = [
            "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "NFCBRIDGE_FEEDBACK=\(occasion.rawValue)", "NFCBRIDGE_LIGHT=\(signal.light.rawValue)",
            "NFCBRIDGE_BEEPS=\(signal.beeps)", "NFCBRIDGE_AGENT_ID=\(agentID)",
        ]
        if let uid { environment.append("NFCBRIDGE_UID=\(uid.hexString)") }
        return environment
    }

    /// Runs the program with `environment`; returns when it ended, was killed, or was skipped.
    func run(environment: [String]) async -> Outcome {
        let started = running.withLock { running in
            defer { running = true }
            return !running
        }
        guard started else { return .skipped }
        let argv = self.argv, timeout = timeoutMilliseconds
        return await withCheckedContinuation { continuation in
            thread.submit { [self] in
                let outcome = Self.spawnAndWait(argv: argv, environment: environment, timeoutMilliseconds: timeout)
                running.withLock { $0 = false }
                continuation.resume(returning: outcome)
            }
        }
    }

    /// How often the exec thread looks whether the program ended (it waits on nothing else).
    static let pollMicroseconds: UInt32 = 5_000

    private static func spawnAndWait(argv: [String], environment: [String], timeoutMilliseconds: Int) -> Outcome {
        var pid = pid_t()
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        // In a process group of its own, so the timeout kills what it started too; with no signal
        // blocked or ignored (whatever the spawning thread blocks or ignores), so the program can
        // be ended like any other.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        let result = posix_spawn(&pid, argv[0], nil, &attributes, cArguments, cEnvironment)
        guard result == 0 else { return .failed(String(cString: strerror(result))) }
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(timeoutMilliseconds))
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { return outcome(of: status) }
            if done < 0 && errno != EINTR { return .failed(String(cString: strerror(errno))) }
            if ContinuousClock.now >= deadline {
                kill(-pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                return .killed
            }
            usleep(pollMicroseconds)
        }
    }

    /// A `waitpid` status as WIFEXITED / WIFSIGNALED read it: the low 7 bits are the signal that
    /// ended the program (0: it exited, its status in the next byte).
    static func outcome(of status: Int32) -> Outcome {
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    /// A signal's name (`SIGTERM`), for the log and `exec_signal`.
    static func name(ofSignal signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS",
            SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
