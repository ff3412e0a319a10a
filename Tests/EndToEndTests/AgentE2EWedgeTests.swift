import Foundation
import MQTTClient
import Synchronization
import Testing
import TestSupport

/// `nfcbridge run` end to end with a reader that stops answering without going away (the
/// simulator stopped with SIGSTOP: its pty stays, nothing answers) and the systemd watchdog, seen
/// through a `NOTIFY_SOCKET` the test owns.
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentE2EWedgeTests {
    static let scenario = """
        tags:
          - {id: first, type: ntag215, uid: 04A1B2C3D4E5F6}
        """

    @Test func aReaderThatStopsAnsweringIsErrorWithAnEventThenOKOnceItAnswersAgain() async throws {
        try await withAgentRun(.init(scenario: Self.scenario)) { run in
            let (simulator, watcher, agent) = (run.simulator, run.watcher, run.agent)
            let (okAt, _, _) = await watcher.next("reader") { $0["state"] as? String == "ok" }
            // Polling the empty field: the chip's own poll (InAutoPoll) answered once, the next one runs.
            try await simulator.waitForCommand("60", count: 2)

            // (The run lets a stopped simulator go on before it terminates it.)
            simulator.process.send(SIGSTOP)
            let (silentAt, silent, _) = await watcher.next("reader", after: okAt) { $0["state"] as? String == "error" }
            let detail = silent["detail"] as? String ?? ""
            #expect(detail.contains("does not answer") && detail.contains(simulator.linkPath), "\(silent)")
            let (_, error, _) = await watcher.next("event/error", after: okAt)
            expectEnvelope(error, type: "error")
            #expect((error["error"] as? [String: Any])?["code"] as? String == "reader_unresponsive", "\(error)")
            #expect(error["op"] as? String == "poll", "\(error)")

            simulator.process.send(SIGCONT)
            let (backAt, _, _) = await watcher.next("reader", after: silentAt) { $0["state"] as? String == "ok" }
            #expect(agent.waitForErrorOutput("reader reopened"), "\(agent.errorOutput)")
            // It works again: a tap is reported.
            try simulator.place("first")
            await watcher.next("event/scanned", after: backAt) { $0["uid"] as? String == "04A1B2C3D4E5F6" }
            // One error event for the whole outage; no removal of a tag that never was there.
            #expect(watcher.events.map { $0["type"] as? String } == ["error", "scanned"])
            agent.expectCleanStop()
        }
    }

    /// A frame garbled on the line (libnfc: `NFC_EIO`, "Data checksum mismatch") while the chip is
    /// fine — what a slow pty under CPU load produces — is a transient error: the reader stays
    /// open and `ok`, is never `absent` or reopened, the poll failure is counted and the taps go on.
    @Test func aGarbledFrameIsATransientErrorNotALostReader() async throws {
        try await withAgentRun(.init(scenario: Self.scenario, extra: "health_interval_s: 5\n")) { run in
            let (simulator, watcher, agent) = (run.simulator, run.watcher, run.agent)
            let (okAt, _, _) = await watcher.next("reader") { $0["state"] as? String == "ok" }

            // Empty field: the garbled answer is a poll's (InAutoPoll, once the chip has answered
            // one: the reader has the command).
            try await simulator.waitForCommand("60", count: 2)
            let polls = try simulator.commandCount("60")
            try simulator.expectOK(["cmd": "fault", "fault": "garble_next_answer", "code": "60"])
            try await simulator.waitForCommand("60", count: polls + 2)
            let (_, error, _) = await watcher.next("event/error", after: okAt)
            #expect((error["error"] as? [String: Any])?["code"] as? String == "rf_error", "\(error)")
            #expect(error["op"] as? String == "poll", "\(error)")
            #expect(agent.waitForErrorOutput("a late or garbled frame on the line"), "\(agent.errorOutput)")

            // A tag in the field: the garbled answer is a presence check's (InDataExchange READ).
            try simulator.place("first")
            let (scannedAt, _, _) = await watcher.next("event/scanned", after: okAt)
            // Scanned (no dump on scan here): only presence checks talk to the tag now.
            let reads = try simulator.commandCount("40")
            try simulator.expectOK(["cmd": "fault", "fault": "garble_next_answer"])
            try await simulator.waitForCommand("40", count: reads + 3)
            try simulator.remove("first")
            let (removedAt, _, _) = await watcher.next("event/removed", after: scannedAt)

            // One tap, one error event; the reader was never given up.
            #expect(watcher.events.map { $0["type"] as? String } == ["error", "scanned", "removed"])
            let states = watcher.seen.received.filter { $0.topic == "\(e2eRoot)/reader" }.compactMap { $0.json["state"] as? String }
            #expect(!states.contains("absent") && !states.contains("error"), "\(states)")
            #expect(!agent.errorOutput.contains("reader reopened"), "\(agent.errorOutput)")
            let (_, health, _) = await watcher.next("health", after: removedAt)
            let readerHealth = health["reader"] as? [String: Any]
            #expect(readerHealth?["reopens"] as? Int == 0, "\(health)")
            #expect(readerHealth?["state"] as? String == "ok", "\(health)")
            #expect((readerHealth?["poll_errors"] as? Int ?? 0) >= 1, "counted: \(health)")
            agent.expectCleanStop()
        }
    }

    @Test func theWatchdogGoesOnThroughABrokerOutageAndStopsWhileTheReaderIsHung() async throws {
        try await withAgentRun(.init(scenario: Self.scenario, startsAgent: false)) { run in
            let (broker, simulator, watcher) = (run.broker!, run.simulator, run.watcher)
            let notify = try NotifySocket(path: run.folder.path + "/notify.sock")
            // WatchdogSec=2: pings every 0.5 s while the loop made progress within the last second.
            let agent = try run.startAgent(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"])
            let ready = await notify.next { $0 == "READY=1" }
            await notify.next(after: ready) { $0 == "WATCHDOG=1" }
            let (okAt, _, _) = await watcher.next("reader") { $0["state"] as? String == "ok" }

            // The broker frozen: the reader loop goes on, and so do the pings.
            broker.pause()
            let frozen = notify.lastIndex
            var ping = frozen
            for _ in 0..<4 { ping = await notify.next(after: ping) { $0 == "WATCHDOG=1" } }
            #expect(!notify.received[(frozen + 1)...].contains { $0.hasPrefix("STATUS=watchdog stopped: reader unresponsive") })
            broker.resume()

            // The reader hung: after its reopen attempts failed, the pings stop until it answers again.
            simulator.process.send(SIGSTOP)
            let hungAt = await notify.next(after: ping) { $0.hasPrefix("STATUS=watchdog stopped: reader unresponsive") }
            #expect(agent.waitForErrorOutput("reader still silent after 3 reopen attempts"), "\(agent.errorOutput)")
            // Answering again now, the reader is picked up by the next reopen, after a back-off wait
            // (8 s here) during which no ping may go out.
            simulator.process.send(SIGCONT)
            let runningAt = await notify.next(after: hungAt) { $0 == "STATUS=running" }
            await notify.next(after: runningAt) { $0 == "WATCHDOG=1" }
            let whileHung = notify.received[(hungAt + 1)..<runningAt]
            #expect(!whileHung.contains("WATCHDOG=1"), "pinged while the reader was hung: \(Array(whileHung))")
            await watcher.next("reader", after: okAt) { $0["state"] as? String == "ok" && $0["detail"] == nil }

            agent.expectCleanStop()
            // (The last message may still be on its way through the socket's reader: awaited.)
            let stopping = await notify.next(after: runningAt) { $0 == "STOPPING=1" }
            #expect(stopping == notify.lastIndex, "\(notify.received.suffix(3))")
        }
    }
}

/// A unix datagram socket standing in for systemd's `NOTIFY_SOCKET`: records every message the
/// agent sends (`READY=1`, `WATCHDOG=1`, `STATUS=…`, `STOPPING=1`) in arrival order.
final class NotifySocket: Sendable {
    let path: String
    /// Set on deinit; the reading thread then ends.
    private final class Flag: Sendable { let isSet = Atomic<Bool>(false) }
    private let closed = Flag()
    private let messages: RecordingStream<String>

    init(path: String) throws {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        // recv gives up every 200 ms, so the thread sees `closed` and ends (it closes the socket).
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        messages = RecordingStream(stream)
        let closed = self.closed
        Thread.detachNewThread {
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !closed.isSet.load(ordering: .acquiring) {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                if count <= 0 { break }
                for line in String(decoding: buffer.prefix(count), as: UTF8.self).split(separator: "\n") {
                    continuation.yield(String(line))
                }
            }
            continuation.finish()
        }
    }

    deinit {
        closed.isSet.store(true, ordering: .releasing)
        unlink(path)
    }

    /// Every message so far.
    var received: [String] { messages.received }

    /// The position of the last message so far (-1: none).
    var lastIndex: Int { received.count - 1 }

    /// The position of the next message after `index` matching `predicate`; records an issue when
    /// none comes within the watcher's guard timeout.
    @discardableResult
    func next(after index: Int = -1, sourceLocation: SourceLocation = #_sourceLocation, where predicate: @escaping @Sendable (String) -> Bool) async -> Int {
        if let (position, _) = await messages.next(after: index, timeout: Watcher.guardTimeout, where: predicate) { return position }
        Issue.record("no matching notify message after #\(index): \(received.suffix(10))", sourceLocation: sourceLocation)
        return lastIndex
    }
}
