import Foundation
import PN532Sim
import Testing

@testable import NFCBridge

@Suite struct AgentLoggerTests {
    @Test func journaldLinesCarryTheSyslogPriority() {
        let recorder = LogRecorder()
        let logger = AgentLogger(level: .info, journald: true, clock: ManualClock(), sink: recorder.sink)
        logger.debug("hidden")
        logger.info("reader opened")
        logger.warning("two\nlines")
        logger.error("failed")
        #expect(recorder.recorded == ["<6>reader opened", "<4>two lines", "<3>failed"])
    }

    @Test func plainLinesCarryTimeAndLevel() {
        let recorder = LogRecorder()
        let logger = AgentLogger(level: .debug, journald: false, clock: ManualClock(), sink: recorder.sink)
        logger.debug("polling")
        #expect(recorder.recorded == ["2026-01-01T00:00:00.000Z debug: polling"])
    }
}

/// The real sd_notify path: a datagram socket stands in for systemd's NOTIFY_SOCKET.
@Suite(.serialized, .timeLimit(.minutes(1))) struct SystemdNotifierTests {
    /// A bound unix datagram socket collecting what sd_notify sends.
    final class NotifySocket: @unchecked Sendable {
        let path: String
        let fd: Int32

        init() throws {
            path = NSTemporaryDirectory() + "nfcbridge-notify-\(UUID().uuidString.prefix(8))"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (i, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[i] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard fd >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        }

        deinit {
            close(fd)
            unlink(path)
        }

        /// The next datagram (blocks on a thread of its own, not the cooperative pool).
        func receive() async -> String {
            await withCheckedContinuation { continuation in
                Thread {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    let count = recv(self.fd, &buffer, buffer.count, 0)
                    continuation.resume(returning: String(decoding: buffer.prefix(max(0, count)), as: UTF8.self))
                }.start()
            }
        }
    }

    @Test func readyWatchdogAndStoppingReachSystemd() async throws {
        let socket = try NotifySocket()
        // The socket and the watchdog period are handed over: the process environment, which child
        // processes of concurrently running tests inherit, is never touched.
        let notifier = SystemdNotifier(socketPath: socket.path, watchdogInterval: .milliseconds(200))

        let directory = StateDirectory()
        var config = AgentConfiguration(id: "test")
        config.stateDirectory = directory.path
        var settings = ReaderLoop.Settings(config)
        settings.modulations = [.iso14443a]
        settings.interval = .milliseconds(5)
        let agent = try Agent(
            configuration: config, publisher: InMemoryPublisher(), device: VirtualReaderDevice(), scanner: StubScanner(),
            logger: AgentLogger(level: .error, journald: false, sink: { _ in }), notifier: notifier,
            readerLoopSettings: settings)
        let running = Task { await agent.run() }
        var received: [String] = []
        while !received.contains("WATCHDOG=1") { received.append(await socket.receive()) }
        #expect(received.first == "READY=1")
        agent.stop()
        while !received.contains("STOPPING=1") { received.append(await socket.receive()) }
        await running.value
    }

    @Test func theEnvironmentSystemdSetsUpIsReadAsGiven() {
        let pid = getpid()
        let notifier = SystemdNotifier(
            environment: ["NOTIFY_SOCKET": "/run/systemd/notify", "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "\(pid)"],
            processID: pid)
        #expect(notifier.socketPath == "/run/systemd/notify")
        #expect(notifier.watchdogInterval == .milliseconds(200))
        // The watchdog belongs to another process (a child that inherited the variables).
        let child = SystemdNotifier(environment: ["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "\(pid)"], processID: pid + 1)
        #expect(child.watchdogInterval == nil)
    }

    @Test func withoutSystemdNothingHappens() {
        let notifier = SystemdNotifier(environment: [:])
        notifier.notify("READY=1")
        #expect(notifier.socketPath == nil)
        #expect(notifier.watchdogInterval == nil)
    }
}
