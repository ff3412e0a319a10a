import Foundation
import NFCCore
import Testing
@testable import PN532Sim

/// A bare-bones host on the pty: writes frames, reads frames back (no libnfc in between).
final class RawPTYClient {
    let fd: Int32
    private var decoder = PN532FrameDecoder()
    private var frames: [PN532Frame] = []

    init(path: String) throws {
        fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw SimulatorError.pseudoTerminal("open \(path) failed") }
        var attributes = termios()
        tcgetattr(fd, &attributes)
        cfmakeraw(&attributes)
        tcsetattr(fd, TCSANOW, &attributes)
    }

    deinit { close() }

    func close() { _ = Glibc.close(fd) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    func send(_ frame: PN532Frame) { send(frame.bytes) }

    /// The next frame from the chip; nil when none arrives within `timeout`.
    func nextFrame(timeout: Int32 = 5000) -> PN532Frame? {
        while frames.isEmpty {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, timeout) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            for item in decoder.decode(Array(buffer.prefix(count))) {
                if case let .frame(frame) = item { frames.append(frame) }
            }
        }
        return frames.removeFirst()
    }
}

/// The emulator behind a real pty: framing, ACK/NACK, abort, replacement and client sessions.
@Suite(.serialized) struct PN532EmulatorTests {
    func withEmulator(_ tags: [(String, any VirtualTag)] = [], _ body: (PN532Emulator, RawPTYClient) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pn532-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let field = RFField()
        for (id, tag) in tags { field.place(tag, id: id) }
        let emulator = try PN532Emulator(linkPath: directory.appendingPathComponent("pn532.tty").path, field: field)
        emulator.start()
        defer { emulator.stop() }
        let client = try RawPTYClient(path: emulator.linkPath)
        defer { client.close() }
        try body(emulator, client)
    }

    static let firmware = PN532Frame.response(to: 0x02, [0x32, 0x01, 0x06, 0x07])

    @Test func ackComesBeforeTheAnswer() throws {
        try withEmulator { _, client in
            client.send(.command(0x02))
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == Self.firmware)
        }
    }

    @Test func wakeUpPreambleIsSkipped() throws {
        try withEmulator { _, client in
            client.send([0x55, 0x55] + [UInt8](repeating: 0, count: 14) + PN532Frame.command(0x14, [0x01]).bytes)
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == .response(to: 0x14))
        }
    }

    @Test func unknownCommandGetsTheErrorFrame() throws {
        try withEmulator { _, client in
            client.send(.command(0x8C, [0x00]))
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == .syntaxError)
        }
    }

    @Test func nackAsksForTheLastAnswerAgain() throws {
        try withEmulator { _, client in
            client.send(.command(0x02))
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == Self.firmware)
            client.send(.nack)
            #expect(client.nextFrame() == Self.firmware)
        }
    }

    @Test func frameWithBadChecksumIsIgnored() throws {
        try withEmulator { _, client in
            var broken = PN532Frame.command(0x4A, [0x01, 0x00]).bytes
            broken[broken.count - 2] ^= 0xFF
            client.send(broken)
            client.send(.command(0x02))
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == Self.firmware)
        }
    }

    @Test func hostAckAbortsAWaitingAutoPoll() throws {
        try withEmulator { emulator, client in
            client.send(.command(0x60, [0xFF, 0x01, 0x10]))
            #expect(client.nextFrame() == .ack)
            client.send(.ack)
            #expect(emulator.monitor.wait(timeout: .seconds(5)) { $0.aborts == 1 })
            let listed = SimulatorControl(field: emulator.field, catalog: TagCatalog(), monitor: emulator.monitor)
                .handle(line: #"{"cmd":"list"}"#)
            #expect(listed.contains(#""aborts":1"#), "\(listed)")
            // A tag arriving now must not answer the aborted poll: the next frames are the ACK
            // and answer of the next command.
            emulator.field.place(TestType2Tag(), id: "late")
            client.send(.command(0x02))
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == Self.firmware)
        }
    }

    @Test func waitingCommandIsAnsweredWhenATagArrives() throws {
        try withEmulator { emulator, client in
            client.send(.command(0x60, [0xFF, 0x01, 0x20, 0x10]))
            #expect(client.nextFrame() == .ack)
            emulator.field.place(TestType2Tag(), id: "late")
            let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
            #expect(client.nextFrame() == .response(to: 0x60, [0x01, 0x10, 0x0C, 0x01, 0x00, 0x44, 0x00, 0x07] + uid))
        }
    }

    @Test func newCommandReplacesAWaitingOne() throws {
        try withEmulator { emulator, client in
            client.send(.command(0x4A, [0x01, 0x00]))  // MxRtyPassiveActivation is FF after reset: waits
            #expect(client.nextFrame() == .ack)
            client.send(.command(0x02))
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == Self.firmware)
            emulator.field.place(TestType2Tag(), id: "late")
            client.send(.command(0x02))
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == Self.firmware)
        }
    }

    @Test func silentTagIsAnsweredWithTimeoutStatusAfterTheRetryTime() throws {
        try withEmulator([("ntag", TestType2Tag())]) { _, client in
            client.send(.command(0x32, [0x05, 0x00, 0x01, 0x02]))
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == .response(to: 0x32))
            client.send(.command(0x4A, [0x01, 0x00]))
            #expect(client.nextFrame() == .ack)
            let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
            #expect(client.nextFrame() == .response(to: 0x4A, [0x01, 0x01, 0x00, 0x44, 0x00, 0x07] + uid))
            client.send(.command(0x40, [0x01, 0x50, 0x00]))  // HLTA: the tag says nothing
            #expect(client.nextFrame() == .ack)
            #expect(client.nextFrame() == .response(to: 0x40, [0x01]))
        }
    }

    @Test func aNewClientStartsAFreshSession() throws {
        try withEmulator { emulator, first in
            first.send(.command(0x60, [0xFF, 0x01, 0x10]))
            #expect(first.nextFrame() == .ack)
            first.close()
            #expect(emulator.monitor.wait(timeout: .seconds(5)) { !$0.isClientConnected && $0.sessions == 1 })
            // The first client's pending InAutoPoll died with its session: a tag now answers nothing.
            emulator.field.place(TestType2Tag(), id: "late")
            let second = try RawPTYClient(path: emulator.linkPath)
            defer { second.close() }
            second.send(.command(0x02))
            #expect(second.nextFrame() == .ack)
            #expect(second.nextFrame() == Self.firmware)
            #expect(emulator.monitor.snapshot.sessions == 2)
        }
    }

    @Test func linkPathMustNotContainAColon() {
        #expect(throws: SimulatorError.self) { try PN532Emulator(linkPath: "/tmp/pn532:sim", field: RFField()) }
    }

    @Test func stopRemovesTheLink() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pn532-\(UUID().uuidString).tty").path
        let emulator = try PN532Emulator(linkPath: path, field: RFField())
        emulator.start()
        #expect(FileManager.default.fileExists(atPath: path))
        emulator.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func lineTimeModelsTheBaudRate() {
        #expect(PN532Timing(baudRate: 115200).lineTime(bytes: 1) == .nanoseconds(86805))
        #expect(PN532Timing().lineTime(bytes: 100) == .zero)
        #expect(PN532Timing.retryTimeout(code: 0x0A) == .microseconds(51200))
    }
}
