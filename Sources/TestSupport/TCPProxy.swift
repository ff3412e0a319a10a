import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on 127.0.0.1 that forwards every connection to `127.0.0.1:targetPort`, and can cut
/// them all at once — the network dying under a client, without the client's cooperation. The
/// broker sees the connection end without a DISCONNECT (so it publishes the client's will); the
/// client sees its socket close.
///
/// One thread accepts, one thread per connection relays; `close()` (and `deinit`) stop them all and
/// wait for them.
public final class TCPProxy: @unchecked Sendable {
    /// The port clients connect to.
    public let port: Int
    /// The port connections are relayed to.
    public let targetPort: Int

    private let listener: Int32
    private let wake: (read: Int32, write: Int32)
    private let threads = DispatchGroup()
    private let lock = NSLock()
    private var links: [ObjectIdentifier: Link] = [:]
    private var isClosed = false
    private var acceptedCount = 0
    private var refusal: MQTT5Refusal?
    private var refusedCount = 0
    private var closesLeft = 0
    private var closedCount = 0
    private var freezesAfterReply = false
    /// Bytes relayed from clients to the target so far, under its own condition for waiters.
    private let relayed = NSCondition()
    private var upstreamBytes = 0
    /// MQTT packets frozen links took from their clients and held, by packet type (under `relayed`).
    private var heldPacketCounts: [UInt8: Int] = [:]

