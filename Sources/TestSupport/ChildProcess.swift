import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A long-running child process (a broker, a simulator, a libnfc tool) started with `posix_spawn`,
/// so that it gets a clean signal state: an empty signal mask and default dispositions.
///
/// Why not `Foundation.Process`: the child inherits the signal mask of the thread that spawns it, and
/// test-runner threads may block SIGTERM/SIGHUP; Mosquitto restores the inherited mask around its
/// `epoll_wait`, so such a broker never acts on SIGTERM or SIGHUP. SIGPIPE, which libmosquitto sets to
/// "ignore" in the test process, would also be inherited.
///
/// Output goes either to a file (`outputFile:`, stdout and stderr appended) or into memory, where
/// tests await it (``waitForOutput(_:timeout:)``) instead of sleeping. A reaper thread waits for the
/// child, so ``waitForExit(timeout:)`` is an event too. ``terminate(grace:)`` — also run on deinit —
/// ends the child by its PID (SIGTERM, then SIGKILL) and reaps it: it never outlives the test.
public final class ChildProcess: @unchecked Sendable {
    /// The child's PID.
    public let pid: pid_t
    private let state = State()

    /// What the reader threads and the reaper share with the waiters, under `condition`.
    private final class State: @unchecked Sendable {
        let condition = NSCondition()
        var standardOutput = Data()
        var standardError = Data()
        var openStreams = 0
        /// The raw `waitpid` status once the child ended.
        var waitStatus: Int32?
    }

    /// Starts `executable` with `arguments`, stdin from /dev/null, stdout+stderr appended to `outputFile`.
    public convenience init(_ executable: String, _ arguments: [String], outputFile: String) throws {
        try self.init(executable, arguments, environment: [:], outputFile: outputFile, input: nil)
    }

