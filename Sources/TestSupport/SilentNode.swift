import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An address on 127.0.0.1 where no MQTT broker ever answers, for the connect-timeout tests: a
/// listening socket that is never accepted from.
///
/// - ``Behaviour/dropsSYNs``: listen backlog 0, already filled by connections of its own, so the
///   kernel drops every further SYN (as a host behind a firewall DROP, or a broker whose listen
///   backlog is full): a client's TCP connect stays in SYN-SENT.
/// - ``Behaviour/acceptsAndIsSilent``: the kernel completes the TCP handshake (the connection waits
///   in the accept queue), the client's CONNECT is received and never answered.
public final class SilentNode: @unchecked Sendable {
    /// How the node fails to answer.
    public enum Behaviour: Sendable {
        case dropsSYNs
        case acceptsAndIsSilent
    }

    /// The port it listens on.
    public let port: Int
    private var listener: Int32
    private var fillers: [Int32] = []
    /// The fillers of ``Behaviour/dropsSYNs`` that were left in SYN-SENT.
    private var ownConnecting = 0

    /// `mqtt://127.0.0.1:<port>`.
    public var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Listens on a free loopback port (and, for ``Behaviour/dropsSYNs``, fills its backlog).
    public init(_ behaviour: Behaviour) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackPortError("socket() failed: \(String(cString: strerror(errno)))") }
        var address = LoopbackPort.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let backlog: Int32 = behaviour == .dropsSYNs ? 0 : 16
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw LoopbackPortError("silent listener set-up failed: \(reason)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        guard behaviour == .dropsSYNs else { return }
        // Backlog 0 queues one connection: the first (blocking) connect fills it; the next ones find
        // the queue full, and their SYNs, like every later one, are dropped.
        for index in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard filler >= 0 else { continue }
            fillers.append(filler)
            if index > 0 { _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL) | O_NONBLOCK) }
            var target = LoopbackPort.loopback(port: port)
            _ = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        ownConnecting = synSentCount()
    }

    deinit {
        close()
    }

    /// Connections to this port still in SYN-SENT other than the node's own fillers (from
    /// /proc/net/tcp): a client whose TCP connect is under way.
    public var connectingClients: Int { max(0, synSentCount() - ownConnecting) }

    /// Sockets in SYN-SENT (state 02) towards 127.0.0.1:``port``.
    private func synSentCount() -> Int {
        guard let table = Self.readProcFile("/proc/net/tcp") else { return 0 }
        let remote = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[2] == remote && fields[3] == "02"
        }.count
    }

    /// The whole of a /proc file, read to its end (its size reads as 0, so no one-shot read).
    private static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits (polling /proc/net/tcp on a thread of its own) until a client's TCP connect is under
    /// way; `false` after `timeout` (a guard against a hang, not a measurement).
    public func clientConnecting(timeout: TimeInterval = 30) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread {
                let deadline = Date(timeIntervalSinceNow: timeout)
                while self.connectingClients == 0 && Date() < deadline { usleep(20_000) }
                continuation.resume(returning: self.connectingClients > 0)
            }.start()
        }
    }

    /// Closes the listener and the fillers.
    public func close() {
        if listener >= 0 { Glibc.close(listener) }
        listener = -1
        for filler in fillers { Glibc.close(filler) }
        fillers.removeAll()
    }
}
