#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A PN532 on a pseudo-terminal that libnfc's `pn532_uart` driver drives like a real board:
/// `LIBNFC_DEFAULT_DEVICE=pn532_uart:<linkPath>`.
///
/// All I/O happens on one dedicated thread that waits in `poll(2)` on the pty master and on a
/// wake-up pipe (field changes, stop); nothing runs on Swift's cooperative pool. One client is
/// served at a time: a session starts with the first byte and ends when the client closes the pty
/// (POLLHUP / EIO), which drops a pending command; the next client starts fresh.
public final class PN532Emulator: Sendable {
    /// The tags in front of the antenna.
    public let field: RFField
    /// What happened on the host interface.
    public let monitor: PN532Monitor
    /// Serial-line and chip timing model.
    public let timing: PN532Timing
    /// The symlink clients open.
    public var linkPath: String { terminal.linkPath }
    /// The pty slave behind the link.
    public var slavePath: String { terminal.slavePath }

    private let terminal: PseudoTerminal
    /// Bytes dropped on the pty, both ways (nil: a clean line).
    public let linkLoss: LinkLoss?
    /// False: the chip answers InAutoPoll with the syntax-error frame (`--without-autopoll`).
    public let answersAutoPoll: Bool
    private let wakePipe: WakePipe
    private let stopRequested = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    private let observerToken: UInt64

    /// Opens the pty and links `linkPath` to it; call ``start()`` to serve.
    public init(linkPath: String, field: RFField, timing: PN532Timing = PN532Timing(),
                monitor: PN532Monitor = PN532Monitor(), linkLoss: LinkLoss? = nil,
                answersAutoPoll: Bool = true) throws(SimulatorError) {
        self.linkLoss = linkLoss
        self.answersAutoPoll = answersAutoPoll
        self.field = field
        self.timing = timing
        self.monitor = monitor
        terminal = try PseudoTerminal(linkPath: linkPath)
        do {
            wakePipe = try WakePipe()
        } catch {
            terminal.close()
            throw .pseudoTerminal("pipe: \(error.text)")
        }
        observerToken = field.addObserver(wakePipe.observer())
    }

    /// Starts the session thread.
    public func start() {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let thread = Thread { [self] in
            let session = PN532Session(emulator: self, chip: PN532Chip(field: field, timing: timing, answersAutoPoll: answersAutoPoll))
            session.run()
            stopped.signal()
        }
        thread.name = "pn532-session"
        thread.start()
    }

    /// Stops the session thread, closes the pty and removes the link.
    public func stop() {
        guard !stopRequested.exchange(true, ordering: .sequentiallyConsistent) else { return }
        field.removeObserver(observerToken)
        if started.load(ordering: .sequentiallyConsistent) {
            wake()
            stopped.wait()
        }
        terminal.close()
        wakePipe.close()
    }

    deinit { stop() }

    // MARK: For the session thread

    var masterFD: Int32 { terminal.masterFD }
    var wakeFD: Int32 { wakePipe.readFD }
    var isStopRequested: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }
    func resetLineSettings() { terminal.resetLineSettings() }

    private func wake() { wakePipe.wake() }

    func drainWakePipe() { wakePipe.drain() }
}

/// The session loop: reads frames, runs the chip, writes ACKs and answers, keeps one command
/// pending (a delayed answer or a wait for a tag). Lives on the emulator's thread only.
final class PN532Session {
    private struct Pending {
        let code: UInt8
        let deadline: ContinuousClock.Instant?
        /// Fixed answer data sent at the deadline, or nil for a wait.
        let answer: [UInt8]?
        let wait: PN532Wait?
    }

    private unowned let emulator: PN532Emulator
    private let chip: PN532Chip
    private let clock = ContinuousClock()
    private var decoder = PN532FrameDecoder()
    private var pending: Pending?
    private var lastAnswer: [UInt8]?
    private var isConnected = false

    /// How long to stay away from a hung-up master: POLLHUP is level-triggered.
    private static let hangupBackoff: Int32 = 20

    init(emulator: PN532Emulator, chip: PN532Chip) {
        self.emulator = emulator
        self.chip = chip
    }