    private final class Link: @unchecked Sendable {
        let client: Int32
        let upstream: Int32
        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }
    }

    /// What the proxy does with an MQTT 5 CONNECT, to stand for a broker that speaks only MQTT 3.1.1
    /// in front of one that speaks both (``refuseMQTT5(_:)``).
    public enum MQTT5Refusal: Sendable {
        /// Closes the connection without a CONNACK, as RabbitMQ 3.10's MQTT plugin does.
        case close
        /// Answers the 3.1.1 CONNACK "unacceptable protocol version" (`20 02 00 01`, MQTT 3.1.1
        /// §3.2.2.3 return code 1), then closes, as a 3.1.1 broker following the spec does.
        case unacceptableVersion
    }

    /// From now on, an MQTT 5 CONNECT (protocol level 5, the first packet of a connection) is refused
    /// as `refusal` says and never reaches the target; MQTT 3.1.1 connections are relayed as before.
    /// The CONNECT must come in the connection's first read (libmosquitto writes it in one piece).
    public func refuseMQTT5(_ refusal: MQTT5Refusal) {
        lock.withLock { self.refusal = refusal }
    }

    /// The next `count` connections, whatever their protocol, are closed after their first read (the
    /// CONNECT) without a CONNACK and never reach the target: a broker going down, or restarting,
    /// after it accepted the connection. Then connections are relayed (or refused) as before.
    public func closeAfterConnect(next count: Int) {
        lock.withLock { closesLeft = count }
    }

    /// The next connection is relayed until the target's first reply (a broker's CONNACK) has reached
    /// the client; from then on nothing passes either way and both sockets stay open until cut
    /// (``cutConnections()``, ``close()``) or closed by the client: a broker that stalls right after
    /// accepting a client. What the client sends meanwhile is read and held (``heldPackets(ofType:)``).
    public func freezeAfterFirstReply() {
        lock.withLock { freezesAfterReply = true }
    }

    /// Whole MQTT packets of `type` (the high nibble of the first byte: 3 PUBLISH, 8 SUBSCRIBE) that
    /// frozen connections took from their clients and held so far.
    public func heldPackets(ofType type: UInt8) -> Int {
        relayed.lock()
        defer { relayed.unlock() }
        return heldPacketCounts[type] ?? 0
    }

    /// Waits (on a thread of its own) until frozen connections held at least `count` packets of
    /// `type`; false after `timeout`.
    public func heldPackets(ofType type: UInt8, atLeast count: Int, timeout: TimeInterval = 30) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread {
                let deadline = Date(timeIntervalSinceNow: timeout)
                self.relayed.lock()
                defer { self.relayed.unlock() }
                while self.heldPacketCounts[type] ?? 0 < count {
                    if !self.relayed.wait(until: deadline) { break }
                }
                continuation.resume(returning: self.heldPacketCounts[type] ?? 0 >= count)
            }.start()
        }
    }

    /// Connections closed so far by ``closeAfterConnect(next:)``.
    public var closedAfterConnect: Int { lock.withLock { closedCount } }

    /// MQTT 5 CONNECTs refused so far (``refuseMQTT5(_:)``).
    public var refusedMQTT5Connects: Int { lock.withLock { refusedCount } }

    /// The protocol level of an MQTT CONNECT at the start of `bytes` (MQTT 3.1.1 §3.1.2.2: 4, MQTT 5.0: 5),
    /// nil when `bytes` do not start with a whole CONNECT variable header.
    static func connectLevel(_ bytes: ArraySlice<UInt8>) -> UInt8? {
        guard bytes.first == 0x10 else { return nil }
        // The Remaining Length: 1–4 bytes, 7 bits each, the top bit says another follows.
        var index = bytes.startIndex + 1
        while index < bytes.endIndex, bytes[index] & 0x80 != 0, index < bytes.startIndex + 4 { index += 1 }
        let name = index + 1
        guard name + 6 < bytes.endIndex, Array(bytes[name..<name + 6]) == [0x00, 0x04] + Array("MQTT".utf8) else { return nil }
        return bytes[name + 6]
    }

    /// Listens on a free loopback port and starts relaying to `targetPort`.
    public init(targetPort: Int) throws {
        self.targetPort = targetPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackPortError("socket() failed: \(String(cString: strerror(errno)))") }
        var address = LoopbackPort.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        var pipeFDs: [Int32] = [0, 0]
        guard ok, pipe(&pipeFDs) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw LoopbackPortError("proxy listener set-up failed: \(reason)")
        }
        self.listener = fd
        self.wake = (pipeFDs[0], pipeFDs[1])
        self.port = Int(UInt16(bigEndian: address.sin_port))
        threads.enter()
        Thread { [self] in acceptLoop(); threads.leave() }.start()
    }

    deinit {
        close()
    }

    /// How many connections the proxy has accepted so far.
    public var acceptedConnections: Int { lock.withLock { acceptedCount } }

    /// Bytes relayed from clients to the target so far (all connections).
    public var bytesToTarget: Int {
        relayed.lock()
        defer { relayed.unlock() }
        return upstreamBytes
    }

    /// Waits until more than `count` bytes went from clients to the target — e.g. a client's
    /// PUBLISH passed, so it is on its way even when the target does not answer. False after `timeout`.
    public func waitForBytesToTarget(moreThan count: Int, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        relayed.lock()
        defer { relayed.unlock() }
        while upstreamBytes <= count {
            if !relayed.wait(until: deadline) { return upstreamBytes > count }
        }
        return true
    }

    /// ``waitForBytesToTarget(moreThan:timeout:)`` on a thread of its own, so that a test awaiting
    /// it keeps Swift's cooperative threads free (for the very task that is to send those bytes).
    public func bytesToTarget(moreThan count: Int, timeout: TimeInterval = 30) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread { continuation.resume(returning: self.waitForBytesToTarget(moreThan: count, timeout: timeout)) }.start()
        }
    }

    /// Cuts every relayed connection now (both sides shut down); new connections are still accepted.
    public func cutConnections() {
        lock.withLock {
            for link in links.values {
                shutdown(link.client, Int32(SHUT_RDWR))
                shutdown(link.upstream, Int32(SHUT_RDWR))
            }
        }
    }

    /// Stops accepting, cuts every connection and waits for the relay threads to end.
    public func close() {
        let first = lock.withLock { () -> Bool in
            defer { isClosed = true }
            return !isClosed
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        cutConnections()
        threads.wait()
        Glibc.close(listener)
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    private func acceptLoop() {
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { return }
            if fds[1].revents != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var target = LoopbackPort.loopback(port: targetPort)
            let connected = upstream >= 0 && withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                Glibc.close(client)
                if upstream >= 0 { Glibc.close(upstream) }
                continue
            }
            let link = Link(client: client, upstream: upstream)
            let accepted = lock.withLock { () -> Bool in
                guard !isClosed else { return false }
                links[ObjectIdentifier(link)] = link
                acceptedCount += 1
                return true
            }
            guard accepted else {
                Glibc.close(client)
                Glibc.close(upstream)
                return
            }
            threads.enter()
            Thread { [self] in relay(link); threads.leave() }.start()
        }
    }

    /// Copies bytes both ways until either side ends, then closes both.
    private func relay(_ link: Link) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var first = true
        var firstReply = true
        loop: while true {
            var fds = [pollfd(fd: link.client, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: link.upstream, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { break }
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let from = index == 0 ? link.client : link.upstream
                let to = index == 0 ? link.upstream : link.client
                let count = read(from, &buffer, buffer.count)
                guard count > 0 else { break loop }
                if index == 0, first {
                    first = false
                    let closing = lock.withLock { () -> Bool in
                        guard closesLeft > 0 else { return false }
                        closesLeft -= 1
                        closedCount += 1
                        return true
                    }
                    if closing { break loop }
                    let refusal = lock.withLock { self.refusal }
                    if let refusal, Self.connectLevel(buffer[0..<count]) == 5 {
                        lock.withLock { refusedCount += 1 }
                        if refusal == .unacceptableVersion {
                            let connack: [UInt8] = [0x20, 0x02, 0x00, 0x01]
                            _ = connack.withUnsafeBytes { send(link.client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        }
                        break loop
                    }
                }
                var offset = 0
                while offset < count {
                    // MSG_NOSIGNAL: a peer that went away must not raise SIGPIPE in the test process.
                    let sent = buffer[offset..<count].withUnsafeBytes {
                        send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                    }
                    guard sent > 0 else { break loop }
                    offset += sent
                    if index == 0 {
                        relayed.lock()
                        upstreamBytes += sent
                        relayed.broadcast()
                        relayed.unlock()
                    }
                }
                if index == 1, firstReply {
                    firstReply = false
                    let freezing = lock.withLock { () -> Bool in
                        defer { freezesAfterReply = false }
                        return freezesAfterReply
                    }
                    if freezing {
                        waitUntilCut(link)
                        break loop
                    }
                }
            }
        }
        lock.withLock {
            links[ObjectIdentifier(link)] = nil
            Glibc.close(link.client)
            Glibc.close(link.upstream)
        }
    }

    /// A frozen link: relays nothing; reads and holds what the client sends (counting its packets),
    /// until ``cutConnections()`` shuts its sockets or the client closes.
    private func waitUntilCut(_ link: Link) {
        var held: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        // Nothing asked of the target's side: poll still reports the hang-up of a socket shut down both ways.
        var fds = [pollfd(fd: link.client, events: Int16(POLLIN), revents: 0), pollfd(fd: link.upstream, events: 0, revents: 0)]
        while poll(&fds, 2, -1) >= 0 || errno == EINTR {
            if fds[1].revents != 0 { return }
            guard fds[0].revents != 0 else { continue }
            let count = read(link.client, &buffer, buffer.count)
            guard count > 0 else { return }
            held += buffer[0..<count]
            while let (type, length) = Self.firstPacket(held) {
                held.removeFirst(length)
                relayed.lock()
                heldPacketCounts[type, default: 0] += 1
                relayed.broadcast()
                relayed.unlock()
            }
        }
    }

    /// The type and whole length of the MQTT packet at the start of `bytes`, nil while it is not
    /// complete (MQTT 5.0 §2.1: a type byte, then the Remaining Length in 1–4 bytes of 7 bits).
    static func firstPacket(_ bytes: [UInt8]) -> (type: UInt8, length: Int)? {
        guard let first = bytes.first else { return nil }
        var remaining = 0
        for index in 1...4 {
            guard index < bytes.count else { return nil }
            remaining |= Int(bytes[index] & 0x7F) << (7 * (index - 1))
            if bytes[index] & 0x80 == 0 {
                let length = index + 1 + remaining
                return length <= bytes.count ? (first >> 4, length) : nil
            }
        }
        return nil
    }
}
