import Foundation

/// A running `nfcbridge-sim` for a test: its own pty link and control socket in a fresh temporary
/// folder, started and awaited until it prints its readiness line, always terminated at the end
/// (``stop()``, also on deinit). Talk to it with ``control(_:)``; point libnfc at it with
/// ``libnfcEnvironment``.
public final class SimulatorProcess: @unchecked Sendable {
    /// Why the simulator could not be used.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
        /// A failure saying `description`.
        public init(description: String) { self.description = description }
    }

    /// The temporary folder holding link, socket and scenario.
    public let directory: String
    /// The pty symlink (`pn532_uart:<linkPath>`).
    public let linkPath: String
    /// The control socket.
    public let controlPath: String
    /// The simulator process.
    public let process: ChildProcess

    /// Starts `nfcbridge-sim` with `scenario` (YAML text, optional) and extra `arguments`
    /// (`--time-scale 0.05`, `--baud 115200`, `--trace`), and waits for its readiness line.
    /// `linkPath` puts the pty link at a path of the test's choosing (e.g. the link an earlier,
    /// killed simulator left: a reader plugged in again); by default it lives in ``directory``.
    public init(
        scenario: String? = nil, arguments: [String] = [], linkPath: String? = nil, readyTimeout: Duration = .seconds(30)
    ) throws {
        let chosenLink = linkPath
        let launched = try SimulatorLaunch.start(
            prefix: "nfcsim", scenario: scenario, extra: arguments, ready: "ready link=", readyTimeout: readyTimeout
        ) { directory in
            ["--link", chosenLink ?? directory + "/pn532.tty", "--control", directory + "/control.sock"]
        }
        directory = launched.directory
        self.linkPath = linkPath ?? directory + "/pn532.tty"
        controlPath = directory + "/control.sock"
        process = launched.process
    }

    deinit { stop() }

    /// Environment for libnfc tools: this simulator as the default device, no USB autoscan.
    public var libnfcEnvironment: [String: String] {
        ["LIBNFC_DEFAULT_DEVICE": "pn532_uart:\(linkPath)", "LIBNFC_AUTO_SCAN": "false"]
    }

    /// Terminates the simulator and removes its folder.
    public func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Sends one control request (a JSON object) and returns the reply object.
    public func control(_ request: [String: Any]) throws -> [String: Any] {
        try SimulatorControlSocket.request(request, path: controlPath)
    }

    /// Sends one request line and returns the reply line (a new connection each time).
    public func controlLine(_ line: String) throws -> String {
        try SimulatorControlSocket.requestLine(line, path: controlPath)
    }
}