    func run() {
        var hungUp = false
        while !emulator.isStopRequested {
            if let pending, let deadline = pending.deadline, clock.now >= deadline {
                self.pending = nil
                send(.response(to: pending.code, pending.answer ?? pending.wait?.giveUpAnswer ?? [0x00]), answering: pending.code)
                continue
            }
            var timeout = pollTimeout()
            var fds = [pollfd(fd: emulator.wakeFD, events: Int16(POLLIN), revents: 0)]
            if hungUp {
                timeout = timeout < 0 ? Self.hangupBackoff : min(timeout, Self.hangupBackoff)
            } else {
                fds.append(pollfd(fd: emulator.masterFD, events: Int16(POLLIN), revents: 0))
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno != EINTR { break }
            hungUp = false
            if fds[0].revents != 0 {
                drainWakePipe()
                retryWait()
            }
            guard fds.count > 1 else { continue }
            let events = Int32(fds[1].revents)
            if events & Int32(POLLIN) != 0 {
                if !readAvailable() { hungUp = true }
            } else if events & Int32(POLLHUP | POLLERR) != 0 {
                endSession()
                hungUp = true
            }
        }
    }

    /// Milliseconds until the pending deadline, -1 when none.
    private func pollTimeout() -> Int32 {
        guard let deadline = pending?.deadline else { return -1 }
        let left = deadline - clock.now
        let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, milliseconds + 1))
    }

    private func drainWakePipe() { emulator.drainWakePipe() }

    /// The field changed: a waiting command may have its tag now.
    private func retryWait() {
        guard let pending, let wait = pending.wait, let answer = wait.probe() else { return }
        self.pending = nil
        send(.response(to: pending.code, answer), answering: pending.code)
    }

    /// Reads what the client wrote; false when the client is gone.
    private func readAvailable() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = read(emulator.masterFD, &buffer, buffer.count)
            if count > 0 {
                if !isConnected {
                    isConnected = true
                    emulator.monitor.record(.connected)
                }
                let received = Array(buffer.prefix(count))
                handle(emulator.linkLoss?.pass(received) ?? received)
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return true }
            endSession()  // EIO: no process has the slave open any more
            return false
        }
    }

    private func handle(_ bytes: [UInt8]) {
        // The misframe fault: a phantom frame header of LEN FFh ahead of what the host sent.
        let phantom: [UInt8] = emulator.field.takeMisframeNextCommand() ? [0x00, 0xFF, 0xFF, 0x01] : []
        for item in decoder.decode(phantom + bytes) {
            switch item {
            case let .malformed(error):
                emulator.monitor.record(.malformed(error))
            case .frame(.ack):
                // UM0701 §6.2.1.3: an ACK from the host aborts the running command; no answer.
                if pending != nil {
                    pending = nil
                    emulator.monitor.record(.aborted)
                }
            case .frame(.nack):
                if let lastAnswer { write(lastAnswer) }
            case let .frame(frame):
                command(frame)
            }
        }
    }

    private func command(_ frame: PN532Frame) {
        guard case let .information(tfi, data) = frame else { return }
        sleep(emulator.timing.lineTime(bytes: frame.bytes.count))  // the frame's own time on the line
        write(PN532Frame.ack.bytes)
        pending = nil  // a new command replaces one still running
        guard tfi == PN532Frame.hostToChip, let code = data.first else {
            send(.syntaxError, answering: nil)
            return
        }
        emulator.monitor.record(.command(code: code, parameters: Array(data.dropFirst())))
        switch chip.handle(data) {
        case .syntaxError:
            send(.syntaxError, answering: code)
        case let .answer(answer, delay) where delay <= .zero:
            send(.response(to: code, answer), answering: code)
        case let .answer(answer, delay):
            pending = Pending(code: code, deadline: clock.now + delay, answer: answer, wait: nil)
        case let .wait(wait):
            pending = Pending(code: code, deadline: wait.timeLimit.map { clock.now + $0 }, answer: nil, wait: wait)
        }
    }

    /// Sends `frame`, the answer to command `code` (nil: to no command).
    private func send(_ frame: PN532Frame, answering code: UInt8?) {
        var bytes = frame.bytes
        lastAnswer = bytes
        // The garble_next_answer fault: DCS (the byte before the postamble, UM0701-02 §6.2.1.1)
        // inverted; a NACK gets the intact frame again.
        if bytes.count >= 2, emulator.field.takeGarbleNextAnswer(code: code) { bytes[bytes.count - 2] ^= 0xFF }
        // The cut_next_answers fault: the postamble lost on the line.
        if !bytes.isEmpty, emulator.field.takeCutAnswer(code: code) { bytes.removeLast() }
        write(bytes)
    }

    /// Writes all of `bytes` after their line time; gives up when the client is gone.
    private func write(_ frame: [UInt8]) {
        sleep(emulator.timing.lineTime(bytes: frame.count))
        let bytes = emulator.linkLoss?.pass(frame) ?? frame
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(emulator.masterFD, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                var fd = pollfd(fd: emulator.masterFD, events: Int16(POLLOUT), revents: 0)
                _ = poll(&fd, 1, 100)
            } else {
                return
            }
        }
    }

    /// The client closed the pty: forget its half-received frame and its pending command.
    private func endSession() {
        decoder.reset()
        pending = nil
        lastAnswer = nil
        guard isConnected else { return }
        isConnected = false
        emulator.resetLineSettings()
        emulator.monitor.record(.disconnected)
    }

    private func sleep(_ duration: Duration) {
        guard duration > .zero else { return }
        var request = timespec(tv_sec: Int(duration.components.seconds),
                               tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
