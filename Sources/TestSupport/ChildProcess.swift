import Foundation

/// A program running beside a test: its output is collected as it comes, tests await output
/// instead of sleeping, and the process never outlives the test (``terminate()`` — also run on
/// deinit — sends SIGTERM, then SIGKILL, and reaps it).
public final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let state = OutputState()

    /// What the reader threads and the termination handler share with the waiters.
    private final class OutputState: @unchecked Sendable {
        let condition = NSCondition()
        var standardOutput = Data()
        var standardError = Data()
        var openStreams = 2
        var exitStatus: Int32?
    }

    /// Starts `executable` with `arguments`; `environment` is merged into the test's own.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [state] process in
            state.condition.lock()
            state.exitStatus = process.terminationStatus
            state.condition.broadcast()
            state.condition.unlock()
        }
        try process.run()
        Self.startReading(outPipe.fileHandleForReading, state) { $0.standardOutput.append($1) }
        Self.startReading(errPipe.fileHandleForReading, state) { $0.standardError.append($1) }
    }

    deinit { terminate() }

    /// The process id.
    public var processIdentifier: Int32 { process.processIdentifier }
    /// Standard output so far.
    public var output: String { locked { String(decoding: $0.standardOutput, as: UTF8.self) } }
    /// Standard error so far.
    public var errorOutput: String { locked { String(decoding: $0.standardError, as: UTF8.self) } }
    /// The exit status once the process ended.
    public var terminationStatus: Int32? { locked { $0.exitStatus } }

    /// Waits until standard output contains `text`; false when the process ended (its output read
    /// to the end) or `timeout` passed without it.
    public func waitForOutput(_ text: String, timeout: Duration = .seconds(30)) -> Bool {
        waitFor(timeout: timeout) { s in
            if String(decoding: s.standardOutput, as: UTF8.self).contains(text) { return true }
            return s.exitStatus != nil && s.openStreams == 0 ? false : nil
        } ?? false
    }

    /// Waits for the process to end and its output to be read; nil after `timeout`.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(60)) -> Int32? {
        waitFor(timeout: timeout) { s in s.openStreams == 0 ? s.exitStatus : nil }
    }

    /// Sends SIGINT (Ctrl-C).
    public func interrupt() {
        if process.isRunning { process.interrupt() }
    }

    /// Ends the process: SIGTERM, SIGKILL when it is still there after five seconds; then reaps it.
    public func terminate() {
        // Never signal pid 0 (the whole process group) for a process that did not start.
        guard process.processIdentifier > 0, terminationStatus == nil else { return }
        if process.isRunning { process.terminate() }
        if waitForExit(timeout: .seconds(5)) == nil {
            kill(process.processIdentifier, SIGKILL)
            waitForExit(timeout: .seconds(5))
        }
    }

    private func locked<T>(_ body: (OutputState) -> T) -> T {
        state.condition.lock()
        defer { state.condition.unlock() }
        return body(state)
    }

    /// Waits until `check` (run under the lock) returns a value, or `timeout` passes.
    private func waitFor<T>(timeout: Duration, _ check: (OutputState) -> T?) -> T? {
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
    private static func startReading(_ handle: FileHandle, _ state: OutputState,
                                     append: @escaping @Sendable (OutputState, Data) -> Void) {
        let thread = Thread {
            while true {
                let data = handle.availableData
                state.condition.lock()
                if data.isEmpty { state.openStreams -= 1 } else { append(state, data) }
                state.condition.broadcast()
                state.condition.unlock()
                if data.isEmpty { return }
            }
        }
        thread.start()
    }
}
