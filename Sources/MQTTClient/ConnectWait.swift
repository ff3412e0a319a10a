import Glibc

/// What the network thread uses to connect without blocking for ever: a pipe a stop writes to, and
/// a `poll(2)` on libmosquitto's connecting socket that returns on the first of: the TCP handshake
/// done (or failed), the deadline, the stop.
///
/// libmosquitto's blocking connect (`mosquitto_connect_bind_v5`) waits as long as the kernel retries
/// SYNs (`tcp_syn_retries`, about 127 s) on a node that drops them (listen backlog full, firewall
/// DROP), and nothing can interrupt it: a stop would wait that long, and a failover list would stay on
/// that node. `mosquitto_connect_bind_async` leaves the socket connecting instead, and this waits for it.
final class ConnectWait: @unchecked Sendable {
    /// How a wait for the TCP handshake ended.
    enum Outcome: Equatable {
        /// The socket is connected: libmosquitto's loop writes the CONNECT (after the TLS handshake).
        case connected
        /// The handshake failed: the `errno` of the socket (`SO_ERROR`), e.g. `ECONNREFUSED`.
        case failed(Int32)
        /// No answer before the deadline.
        case timedOut
        /// ``raise()`` was called (a stop).
        case stopped
    }

    /// The pipe's ends (non-blocking, close-on-exec); -1 if the system refused one: then the wait
    /// wakes every 250 ms to look at the stop flag through `isStopped`.
    private let readFD: Int32
    private let writeFD: Int32

    /// Creates the stop signal.
    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        }
        (readFD, writeFD) = (ends[0], ends[1])
    }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    /// Wakes a ``waitForConnection(socket:until:isStopped:)`` under way or the next one (call after
    /// setting the stop flag).
    func raise() {
        guard writeFD >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)  // a full pipe is raised already
    }

    /// Clears a raised signal (call before looking at the stop flag, at the start of an attempt).
    func reset() {
        guard readFD >= 0 else { return }
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readFD, &bytes, bytes.count) > 0 {}
    }

    /// Waits until `socket` (connecting, non-blocking) is connected or failed, `deadline` passes or
    /// the signal is raised. `isStopped` is asked after every wake (and every 250 ms without a pipe).
    func waitForConnection(socket: Int32, until deadline: ContinuousClock.Instant,
                           isStopped: () -> Bool) -> Outcome {
        guard socket >= 0 else { return .failed(EBADF) }
        while true {
            if isStopped() { return .stopped }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            var milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            if readFD < 0 { milliseconds = min(milliseconds, 250) }
            var fds = [pollfd(fd: socket, events: Int16(POLLOUT), revents: 0),
                       pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, nfds_t(readFD >= 0 ? 2 : 1), milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed(errno)
            }
            if fds[1].revents != 0 { reset() }
            if fds[0].revents != 0 {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return .failed(errno) }
                return error == 0 ? .connected : .failed(error)
            }
        }
    }

    /// Aborts the TCP connect still under way on `socket` (Linux: `shutdown` of a socket in SYN-SENT
    /// drops the attempt), so no SYN keeps going out; libmosquitto closes the descriptor on the next
    /// connect or when the handle is destroyed.
    static func abandon(socket: Int32) {
        guard socket >= 0 else { return }
        _ = shutdown(socket, Int32(SHUT_RDWR))
    }
}