    /// Starts `executable` with `arguments` (`environment` merged into the test's own), stdin from
    /// /dev/null — or fed `input`, then closed, when given — and stdout and stderr collected in
    /// ``output`` and ``errorOutput``.
    public convenience init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: Data? = nil
    ) throws {
        try self.init(executable, arguments, environment: environment, outputFile: nil, input: input)
    }

    private init(
        _ executable: String, _ arguments: [String], environment: [String: String], outputFile: String?, input: Data?
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var readEnds: [Int32] = []
        // The parent closes its copies of the child's ends once the child has them (or on failure).
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        var inputEnd: Int32 = -1
        if input != nil {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw ChildProcessError("pipe: \(String(cString: strerror(errno)))") }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
            childEnds.append(fds[0])
            inputEnd = fds[1]
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let outputFile {
            posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            for target in [Int32(1), 2] {
                var fds: [Int32] = [0, 0]
                guard pipe(&fds) == 0 else {
                    for fd in readEnds + [inputEnd] where fd >= 0 { close(fd) }
                    throw ChildProcessError("pipe: \(String(cString: strerror(errno)))")
                }
                // Close-on-exec, so that other children spawned meanwhile do not hold the write end open.
                for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                posix_spawn_file_actions_adddup2(&actions, fds[1], target)
                readEnds.append(fds[0])
                childEnds.append(fds[1])
            }
        }

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
        // libnfc's log_init (libnfc 1.8.0 log.c, called by nfc_init) exports the context's log
        // level into the environment (`setenv("LIBNFC_LOG_LEVEL", …, 1)`): once a test has opened a
        // reader in this process, every child would inherit level 1 and print libnfc's own error
        // lines, which `nfcbridge` keeps off stderr unless the user sets the variable. The children
        // get it only when the test passes it in `environment`.
        var inherited = ProcessInfo.processInfo.environment
        inherited.removeValue(forKey: "LIBNFC_LOG_LEVEL")
        // The CLI's poll-order hint (a file in the user's cache) would carry one test's tag technology
        // into the next test's poll order and write into the developer's home: off unless a test sets it.
        inherited["NFCBRIDGE_POLL_HINT"] = "off"
        let merged = inherited.merging(environment) { _, new in new }
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else {
            for fd in readEnds + [inputEnd] where fd >= 0 { close(fd) }
            throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        LiveChildren.add(child)
        state.openStreams = readEnds.count
        if readEnds.count == 2 {
            Self.startReading(readEnds[0], state) { $0.standardOutput.append($1) }
            Self.startReading(readEnds[1], state) { $0.standardError.append($1) }
        }
        if let input { Self.startWriting(input, to: inputEnd) }
        Self.startReaping(child, state)
    }

    deinit {
        terminate()
    }

    /// `true` until the child has exited.
    public var isRunning: Bool { locked { $0.waitStatus == nil } }

    /// The exit status once the child ended (the signal number when a signal ended it), else nil.
    public var terminationStatus: Int32? {
        locked { state in state.waitStatus.map(Self.exitCode) }
    }

    /// Standard output so far (in-memory mode).
    public var output: String { locked { String(decoding: $0.standardOutput, as: UTF8.self) } }
    /// Standard error so far (in-memory mode).
    public var errorOutput: String { locked { String(decoding: $0.standardError, as: UTF8.self) } }
    /// Standard output so far, as bytes (in-memory mode).
    public var outputData: Data { locked { $0.standardOutput } }
    /// Standard error so far, as bytes (in-memory mode).
    public var errorOutputData: Data { locked { $0.standardError } }

    /// Sends `signal` to the child (no-op once it has exited).
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Sends SIGINT (Ctrl-C).
    public func interrupt() { send(SIGINT) }

    /// Waits until standard output contains `text`; false when the child ended (its output read to
    /// the end) or `timeout` passed without it.
    public func waitForOutput(_ text: String, timeout: Duration = .seconds(30)) -> Bool {
        waitFor(timeout: timeout) { s in
            if String(decoding: s.standardOutput, as: UTF8.self).contains(text) { return true }
            return s.waitStatus != nil && s.openStreams == 0 ? false : nil
        } ?? false
    }

    /// Waits until standard error contains `text` at least `count` times (a daemon's log line);
    /// false when the child ended (its output read to the end) or `timeout` passed without it.
    public func waitForErrorOutput(_ text: String, count: Int = 1, timeout: Duration = .seconds(30)) -> Bool {
        waitFor(timeout: timeout) { s in
            let occurrences = String(decoding: s.standardError, as: UTF8.self).components(separatedBy: text).count - 1
            if occurrences >= count { return true }
            return s.waitStatus != nil && s.openStreams == 0 ? false : nil
        } ?? false
    }

    /// Waits for the child to end and its output to be read; its ``terminationStatus``, or nil
    /// after `timeout`.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(60)) -> Int32? {
        waitFor(timeout: timeout) { s in s.openStreams == 0 ? s.waitStatus.map(Self.exitCode) : nil }
    }

    /// Sends SIGTERM, waits up to `grace` for the child to exit, then SIGKILL; returns once it is reaped.
    public func terminate(grace: Duration = .seconds(5)) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if waitFor(timeout: grace, { $0.waitStatus }) == nil {
            kill(pid, SIGKILL)
            _ = waitFor(timeout: .seconds(3600)) { $0.waitStatus }
        }
    }

    private static func exitCode(_ status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    private func locked<T>(_ body: (State) -> T) -> T {
        state.condition.lock()
        defer { state.condition.unlock() }
        return body(state)
    }

    /// Waits until `check` (run under the lock) returns a value, or `timeout` passes.
    private func waitFor<T>(timeout: Duration, _ check: (State) -> T?) -> T? {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date(timeIntervalSinceNow: seconds)
        state.condition.lock()
        defer { state.condition.unlock() }
        while true {
            if let value = check(state) { return value }
            if !state.condition.wait(until: deadline) { return check(state) }
        }
    }

    /// Reads a pipe on its own thread until EOF.
    private static func startReading(_ fd: Int32, _ state: State, append: @escaping @Sendable (State, Data) -> Void) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                state.condition.lock()
                if count > 0 { append(state, Data(buffer.prefix(count))) } else { state.openStreams -= 1 }
                state.condition.broadcast()
                state.condition.unlock()
                if count <= 0 {
                    close(fd)
                    return
                }
            }
        }
        thread.start()
    }

    /// Writes `input` to the child's stdin on its own thread (a child that does not read cannot
    /// block the test), then closes it. SIGPIPE is blocked on that thread: a child that exits
    /// without reading makes the write fail with EPIPE instead of killing the test process.
    private static func startWriting(_ input: Data, to fd: Int32) {
        let thread = Thread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            let bytes = [UInt8](input)
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                offset += count
            }
            close(fd)
        }
        thread.start()
    }

    /// Waits for the child on its own thread and records how it ended.
    private static func startReaping(_ pid: pid_t, _ state: State) {
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            LiveChildren.remove(pid)
            state.condition.lock()
            state.waitStatus = status
            state.condition.broadcast()
            state.condition.unlock()
        }
        thread.start()
    }
}

/// Every child still running, so that none outlives the test process: when the runner exits
/// (normally, or through `exit`) an `atexit` hook kills whatever a test left behind — e.g. a
/// broker held by an object that was never released before the runner called `exit`.
enum LiveChildren {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var pids: Set<pid_t> = []
    private static let hookInstalled: Void = {
        atexit { LiveChildren.killAll() }
    }()

    static func add(_ pid: pid_t) {
        _ = hookInstalled
        lock.withLock { _ = pids.insert(pid) }
    }

    static func remove(_ pid: pid_t) {
        lock.withLock { _ = pids.remove(pid) }
    }

    static func killAll() {
        let leftovers = lock.withLock { pids }
        for pid in leftovers { kill(pid, SIGKILL) }
    }
}

/// Starting a child process failed.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
