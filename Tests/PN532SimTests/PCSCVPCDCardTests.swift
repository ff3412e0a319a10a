import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The real `nfcbridge-sim --vpcd` process against a test that plays vsmartcard's vpcd: the test
/// listens on a random 127.0.0.1 port, the card program connects while a tag lies in its field, and
/// the test sends vpcd's control messages and APDUs (2-byte big-endian length + payload) and checks
/// the answers, and the memory through the control channel. (The real pcscd + vpcd tests are the
/// PC/SC backend's, in Tests/EndToEndTests/PCSC*.swift.)
@Suite struct PCSCVPCDCardTests {
    static let scenario = """
        tags:
          - id: poster
            type: ntag215
            uid: 04A1A2A3A4A5A6
          - id: badge
            type: classic_1k
            uid: DEADBEEF
        timeline:
          - at: 0
            place: [poster]
        """

    @Test func cardAnswersVPCDAndIsInsertedAndRemovedWithItsTag() throws {
        let vpcd = try FakeVPCD()
        try vpcd.listen()
        let card = try VPCDCardProcess(port: vpcd.port, scenario: Self.scenario)
        defer { card.stop() }
        try vpcd.accept()
        try vpcd.send([0x01])  // power on: no answer
        #expect(try vpcd.exchange([0x04]).hexString == "3B8F8001804F0CA0000003060300030000000068")
        #expect(try vpcd.exchange("FFCA000000").hexString == "04A1A2A3A4A5A69000")
        #expect(try vpcd.exchange("FFD6000404DEADBEEF").hexString == "9000")
        #expect(try vpcd.exchange("FFB0000404").hexString == "DEADBEEF9000")
        let memory = try #require(try card.dump("poster")["memory"] as? String)
        #expect(memory.dropFirst(32).prefix(8) == "DEADBEEF")
        let listed = try card.control(["cmd": "list"])
        #expect(listed["client_connected"] as? Bool == true)
        #expect((listed["commands"] as? [String: Int])?["D6"] == 1, "APDUs are counted by INS")

        // Taking the tag away disconnects the card program (vpcd: card absent) …
        try card.remove("poster")
        #expect(try vpcd.waitForHangUp())
        // … and another tag connects it again, with its own ATR.
        try card.place("badge")
        try vpcd.accept()
        try vpcd.send([0x01])
        #expect(try vpcd.exchange([0x04]).hexString == "3B8F8001804F0CA000000306030001000000006A")
        #expect(try vpcd.exchange("FF82000006FFFFFFFFFFFF").hexString == "9000")
        #expect(try vpcd.exchange("FF860000050100046000").hexString == "9000")
        #expect(try vpcd.exchange("FFD6000410" + "000102030405060708090A0B0C0D0E0F").hexString == "9000")
        let blocks = try #require(try card.dump("badge")["memory"] as? String)
        #expect(blocks.dropFirst(4 * 32).prefix(32) == "000102030405060708090A0B0C0D0E0F")
        try vpcd.send([0x00])  // power off: the authentication is gone
        try vpcd.send([0x01])
        #expect(try vpcd.exchange("FFB0000410").hexString == "6982")
    }

    @Test func cardWaitsForVPCDWithBackOffAndConnectsOnceItListens() throws {
        let vpcd = try FakeVPCD()  // bound, not listening: connections are refused, as with pcscd stopped
        let card = try VPCDCardProcess(port: vpcd.port, scenario: Self.scenario, arguments: ["--trace"])
        defer { card.stop() }
        #expect(card.process.waitForErrorOutput("not listening; retrying"))
        #expect(try card.control(["cmd": "list"])["client_connected"] as? Bool == false)
        try vpcd.listen()
        try vpcd.accept()
        #expect(try vpcd.exchange([0x04]).hexString == "3B8F8001804F0CA0000003060300030000000068")
        #expect(try vpcd.exchange("FFCA000000").hexString == "04A1A2A3A4A5A69000")
        #expect(card.process.waitForErrorOutput("apdu FFCA000000 -> 04A1A2A3A4A5A69000"))
        // vpcd goes away (pcscd stopped) and comes back on the same port: the card reconnects.
        vpcd.closeConnection()
        try vpcd.accept()
        #expect(try vpcd.exchange([0x04]).count == 20)
    }

    @Test func theTimelineSwapsTheCard() throws {
        let vpcd = try FakeVPCD()
        try vpcd.listen()
        let scenario = Self.scenario + "\n  - at: 0.5\n    remove: [poster]\n    place: [badge]\n"
        let card = try VPCDCardProcess(port: vpcd.port, scenario: scenario)
        defer { card.stop() }
        // Whenever the test gets to it: the poster's connection ends, and the badge's follows.
        try vpcd.accept()
        #expect(try vpcd.waitForHangUp())
        try vpcd.accept()
        #expect(try vpcd.exchange([0x04]).hexString == "3B8F8001804F0CA000000306030001000000006A")
        #expect(try card.control(["cmd": "list"])["field"] as? [String] == ["badge"])
    }

