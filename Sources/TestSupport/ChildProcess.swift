import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A long-running child process (a broker, a simulator) started with `posix_spawn`, so that it gets
/// a clean signal state: an empty signal mask and default dispositions.
///
/// Why not `Foundation.Process`: the child inherits the signal mask of the thread that spawns it, and
/// test-runner threads may block SIGTERM/SIGHUP; Mosquitto restores the inherited mask around its
/// `epoll_wait`, so such a broker never acts on SIGTERM or SIGHUP. SIGPIPE, which libmosquitto sets to
/// "ignore" in the test process, would also be inherited.
///
/// Output (stdout and stderr) is appended to `outputFile`. `terminate()` and `deinit` end the child
/// by its PID and reap it.
public final class ChildProcess: @unchecked Sendable {
    /// The child's PID.
    public let pid: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`, stdin from /dev/null, stdout+stderr appended to `outputFile`.
    public init(_ executable: String, _ arguments: [String], outputFile: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard rc == 0 else {
            throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
    }

    deinit {
        terminate()
    }

    /// `true` until the child has exited (reaps it when it has).
    public var isRunning: Bool {
        lock.withLock {
            if exitStatus != nil { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { exitStatus = status }
            return exitStatus == nil
        }
    }

    /// Sends `signal` to the child (no-op once it has exited).
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Sends SIGTERM, waits up to `grace` for the child to exit, then SIGKILL; reaps it.
    public func terminate(grace: Duration = .seconds(5)) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning && ContinuousClock.now < deadline { usleep(5_000) }
        lock.withLock {
            guard exitStatus == nil else { return }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            exitStatus = status
        }
    }
}

/// Starting a child process failed.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
