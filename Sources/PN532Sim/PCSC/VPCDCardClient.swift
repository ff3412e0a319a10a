#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The virtual card end of vsmartcard's vpcd driver: vpcd (inside pcscd) listens on a TCP port, the
/// card program connects to it. Every frame either way is a 2-byte big-endian length and a payload;
/// a 1-byte payload from vpcd is a control message — 00h power off, 01h power on, 02h reset (none of
/// them answered), 04h get ATR (answered with the ATR) — and anything longer is a command APDU,
/// answered with the response APDU (vsmartcard `virtualsmartcard/src/vpcd/vpcd.c`, the protocol
/// table of its documentation).
///
/// The connection is the card's presence: vpcd reports a card while a program is connected and
/// answers get ATR. So the client connects while a card lies in the ``RFField`` (the first tag there
/// a PC/SC reader can name, ``PCSCAnswerToReset``), and disconnects when that tag leaves. While vpcd
/// does not listen (pcscd stopped) it retries with back-off (50 ms doubling to 1 s) and carries on
/// when vpcd is back. All I/O runs on one thread of its own, waiting in `poll(2)` on the socket and a
/// wake-up pipe (field changes, stop).
public final class VPCDCardClient: Sendable {
    /// Where vpcd listens (an IPv4 address and a port).
    public let host: String
    public let port: Int
    /// The tags in front of the emulated reader.
    public let field: RFField
    /// Counts connections (as client sessions) and APDUs (by INS) for the control channel.
    public let monitor: PN532Monitor
    /// Reader-specific answers.
    public let profile: PCSCReaderEmulation.Profile
    /// LEDs, buzzer and the never-answering fault of the emulated reader.
    public let panel: PCSCReaderPanel
    private let log: @Sendable (String) -> Void
    private let address: sockaddr_in
    private let wakePipe: WakePipe
    private let stopRequested = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    private let observerToken: UInt64

    /// Shortest and longest wait between connection attempts while vpcd does not listen.
    static let firstBackoff: Int32 = 50, lastBackoff: Int32 = 1000

