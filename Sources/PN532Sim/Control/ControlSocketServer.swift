#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The control channel's unix socket: accepts clients on one thread and serves each on a thread
/// of its own (a `wait_command` request may block for seconds), one JSON request per line.
final class ControlSocketServer: Sendable {
    let path: String
    private let listenFD: Int32
    private let control: SimulatorControl
    private let clients = Mutex<Set<Int32>>([])
    private let stopping = Atomic<Bool>(false)
    private let acceptDone = DispatchSemaphore(value: 0)

    /// Binds and listens on `path`; a stale socket file there is replaced, anything else refused.
    init(path: String, control: SimulatorControl) throws(SimulatorError) {
        self.path = path
        self.control = control
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard !pathBytes.isEmpty, pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw .controlSocket("path '\(path)' is empty or longer than \(MemoryLayout.size(ofValue: address.sun_path) - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw .controlSocket("'\(path)' exists and is not a socket") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .controlSocket("socket: \(PseudoTerminal.errorText())") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let text = PseudoTerminal.errorText()
            close(fd)
            throw .controlSocket("bind/listen \(path): \(text)")
        }
        listenFD = fd
    }

    /// Starts accepting clients.
    func start() {
        let thread = Thread { [self] in
            acceptLoop()
            acceptDone.signal()
        }
        thread.name = "control-accept"
        thread.start()
    }

    /// Stops accepting, disconnects the clients and removes the socket file.
    func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))
        acceptDone.wait()
        close(listenFD)
        for fd in clients.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
        unlink(path)
    }

    private func acceptLoop() {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 200) >= 0 || errno == EINTR else { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let client = accept(listenFD, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            clients.withLock { _ = $0.insert(client) }
            let thread = Thread { [self] in serve(client) }
            thread.name = "control-client"
            thread.start()
        }
    }

    /// Reads request lines and answers each until the client closes.
    private func serve(_ fd: Int32) {
        defer {
            clients.withLock { _ = $0.remove(fd) }
            close(fd)
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return }
            pending += buffer.prefix(count)
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                pending.removeSubrange(...newline)
                guard !line.isEmpty else { continue }
                let reply = Array((control.handle(line: line) + "\n").utf8)
                var offset = 0
                while offset < reply.count {
                    let written = reply[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }
}