    @Test func emptyFieldMeansNoCard() throws {
        let vpcd = try FakeVPCD()
        try vpcd.listen()
        let card = try VPCDCardProcess(port: vpcd.port, scenario: "tags:\n  - id: t\n    type: type4\n")
        defer { card.stop() }
        #expect(try card.control(["cmd": "list"])["client_connected"] as? Bool == false)
        try card.place("t")
        try vpcd.accept()
        #expect(try vpcd.exchange([0x04]).hexString == "3B8180018080")
        #expect(try vpcd.exchange("00A4040007D276000085010100").hexString == "9000")
    }

    @Test func iso15693TagPlacedOnTheControlChannelIsReadAndWrittenPastBlock255() throws {
        let vpcd = try FakeVPCD()
        try vpcd.listen()
        let card = try VPCDCardProcess(port: vpcd.port)
        defer { card.stop() }
        let placed = try card.control(["cmd": "place", "tag": ["id": "sensor", "type": "st25dv64k", "uid": "E002260011223344"]])
        #expect(placed["ok"] as? Bool == true)
        try vpcd.accept()
        try vpcd.send([0x01])
        #expect(try vpcd.exchange([0x04]).hexString == "3B8F8001804F0CA0000003060B00000000000063")
        #expect(try vpcd.exchange("FFD6040004CAFEF00D").hexString == "9000")
        #expect(try vpcd.exchange("FFB0040004").hexString == "CAFEF00D9000")
        let dump = try card.dump("sensor")
        #expect(dump["unit"] as? Int == 4)
        let memory = try #require(dump["memory"] as? String)
        #expect(memory.count == 2048 * 8)
        #expect(memory.dropFirst(1024 * 8).prefix(8) == "CAFEF00D", "block 1024")
    }

    @Test func vpcdAndLinkAreExclusive() throws {
        let both = try runProcess(Binaries.path("nfcbridge-sim"), ["--vpcd", "127.0.0.1:35963", "--link", "/tmp/x"])
        #expect(both.status == 2)
        #expect(both.err.contains("not both"))
        let bad = try runProcess(Binaries.path("nfcbridge-sim"), ["--vpcd", "127.0.0.1"])
        #expect(bad.status == 2)
        #expect(bad.err.contains("HOST:PORT"))
        let host = try runProcess(Binaries.path("nfcbridge-sim"), ["--vpcd", "pcscd.example:35963"])
        #expect(host.status == 2)
        #expect(host.err.contains("IPv4"))
    }
}

/// Plays vsmartcard's vpcd for a test: a TCP socket on a random 127.0.0.1 port that the card program
/// connects to. Waits are bounded (30 s) so a broken card fails the test instead of hanging it.
final class FakeVPCD {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let port: Int
    private let listenFD: Int32
    private var connection: Int32 = -1
    private static let waitMilliseconds: Int32 = 30_000

    /// Binds a free port (not yet listening: connections to it are refused until ``listen()``).
    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = LoopbackPort.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(fd)
            throw Failure(description: "bind failed: \(String(cString: strerror(errno)))")
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        closeConnection()
        close(listenFD)
    }

    func listen() throws {
        guard Glibc.listen(listenFD, 4) == 0 else { throw Failure(description: "listen failed") }
    }

    /// Waits for the card program to connect.
    func accept() throws {
        closeConnection()
        var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
        guard poll(&fds, 1, Self.waitMilliseconds) == 1 else { throw Failure(description: "the card did not connect") }
        connection = Glibc.accept(listenFD, nil, nil)
        guard connection >= 0 else { throw Failure(description: "accept failed") }
    }

    /// Hangs up on the card (vpcd going away).
    func closeConnection() {
        if connection >= 0 { close(connection) }
        connection = -1
    }

    /// Sends one frame (a control message or an APDU).
    func send(_ payload: [UInt8]) throws {
        let frame = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        guard frame.withUnsafeBytes({ Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == frame.count else {
            throw Failure(description: "send failed")
        }
    }

    /// Sends `payload` and returns the card's answer frame.
    func exchange(_ payload: [UInt8]) throws -> [UInt8] {
        try send(payload)
        let header = try read(2)
        return try read(Int(header[0]) << 8 | Int(header[1]))
    }

    /// `exchange` for an APDU written in hex.
    func exchange(_ hex: String) throws -> [UInt8] {
        try exchange(stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
        })
    }

    /// True when the card program closed the connection.
    func waitForHangUp() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            var fds = [pollfd(fd: connection, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, Self.waitMilliseconds) == 1 else { return false }
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return true }
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: max(count, 1))
        while bytes.count < count {
            var fds = [pollfd(fd: connection, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, Self.waitMilliseconds) == 1 else { throw Failure(description: "no answer from the card") }
            let got = recv(connection, &buffer, count - bytes.count, 0)
            guard got > 0 else { throw Failure(description: "the card hung up") }
            bytes += buffer.prefix(got)
        }
        return bytes
    }
}
