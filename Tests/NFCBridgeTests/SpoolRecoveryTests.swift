import Foundation
import NFCCore
import Synchronization
import Testing

@testable import NFCBridge

/// The `sequence` file and the spool after damage: seq never goes backwards and never crashes,
/// unreadable spool lines are counted; and the write-ahead pipeline: nothing waits for a broker
/// that does not acknowledge, nothing is sent twice, full spools say so.
@Suite struct SequenceRecoveryTests {
    func directory(sequence text: String?) throws -> StateDirectory {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        if let text { try text.write(toFile: dir.path + "/sequence", atomically: true, encoding: .utf8) }
        return dir
    }

    @Test func theLargestInt64DoesNotCrashAndIsRecoveredFromTheSpool() throws {
        let dir = try directory(sequence: "9223372036854775807\n")
        let store = try SequenceStore(directory: dir.path, floor: 17)
        #expect(store.recovery?.contains("implausibly large") == true, "\(store.recovery ?? "")")
        #expect(store.next() == 18)
        #expect(FileManager.default.fileExists(atPath: dir.path + "/sequence.corrupt"))
        // The new file holds a reservation at or above the new number.
        #expect(try SequenceStore(directory: dir.path).current >= 18)
    }

    @Test(arguments: ["garbage", "-5", "", "12abc"])
    func aCorruptFileContinuesAboveTheSpool(text: String) throws {
        let dir = try directory(sequence: text)
        let store = try SequenceStore(directory: dir.path, floor: 41)
        #expect(store.recovery != nil)
        #expect(store.next() == 42)
    }

    @Test func aMissingFileContinuesAboveTheSpoolWithAWarning() throws {
        let dir = try directory(sequence: nil)
        let store = try SequenceStore(directory: dir.path, floor: 9)
        #expect(store.recovery?.contains("missing") == true)
        #expect(store.next() == 10)
        let fresh = try directory(sequence: nil)
        let first = try SequenceStore(directory: fresh.path)
        #expect(first.recovery == nil, "a first start is not a recovery")
    }

    @Test func aFileBelowTheSpoolNeverGoesBackwards() throws {
        let dir = try directory(sequence: "3")
        let store = try SequenceStore(directory: dir.path, floor: 50)
        #expect(store.recovery?.contains("below") == true)
        #expect(store.next() == 51)
    }

    @Test func theSpoolRemembersItsHighestSeqAfterEverythingWasDelivered() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        do {
            let spool = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
            for n in [7, 8] { spool.append(message(n)) }
            spool.removeFirst()
            spool.removeFirst()
            #expect(spool.isEmpty)
            spool.waitUntilWritten()
        }
        let reopened = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        #expect(reopened.isEmpty)
        #expect(reopened.highestSeq == 8)
        // An agent whose `sequence` file is garbage goes on at 9.
        try "zzz".write(toFile: dir.path + "/sequence", atomically: true, encoding: .utf8)
        #expect(try SequenceStore(directory: dir.path, floor: reopened.highestSeq).next() == 9)
    }

    func message(_ n: Int, queuedAt: Int64? = nil) -> SpooledMessage { .scanned(n, queuedAt: queuedAt) }

    /// A spool holding `seqs`, then `junk` appended to its log as if by a crash or a bad disk.
    func spool(with seqs: [Int], then junk: String, in dir: StateDirectory) throws {
        try AtomicFile.makeDirectory(dir.path)
        let spool = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        for n in seqs { spool.append(message(n)) }
        spool.waitUntilWritten()
        let handle = try #require(FileHandle(forWritingAtPath: dir.path + "/spool.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data(junk.utf8))
        try handle.close()
    }

    @Test func corruptLinesAreCountedWhenTheLogIsOpened() throws {
        let dir = StateDirectory()
        try spool(with: [1], then: "not json at all\n{\"topic\":1}\n", in: dir)
        let reopened = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        #expect(reopened.corruptLineCount == 2)
        #expect(!reopened.hadTornTail)
        #expect(reopened.messages.map(\.seq) == [1])
        // Rewritten without them (by the writer's first pass): the next start finds none.
        reopened.waitUntilWritten()
        #expect(try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20).corruptLineCount == 0)
    }

    @Test func aTornTailIsReported() throws {
        let dir = StateDirectory()
        try spool(with: [1, 2], then: "{\"topic\":\"nfc/a/ev", in: dir)
        let reopened = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        #expect(reopened.hadTornTail)
        #expect(reopened.corruptLineCount == 0)
        #expect(reopened.messages.map(\.seq) == [1, 2])
    }

    @Test func eventsOlderThanMaxAgeAreDroppedAndReported() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let spool = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20, maxAgeSeconds: 60)
        spool.append(message(1, queuedAt: 1_000))
        spool.append(message(2, queuedAt: 2_000))
        spool.append(message(3, queuedAt: 90_000))
        let drop = spool.expire(now: 62_500)
        #expect(drop == EventSpool.Drop(count: 2, firstSeq: 1, lastSeq: 2, reason: "expired"))
        #expect(spool.messages.map(\.seq) == [3])
        #expect(spool.droppedCount == 2)
    }

    @Test func aDeliveredMessageDroppedMeanwhileRemovesNothingElse() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let spool = try EventSpool(directory: dir.path, maxEvents: 2, maxBytes: 1 << 20)
        spool.append(message(1))
        spool.append(message(2))
        let inFlight = try #require(spool.peek())
        let drop = spool.appendReportingDrops(message(3))  // full: 1 goes while it is in flight
        #expect(drop.count == 1 && drop.firstSeq == 1)
        spool.remove(inFlight)
        #expect(spool.messages.map(\.seq) == [2, 3])
    }
}

