import Foundation
import Synchronization
import Testing

@testable import NFCBridge

/// The outbox's bounds (issue 20: "one oversized event blocks the spool for good", "command
/// responses are dropped silently under a burst").
@Suite(.timeLimit(.minutes(1))) struct OutboxTests {
    @Test func anEventTheBrokerRefusesForSizeIsReplacedByPayloadTooLargeAndTheStreamMovesOn() async throws {
        // 4096 bytes: 8192 hex digits in the dump's `pages`.
        let scanner = StubScanner(dumpResult: { scan in .stub(of: scan, pages: [[UInt8](repeating: 0xAA, count: 4096)]) })
        let h = try AgentHarness(scanner: scanner) { config in config.dump.onScan = true }
        await h.waitFor(.reader) { $0["state"] == "ok" }
        h.publisher.refusePayloads(over: 4096)  // a broker with max_packet_size 4096
        let first = makeTag(uid: [0x04, 0, 0, 0, 0, 0, 1])
        h.device.place(first)
        let (_, scanned) = await h.waitFor(.scanned) { $0["uid"] == "04000000000001" }
        let (_, refusal) = await h.waitFor(.error) { $0["error"]?["code"] == "payload_too_large" }
        #expect(refusal["refused_type"] == "dump")
        #expect(refusal["refused_seq"]?.intValue == (scanned["seq"]?.intValue ?? 0) + 1)
        #expect((refusal["size"]?.intValue ?? 0) > 8192)
        #expect(h.publisher.published.allSatisfy { !$0.topic.hasSuffix("/event/dump") })
        // Later taps are not held behind it.
        await h.removeAndPassGrace(first)
        await h.waitFor(.removed) { $0["uid"] == "04000000000001" }
        h.device.place(makeTag(uid: [0x04, 0, 0, 0, 0, 0, 2]))
        await h.waitFor(.scanned) { $0["uid"] == "04000000000002" }
        // The second tag's dump goes the same way.
        await h.agent.pipeline.waitUntil { $0.refusedForSize == 2 }
        #expect(h.agent.spool.messages.allSatisfy { $0.kind != .dump })
        await h.stop()
    }

    @Test func theResponseQueueRefusesNewRequestsBeforeItDropsAnAnswerAndCountsWhatItDrops() async throws {
        let stalling = StallingPublisher()
        // Settled: the stall must hold response 0, not a start-up message still on its way.
        let h = try await stalling.settledAgent()
        stalling.stall()
        func response(_ n: Int) -> OutboundMessage {
            OutboundMessage(topic: "ops/response/\(n)", payload: Array("{\"n\":\(n)}".utf8))
        }
        // The first goes out and hangs; the queue fills behind it.
        try h.agent.pipeline.send(response(0))
        var accepted = 0
        while h.agent.pipeline.acceptsRequests {
            accepted += 1
            try h.agent.pipeline.send(response(accepted))
        }
        // (Response 0 is in flight or still queued: the sender may not have taken it yet.)
        #expect((Outbox.requestLimit - 1...Outbox.requestLimit).contains(accepted), "\(accepted)")
        #expect(h.agent.pipeline.statistics.responsesDropped == 0, "refusing requests comes first")
        // Refusals (answers too) still fit until the hard limit; beyond it one is dropped and counted.
        var sent = accepted
        while h.agent.pipeline.statistics.responsesDropped == 0 {
            sent += 1
            try h.agent.pipeline.send(response(sent))
        }
        #expect((Outbox.responseLimit...Outbox.responseLimit + 1).contains(sent), "\(sent)")
        stalling.release()
        await h.agent.pipeline.flush()
        let out = stalling.inner.published.filter { $0.topic.hasPrefix("ops/response/") }.map(\.topic)
        #expect(out.count == sent, "all but the one dropped: \(out.count) of \(sent + 1)")
        #expect(out == (0..<sent).map { "ops/response/\($0)" }, "in order, the last one dropped")
        #expect(h.logs.recorded.contains { $0.contains("responses_dropped") })
        await h.stop()
    }

    /// The sender read the bell, found nothing to send, and a message was queued (the bell rung)
    /// before it marked itself idle: it stays busy, so `flush()` cannot return with that message
    /// still queued. Idle once it finds nothing after the last ring.
    @Test func aRingBetweenFindingNothingAndMarkingIdleKeepsTheSenderBusy() {
        let bell = Doorbell()
        let seen = bell.count
        bell.ring()
        bell.markIdle(after: seen)
        #expect(!bell.isIdle)
        bell.markIdle(after: bell.count)
        #expect(bell.isIdle)
    }

    /// Two tasks may read the same state and queue it in the opposite order (the connect's `info`,
    /// read before the reader opened, queued after the reader's own `info`: the reader never showed
    /// in the retained `info`). A value read before one already queued for its topic is dropped,
    /// whether the newer one is still queued or already out.
    @Test func retainedStateReadEarlierNeverReplacesStateReadLater() async throws {
        let stalling = StallingPublisher()
        let h = try await stalling.settledAgent()
        let pipeline = h.agent.pipeline
        let coalesced = pipeline.statistics.coalesced
        // The sender hangs on the first message: what follows stays queued.
        stalling.stall()
        await pipeline.publishState("ops/hold", Array("hold".utf8))
        await pipeline.publishState("ops/state", Array("read second".utf8), snapshot: 2)
        await pipeline.publishState("ops/state", Array("read first".utf8), snapshot: 1)
        #expect(pipeline.statistics.coalesced == coalesced + 1)
        stalling.release()
        await pipeline.flush()
        #expect(stalling.inner.published(to: "ops/state").map(\.text) == ["read second"])
        // Out already: an older read queued now is not retained after it either.
        await pipeline.publishState("ops/state", Array("read first".utf8), snapshot: 1)
        await pipeline.flush()
        #expect(stalling.inner.published(to: "ops/state").map(\.text) == ["read second"])
        // A newer read (the next connect's) goes out.
        await pipeline.publishState("ops/state", Array("read third".utf8), snapshot: 3)
        await pipeline.flush()
        #expect(stalling.inner.published(to: "ops/state").map(\.text) == ["read second", "read third"])
        await h.stop()
    }
}

/// The router refuses a new request with `busy` while the pipeline's response queue is nearly full
/// (issue 20: under a burst, responses were dropped silently); a cancel still gets through.
@Suite(.timeLimit(.minutes(1))) struct BusyWhileResponsesWaitTests {
    @Test func aRequestIsRefusedBusyWhileResponsesWaitAndTakenOnceTheyAreOut() async throws {
        let open = Mutex(false)
        let h = try await CommandHarness(acceptsRequests: { open.withLock { $0 } })
        await h.send("format", #"{"id":1}"#)
        let refused = await h.response("format")
        #expect(refused["error"]?["code"] == "busy")
        #expect(refused["error"]?["message"]?.stringValue?.contains("wait for the broker") == true, "\(refused)")
        #expect(await h.router.queueDepth == 0, "nothing was queued")
        open.withLock { $0 = true }
        await h.send("format", #"{"id":2,"wait_for_tag":false}"#)
        let taken = await h.response("format", count: 2)
        #expect(taken["error"]?["code"] != "busy", "\(taken)")
        await h.stop()
    }
}
