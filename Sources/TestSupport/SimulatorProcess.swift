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
    public init(scenario: String? = nil, arguments: [String] = [], readyTimeout: Duration = .seconds(30)) throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/nfcsim-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        directory = String(cString: made)
        linkPath = directory + "/pn532.tty"
        controlPath = directory + "/control.sock"
        var all = ["--link", linkPath, "--control", controlPath]
        if let scenario {
            let path = directory + "/scenario.yaml"
            try scenario.write(toFile: path, atomically: true, encoding: .utf8)
            all += ["--scenario", path]
        }
        do {
            process = try ChildProcess(Binaries.path("nfcbridge-sim"), all + arguments)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        guard process.waitForOutput("ready link=", timeout: readyTimeout) else {
            process.terminate()
            try? FileManager.default.removeItem(atPath: directory)
            throw Failure(description: "nfcbridge-sim did not become ready: \(process.errorOutput)")
        }
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
        let data = try JSONSerialization.data(withJSONObject: request)
        let reply = try controlLine(String(decoding: data, as: UTF8.self))
        guard let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any] else {
            throw Failure(description: "control reply is not a JSON object: \(reply)")
        }
        return object
    }

    /// Sends one request line and returns the reply line (a new connection each time).
    public func controlLine(_ line: String) throws -> String {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(controlPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.prefix(raw.count - 1))
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "cannot connect to \(controlPath)") }
        // A reply never takes longer than the longest wait a request can ask for.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array((line + "\n").utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw Failure(description: "cannot send the control request")
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !reply.contains(0x0A) {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { throw Failure(description: "control socket closed without a reply") }
            reply += buffer.prefix(count)
        }
        return String(decoding: reply.prefix { $0 != 0x0A }, as: UTF8.self)
    }
}