/// A publisher whose acknowledgements the test holds back: a broker that stopped answering
/// without closing the connection. Every event handed over is recorded as it arrives.
final class StallingPublisher: MessagePublisher {
    let inner = InMemoryPublisher()
    private let gate = Watched(false)
    /// The events handed over so far (every copy), in order.
    let handed = Watched<[OutboundMessage]>([])

    var isConnected: Bool { inner.isConnected }

    /// Publishes block until ``release()``.
    func stall() { gate.update { $0 = true } }
    func release() { gate.update { $0 = false } }

    /// How many times a message with this event id was handed over.
    func attempts(of eventID: String) -> Int { handedOver[eventID] ?? 0 }
    var handedOver: [String: Int] {
        handed.value.compactMap { $0.json?["event_id"]?.stringValue }.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// The topics of the publishes held by ``stall()`` so far.
    let held = Watched<[String]>([])

    func publish(_ message: OutboundMessage) async throws {
        if message.json?["event_id"] != nil { handed.update { $0.append(message) } }
        if gate.value { held.update { $0.append(message.topic) } }
        await gate.wait { !$0 }
        try await inner.publish(message)
    }

    func subscribe(to filter: String, qos: MessageQoS) async throws { try await inner.subscribe(to: filter, qos: qos) }

    func events() -> AsyncStream<PublisherEvent> { inner.events() }

    /// An agent publishing through this publisher, returned once everything its start-up
    /// publishes is out and its sender is idle, so that a ``stall()`` after it holds the test's own
    /// next message and nothing of the start-up. Three tasks publish at start-up, in no fixed order:
    /// the reader's open (`reader` ok, then `info`), the connect (everything retained, `health`
    /// last) and discovery's re-send once the reader is known (its own task, woken by the open:
    /// it can queue its documents after both `reader` ok and `health` are out — a stall then held
    /// the sender on the first document, and nothing after it was ever handed over). So this awaits
    /// `reader` ok, `health` and the last discovery document describing the reader as opened.
    func settledAgent() async throws -> AgentHarness {
        let h = try AgentHarness(publisher: self)
        await inner.waitForJSON(on: h.topics.topic(.reader)) { $0["state"] == "ok" }
        await inner.waitForJSON(on: h.topics.topic(.health))
        // `readerInfo` is set with `reader` ok (one reducer step), before either is published.
        if let discovery = h.agent.discovery, let last = discovery.documents.messages(reader: h.agent.snapshot.readerInfo).last {
            await inner.waitForMessage { $0.topic == last.topic && $0.payload == last.payload }
        }
        await h.agent.pipeline.flush()
        return h
    }
}

@Suite(.timeLimit(.minutes(1))) struct WriteAheadPipelineTests {
    @Test func theReaderGoesOnWhileTheBrokerDoesNotAcknowledgeAndNothingIsSentTwice() async throws {
        let stalling = StallingPublisher()
        let h = try await stalling.settledAgent()
        let p = stalling.inner
        stalling.stall()
        // Five taps while nothing is acknowledged: the reader loop sees them all.
        for n in 1...5 {
            let tag = makeTag(uid: [0x04, 0, 0, 0, 0, 0, UInt8(n)])
            h.device.place(tag)
            await h.agent.pipeline.waitUntil { $0.appended == 2 * n - 1 }
            await h.removeAndPassGrace(tag)
            await h.agent.pipeline.waitUntil { $0.appended == 2 * n }
        }
        #expect(h.agent.spool.depth == 10, "all in the spool, the first one in flight")
        stalling.release()
        await h.agent.pipeline.waitUntil { $0.publishedLive + $0.replayed == 10 }
        let events = p.published.filter { $0.topic.contains("/event/") }.compactMap(\.json)
        #expect(events.compactMap { $0["seq"]?.intValue } == Array(1...10))
        #expect(Set(events.compactMap { $0["event_id"]?.stringValue }).count == 10)
        #expect(stalling.handedOver.values.allSatisfy { $0 == 1 }, "\(stalling.handedOver)")
        #expect(h.agent.spool.isEmpty)
        await h.stop()
    }

    @Test func aFullSpoolDropsTheOldestCountsThemAndSaysSo() async throws {
        let h = try AgentHarness(connected: false) { config in config.spool.maxEvents = 3 }
        for n in 1...3 {
            let tag = makeTag(uid: [0x04, 0, 0, 0, 0, 0, UInt8(n)])
            h.device.place(tag)
            await h.agent.pipeline.waitUntil { $0.appended - $0.dropNotices == 2 * n - 1 }
            await h.removeAndPassGrace(tag)
            await h.agent.pipeline.waitUntil { $0.appended - $0.dropNotices == 2 * n }
        }
        // 6 events and the notice in a spool of 3: the oldest went.
        await h.agent.pipeline.waitUntil { $0.dropped >= 3 }
        // The drop notice may still push one more out while health is read: health reports the
        // pipeline's own count from within that window, never another figure.
        let droppedBefore = h.agent.pipeline.statistics.dropped
        let reported = h.agent.health.spoolDropped
        let droppedAfter = h.agent.pipeline.statistics.dropped
        #expect(droppedBefore >= 3)
        #expect((droppedBefore...droppedAfter).contains(reported), "\(droppedBefore) ≤ \(reported) ≤ \(droppedAfter)")
        #expect(h.logs.recorded.contains { $0.contains("spool full: dropped") })
        h.publisher.setConnected(true)
        // The first notice says what it knew then (seq 1); the drops after it come in the next one.
        let (_, notice) = await h.waitFor(.error) { $0["error"]?["code"] == "spool_full" }
        #expect(notice["op"] == "spool")
        #expect(notice["buffered"] == true)
        #expect(notice["dropped"] == 1)
        #expect(notice["first_seq"] == 1)
        let (_, next) = await h.waitFor(.error) { $0["error"]?["code"] == "spool_full" && $0["first_seq"] == 2 }
        let last = next["last_seq"]?.intValue ?? 0
        #expect(last >= 3)
        #expect(next["dropped"]?.intValue == last - 1, "seq 2…\(last), none left out")
        await h.stop()
    }

    @Test func aCorruptSequenceFileIsRecoveredFromTheSpoolAndLogged() async throws {
        let directory = try await AgentHarness.directoryWithOneSpooledScan()
        try "9223372036854775807".write(toFile: directory.path + "/sequence", atomically: true, encoding: .utf8)
        let h = try AgentHarness(directory: directory, connected: true)
        #expect(h.logs.recorded.contains { $0.contains("warning") && $0.contains("implausibly large") }, "\(h.logs.recorded)")
        let (_, replayed) = await h.waitFor(.scanned, where: { $0["buffered"] == true })
        #expect(replayed["seq"] == 1)
        // Recovered from the spool: the run's first event (the first run's tag, gone) is seq 2.
        let left = await h.leftTagRemoved()
        #expect(left["seq"] == 2)
        h.device.place(makeTag(uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]))
        let (_, live) = await h.waitFor(.scanned, where: { $0["uid"] == "04010203040506" })
        #expect(live["seq"] == 3)
        await h.stop()
    }
}
