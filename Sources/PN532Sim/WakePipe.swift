#if canImport(Glibc)
import Glibc
#endif

/// A self-pipe that wakes a thread waiting in `poll(2)`: the PN532 session and the vpcd client poll
/// its read end next to their socket or pty, and field observers or `stop()` write to it. Both ends
/// are non-blocking and close-on-exec.
final class WakePipe: Sendable {
    /// The end to poll for POLLIN.
    let readFD: Int32
    private let writeFD: Int32

    /// Opens the pipe; the error text says why not.
    init() throws(WakePipeError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw WakePipeError(text: PseudoTerminal.errorText()) }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    /// Wakes the poller (a full pipe already will).
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Empties the pipe after a wake-up.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }

    /// A field observer that wakes the poller on every change.
    func observer() -> @Sendable () -> Void {
        { [self] in wake() }
    }

    /// Closes both ends.
    func close() {
        _ = Glibc.close(readFD)
        _ = Glibc.close(writeFD)
    }
}

/// `pipe(2)` failed.
struct WakePipeError: Error {
    let text: String
}
