import Foundation

/// The client side of `nfcbridge-sim`'s control channel (docs/simulator.md): one JSON request line
/// per connection, one reply line back. Shared by ``SimulatorProcess`` and ``VPCDCardProcess``.
public enum SimulatorControlSocket {
    /// Sends one control request (a JSON object) to the socket at `path` and returns the reply object.
    public static func request(_ request: [String: Any], path: String) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: request)
        let reply = try requestLine(String(decoding: data, as: UTF8.self), path: path)
        guard let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any] else {
            throw SimulatorProcess.Failure(description: "control reply is not a JSON object: \(reply)")
        }
        return object
    }

    /// Sends one request line and returns the reply line (a new connection each time).
    public static func requestLine(_ line: String, path controlPath: String) throws -> String {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SimulatorProcess.Failure(description: "socket failed") }
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
        guard connected == 0 else { throw SimulatorProcess.Failure(description: "cannot connect to \(controlPath)") }
        // A reply never takes longer than the longest wait a request can ask for.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array((line + "\n").utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw SimulatorProcess.Failure(description: "cannot send the control request")
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !reply.contains(0x0A) {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { throw SimulatorProcess.Failure(description: "control socket closed without a reply") }
            reply += buffer.prefix(count)
        }
        return String(decoding: reply.prefix { $0 != 0x0A }, as: UTF8.self)
    }
}
