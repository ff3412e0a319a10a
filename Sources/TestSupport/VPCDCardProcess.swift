import Foundation

/// A running `nfcbridge-sim --vpcd` for a test: the virtual contactless card of vsmartcard's vpcd
/// reader, with its control socket (and scenario file) in a fresh temporary folder. Started and
/// awaited until it prints its readiness line; always terminated at the end (``stop()``, also on
/// deinit). It connects to vpcd by itself whenever a tag lies in its field, so whoever listens on
/// `port` — pcscd's vpcd, or a test playing vpcd — must be there, or come later (it retries).
public final class VPCDCardProcess: @unchecked Sendable {
    /// The temporary folder holding the socket and the scenario.
    public let directory: String
    /// The control socket.
    public let controlPath: String
    /// vpcd's port on 127.0.0.1.
    public let port: Int
    /// The simulator process.
    public let process: ChildProcess

    /// Starts `nfcbridge-sim --vpcd 127.0.0.1:<port>` with `scenario` (YAML text, optional) and extra
    /// `arguments` (`--trace`, `--pcsc-get-data-atqa-sak`), and waits for its readiness line.
    public init(port: Int, scenario: String? = nil, arguments: [String] = [], readyTimeout: Duration = .seconds(30)) throws {
        let launched = try SimulatorLaunch.start(
            prefix: "nfcvpcd", scenario: scenario, extra: arguments, ready: "ready vpcd=", readyTimeout: readyTimeout
        ) { directory in
            ["--vpcd", "127.0.0.1:\(port)", "--control", directory + "/control.sock"]
        }
        directory = launched.directory
        controlPath = directory + "/control.sock"
        self.port = port
        process = launched.process
    }

    deinit { stop() }

    /// Terminates the simulator and removes its folder.
    public func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Sends one control request (a JSON object) and returns the reply object.
    public func control(_ request: [String: Any]) throws -> [String: Any] {
        try SimulatorControlSocket.request(request, path: controlPath)
    }

    /// Places the tag `id` in the field: the card program connects to vpcd (card inserted).
    public func place(_ id: String) throws {
        let reply = try control(["cmd": "place", "id": id])
        guard reply["ok"] as? Bool == true else { throw SimulatorProcess.Failure(description: "place \(id): \(reply)") }
    }

    /// Takes the tag `id` out: the card program disconnects (card removed).
    public func remove(_ id: String) throws {
        let reply = try control(["cmd": "remove", "id": id])
        guard reply["ok"] as? Bool == true else { throw SimulatorProcess.Failure(description: "remove \(id): \(reply)") }
    }

    /// The tag's memory as the control channel's `dump` gives it (`memory` in hex, `unit`, …).
    public func dump(_ id: String) throws -> [String: Any] {
        try control(["cmd": "dump", "id": id])
    }
}