    /// A client for vpcd at `host`:`port` (IPv4 dotted quad, or `localhost`); ``start()`` runs it.
    public init(host: String, port: Int, field: RFField, monitor: PN532Monitor = PN532Monitor(),
                profile: PCSCReaderEmulation.Profile = .init(), panel: PCSCReaderPanel = PCSCReaderPanel(),
                log: @escaping @Sendable (String) -> Void = { _ in })
        throws(SimulatorError)
    {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        guard (1...65535).contains(port) else { throw .usage("--vpcd port must be 1…65535, got \(port)") }
        address.sin_port = UInt16(port).bigEndian
        let numeric = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, numeric, &address.sin_addr) == 1 else {
            throw .usage("--vpcd needs an IPv4 address and a port (127.0.0.1:35963), got host '\(host)'")
        }
        do {
            wakePipe = try WakePipe()
        } catch {
            throw .vpcd("pipe: \(error.text)")
        }
        self.host = host
        self.port = port
        self.field = field
        self.monitor = monitor
        self.profile = profile
        self.panel = panel
        self.log = log
        self.address = address
        observerToken = field.addObserver(wakePipe.observer())
    }

    /// Starts the connection thread.
    public func start() {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let thread = Thread { [self] in
            run()
            stopped.signal()
        }
        thread.name = "vpcd-card"
        thread.start()
    }

    /// Disconnects and stops the thread.
    public func stop() {
        guard !stopRequested.exchange(true, ordering: .sequentiallyConsistent) else { return }
        field.removeObserver(observerToken)
        if started.load(ordering: .sequentiallyConsistent) {
            wakePipe.wake()
            stopped.wait()
        }
        wakePipe.close()
    }

    deinit { stop() }

    private var isStopRequested: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }

    /// The card to present: the first tag in the field that has a PC/SC ATR and that the reader model
    /// reads (no ISO 15693 card on an ACR122U or ACR1252U).
    private func presentableCard() -> PlacedTag? {
        let readsISO15693 = profile.model.row.readsISO15693
        return field.placedTags.first { placed in
            PCSCAnswerToReset.make(for: placed.tag) != nil && (readsISO15693 || !(placed.tag is ISO15693VirtualTag))
        }
    }

    private func run() {
        let reader = PCSCReaderEmulation(field: field, profile: profile, panel: panel)
        var backoff = Self.firstBackoff
        var refusedLogged = false
        while !isStopRequested {
            guard let card = presentableCard() else {
                waitForWake(timeout: -1)
                continue
            }
            let fd = connectToVPCD()
            guard fd >= 0 else {
                if !refusedLogged { log("vpcd: \(host):\(port) not listening; retrying") }
                refusedLogged = true
                waitForWake(timeout: backoff)
                backoff = min(backoff * 2, Self.lastBackoff)
                continue
            }
            backoff = Self.firstBackoff
            refusedLogged = false
            reader.insert(card)
            monitor.record(.connected)
            log("vpcd: connected, card \(card.id) inserted")
            let reason = serve(fd, reader: reader, card: card)
            close(fd)
            reader.eject()
            monitor.record(.disconnected)
            log("vpcd: disconnected (\(reason))")
        }
    }

    /// Sleeps until the field changes, stop, or `timeout` ms (-1 = no limit).
    private func waitForWake(timeout: Int32) {
        var fds = [pollfd(fd: wakePipe.readFD, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 1, timeout) > 0 { wakePipe.drain() }
    }

    /// A connected socket, or -1 when vpcd does not accept.
    private func connectToVPCD() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var address = self.address
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return -1
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        acknowledgeAtOnce(fd)
        return fd
    }

    /// vpcd (vsmartcard's ifd-vpcd) writes a message's 2-byte length and its bytes with two sends on a
    /// socket without TCP_NODELAY: Nagle holds the bytes until the length is acknowledged, and Linux
    /// delays that ACK by up to 40 ms (a trace of `scan`: the length, then the APDU 44-51 ms later, on
    /// every exchange). Quick-ACK mode ACKs at once; the kernel leaves it on its own, so it is set again
    /// after every receive (tcp(7), TCP_QUICKACK).
    private func acknowledgeAtOnce(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Answers vpcd until the card leaves the field, vpcd hangs up, or stop; says which.
    private func serve(_ fd: Int32, reader: PCSCReaderEmulation, card: PlacedTag) -> String {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !isStopRequested {
            guard field.isPlaced(card.placement) else { return "card \(card.id) removed" }
            var fds = [pollfd(fd: wakePipe.readFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { return "poll failed" }
            if fds[0].revents != 0 { wakePipe.drain() }
            guard fds[1].revents != 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            acknowledgeAtOnce(fd)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return "vpcd closed the connection" }
            pending += buffer.prefix(count)
            while pending.count >= 2 {
                let length = Int(pending[0]) << 8 | Int(pending[1])
                guard pending.count >= 2 + length else { break }
                let payload = Array(pending[2..<2 + length])
                pending.removeFirst(2 + length)
                if let answer = handle(payload, reader: reader), !send(answer, to: fd) { return "send failed" }
            }
        }
        return "stopped"
    }

    /// One vpcd message; the answer to send back, if any.
    private func handle(_ payload: [UInt8], reader: PCSCReaderEmulation) -> [UInt8]? {
        if payload.count == 1 {
            switch payload[0] {
            case 0x00: reader.powerOff()
            case 0x01, 0x02: reader.powerOn()
            case 0x04: return reader.atr ?? []
            default: log("vpcd: unknown control message \(payload[0].hexString)")
            }
            return nil
        }
        guard payload.count >= 2 else { return nil }
        // The never-answering card: vpcd waits for an answer that does not come.
        if panel.snapshot.isMute {
            log("apdu \(payload.hexString) -> (no answer: never_answer)")
            return nil
        }
        monitor.record(.command(code: payload[1], parameters: Array(payload.dropFirst(2))))
        let response = reader.process(payload)
        log("apdu \(payload.hexString) -> \(response.hexString)")
        return response
    }

    /// Writes one length-prefixed frame; false when vpcd is gone.
    private func send(_ payload: [UInt8], to fd: Int32) -> Bool {
        let frame = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        var offset = 0
        while offset < frame.count {
            let written = frame[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
