import Glibc
import POSIXThreads

/// SIGINT and SIGTERM: caught from the first line of `main` by a handler that writes the signal's
/// number into a pipe (the self-pipe pattern; `write` is async-signal-safe), and acted on by one
/// thread that reads the pipe.
///
/// Why not a Dispatch signal source: it needs the signal ignored (`SIG_IGN`) first and registers
/// its own handler later, from Dispatch's thread. libdispatch parks the main thread in
/// `sigsuspend` with no signal blocked, so a SIGTERM in between reached the main thread while
/// ignored and was gone: `nfcbridge run` then never stopped (seen in a test under load). Here the
/// handler is in place before any other thread exists, and nothing is ever ignored.
///
/// While a command has a handler (``handling(with:_:)``), each signal goes to it; otherwise the
/// signal does what it always does (the default action ends the process), so `export` or `ndef`
/// stop on Ctrl-C as any program.
enum StopSignals {
    /// The pipe's write end, for the signal handler (set once, before the handler is installed).
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1
    /// The handler of the command that runs now.
    private static let handler = CallbackSlot<Int32>()

    /// Installs the SIGINT / SIGTERM handler and starts the thread that acts on them. Call once,
    /// first thing in `main`. When the pipe or the thread cannot be made, the signals keep their
    /// default action (they end the process).
    static func install() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // Never block in the handler: a full pipe already holds a signal to act on.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        let readEnd = ends[0]
        let started = startThread(name: "nfcbridge-sig") {
            while true {
                var byte: UInt8 = 0
                let count = read(readEnd, &byte, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1 else { return }
                let signalNumber = Int32(byte)
                if !handler(signalNumber) { defaultAction(signalNumber) }
            }
        }
        guard started else {
            close(ends[0])
            close(ends[1])
            return
        }
        pipeWriteEnd = ends[1]
        for signalNumber in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signalNumber in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: signalNumber)
                _ = write(StopSignals.pipeWriteEnd, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }

    /// Runs `body` with every SIGINT / SIGTERM going to `handler` (on the signal thread) until it returns.
    static func handling<T>(
        with handler: @escaping @Sendable (Int32) -> Void, _ body: () async throws -> T
    ) async rethrows -> T {
        Self.handler.set(handler)
        defer { Self.handler.set(nil) }
        return try await body()
    }

    /// SIGINT / SIGTERM with no handler: the default action (the process ends by the signal). The
    /// signal thread may have been started from a thread that blocks signals: unblocked here first.
    private static func defaultAction(_ signalNumber: Int32) {
        signal(signalNumber, SIG_DFL)
        var one = sigset_t()
        sigemptyset(&one)
        sigaddset(&one, signalNumber)
        pthread_sigmask(SIG_UNBLOCK, &one, nil)
        raise(signalNumber)
    }
}
