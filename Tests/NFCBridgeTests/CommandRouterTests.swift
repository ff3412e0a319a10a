import Synchronization
import Foundation
import NFCCore
import Testing

@testable import NFCBridge

@Suite(.timeLimit(.minutes(1))) struct CommandRouterTests {
    let write = #"{"id":"w1","ndef_hex":"D00000"}"#
    let writeMessage: [UInt8] = [0xD0, 0x00, 0x00]

    // MARK: - Tag present, next tag, no tag

    @Test func actsOnThePresentTagAndEchoesIDAndTransaction() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        h.scripted.script(.success(["bytes_written": 8]))
        await h.send("write", #"{"id":"w1","transaction":17,"ndef_hex":"D00000"}"#)
        let response = await h.response("write")
        #expect(response == ["id": "w1", "transaction": 17, "status": "ok", "data": ["bytes_written": 8]])
        #expect(h.scripted.actions == [.write(message: writeMessage, password: nil)])
        #expect(h.scripted.uids == [CommandHarness.tagUID])
        // No `waiting` when the tag was already there.
        #expect(h.responses("write").count == 1)
        await h.stop()
    }

    @Test func waitsForTheNextTag() async throws {
        let h = try await CommandHarness()
        await h.send("write", write)
        let waiting = await h.response("write")
        #expect(waiting["status"] == "waiting")
        #expect(waiting["id"] == "w1")
        #expect(h.scripted.actions.isEmpty)
        h.placeTag()
        let done = await h.response("write", count: 2)
        #expect(done["status"] == "ok")
        #expect(h.scripted.actions.count == 1)
        await h.stop()
    }

    @Test func timeoutWhenNoTagComes() async throws {
        let h = try await CommandHarness()
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000","wait_for_tag_s":5}"#)
        #expect(await h.response("write")["status"] == "waiting")
        h.clock.advance(milliseconds: 4999)
        h.clock.advance(milliseconds: 1)
        let done = await h.response("write", count: 2)
        #expect(done.errorCode == "timeout")
        #expect(done["data"] == [:])
        #expect(h.scripted.actions.isEmpty)
        await h.stop()
    }

    @Test func noTagWhenNotWaiting() async throws {
        let h = try await CommandHarness()
        await h.send("format", #"{"id":"f","wait_for_tag_s":0}"#)
        let done = await h.response("format")
        #expect(done.errorCode == "no_tag")
        #expect(h.responses("format").count == 1)
        #expect(h.scripted.actions.isEmpty)
        await h.stop()
    }

    @Test func uidFilterRefusesAnotherTag() async throws {
        let h = try await CommandHarness()
        h.placeTag(uid: CommandHarness.otherUID)
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000","uid":"04A1B2C3D4E5F6"}"#)
        let done = await h.response("write")
        #expect(done.errorCode == "tag_mismatch")
        #expect(h.scripted.actions.isEmpty)
        await h.stop()
    }

    // MARK: - Expiry

    @Test func expiresWhileWaitingForATag() async throws {
        let h = try await CommandHarness()
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000","ttl_s":2,"wait_for_tag_s":30}"#)
        #expect(await h.response("write")["status"] == "waiting")
        h.clock.advance(milliseconds: 2000)
        let done = await h.response("write", count: 2)
        #expect(done.errorCode == "expired")
        #expect(h.scripted.actions.isEmpty)
        await h.stop()
    }

    @Test func expiresWhileQueued() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        h.scripted.hold()
        await h.send("format", #"{"id":"first"}"#)
        await h.scripted.waitUntilStarted()
        await h.send("write", #"{"id":"second","ndef_hex":"D00000","ttl_s":1}"#)
        h.clock.advance(milliseconds: 1500)
        h.scripted.release()
        #expect(await h.finalResponse("format", id: "first")["status"] == "ok")
        #expect(await h.finalResponse("write", id: "second").errorCode == "expired")
        #expect(h.scripted.actions.count == 1)
        await h.stop()
    }

    @Test func expiredOnArrivalDoesNothing() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000","expires_at":"2020-01-01T00:00:00Z"}"#)
        let done = await h.response("write")
        #expect(done.errorCode == "expired")
        #expect(done["id"] == "w1")
        #expect(h.scripted.actions.isEmpty)
        await h.stop()
    }

    // MARK: - Idempotency

    @Test func repeatedIDReturnsTheFirstResultAndNeverActsTwice() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        h.scripted.script(.success(["n": 1]), .success(["n": 2]))
        await h.send("write", write)
        let first = await h.response("write")
        await h.send("write", #"{"id":"w1","transaction":"again","ndef_hex":"D00000"}"#)
        let second = await h.response("write", count: 2)
        #expect(first["data"] == ["n": 1])
        #expect(second["data"] == ["n": 1])
        #expect(second["transaction"] == "again")
        #expect(first["replayed"] == nil)
        #expect(second["replayed"] == true)
        #expect(h.scripted.actions.count == 1)
        await h.stop()
    }

    /// `commands.idempotency_window_s`: within the window the first result comes back; after it the
    /// id acts again (on the router's clock, which the test moves).
    @Test func resultsAreKeptForTheIdempotencyWindow() async throws {
        let h = try await CommandHarness(policy: CommandPolicy(idempotencyWindowSeconds: 600))
        h.placeTag()
        h.scripted.script(.success(["n": 1]), .success(["n": 2]))
        await h.send("write", write)
        #expect(await h.response("write")["data"] == ["n": 1])
        h.clock.advance(milliseconds: 599_000)
        await h.send("write", write)
        let replay = await h.response("write", count: 2)
        #expect(replay["data"] == ["n": 1])
        #expect(replay["replayed"] == true)
        h.clock.advance(milliseconds: 1_000)
        await h.send("write", write)
        let again = await h.response("write", count: 3)
        #expect(again["data"] == ["n": 2])
        #expect(again["replayed"] == nil)
        #expect(h.scripted.actions.count == 2)
        await h.stop()
    }

    /// The client repeats its id the moment it sees the result, while the router is still inside the
    /// publish of that result: the repeat must get the result again, not `duplicate`.
    @Test func repeatArrivingDuringThePublishOfTheResultGetsTheResult() async throws {
        let repeated = Mutex(false)
        let h = try await CommandHarness(afterPublish: { message, router in
            guard message.topic == "nfc/test/response/write", message.json?["status"] == "ok",
                repeated.withLock({ done in defer { done = true }; return !done })
            else { return }
            await router.receive(InboundMessage(
                topic: "nfc/test/request/write", payload: Array(#"{"id":"w1","ndef_hex":"D00000"}"#.utf8),
                retained: false, responseTopic: nil, correlationData: nil), command: "write")
        })
        h.placeTag()
        h.scripted.script(.success(["n": 1]), .success(["n": 2]))
        await h.send("write", write)
        let first = await h.response("write")
        let second = await h.response("write", count: 2)
        #expect(first["data"] == ["n": 1])
        #expect(second["status"] == "ok")
        #expect(second["data"] == ["n": 1])
        #expect(h.scripted.actions.count == 1)
        await h.stop()
    }

    @Test func repeatedIDWhilePendingIsDuplicate() async throws {
        let h = try await CommandHarness()
        await h.send("write", write)
        #expect(await h.response("write")["status"] == "waiting")
        await h.send("write", write)
        let duplicate = await h.response("write", count: 2)
        #expect(duplicate.errorCode == "duplicate")
        #expect(duplicate["id"] == "w1")
        h.placeTag()
        #expect(await h.response("write", count: 3)["status"] == "ok")
        #expect(h.scripted.actions.count == 1)
        await h.stop()
    }

    @Test func resultsSurviveARestart() async throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        do {
            let h = try await CommandHarness(cache: try CommandResultCache(capacity: 4, directory: dir.path))
            h.placeTag()
            h.scripted.script(.success(["run": "first"]))
            await h.send("write", write)
            #expect(await h.response("write")["data"] == ["run": "first"])
            await h.stop()
        }
        let h = try await CommandHarness(cache: try CommandResultCache(capacity: 4, directory: dir.path))
        h.placeTag()
        await h.send("write", write)
        let replay = await h.response("write")
        #expect(replay["data"] == ["run": "first"])
        #expect(replay["replayed"] == true)
        #expect(h.scripted.actions.isEmpty)
        await h.stop()
    }

    @Test func resultCacheIsABoundedLRU() async throws {
        let cache = CommandResultCache(capacity: 2)
        for n in 1...2 { await cache.store(.ok(id: .int(Int64(n)), transaction: nil, .empty), for: "i:\(n)") }
        _ = cache.response(for: "i:1")  // 1 becomes the most recently used
        await cache.store(.ok(id: 3, transaction: nil, .empty), for: "i:3")
        #expect(cache.count == 2)
        #expect(cache.response(for: "i:1") != nil)
        #expect(cache.response(for: "i:2") == nil)
        #expect(cache.response(for: "i:3")?.id == 3)
    }

    // MARK: - Cancel

    @Test func cancelEndsAWaitingRequest() async throws {
        let h = try await CommandHarness()
        await h.send("write", write)
        #expect(await h.response("write")["status"] == "waiting")
        await h.send("cancel", #"{"id":"w1","transaction":"c"}"#)
        let cancel = await h.response("cancel")
        #expect(cancel == ["id": "w1", "transaction": "c", "status": "ok", "data": ["canceled": true, "state": "waiting"]])
        let done = await h.response("write", count: 2)
        #expect(done.errorCode == "canceled")
        // A tag arriving afterwards is left alone.
        h.placeTag()
        await h.send("format", #"{"id":"after"}"#)
        #expect(await h.finalResponse("format", id: "after")["status"] == "ok")
        #expect(h.scripted.actions == [.format(password: nil)])
        await h.stop()
    }

    @Test func cancelRemovesAQueuedRequest() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        h.scripted.hold()
        await h.send("format", #"{"id":"first"}"#)
        await h.scripted.waitUntilStarted()
        await h.send("write", write)
        await h.send("cancel", #"{"id":"w1"}"#)
        #expect(await h.response("cancel")["data"] == ["canceled": true, "state": "queued"])
        #expect(await h.finalResponse("write", id: "w1").errorCode == "canceled")
        h.scripted.release()
        #expect(await h.finalResponse("format", id: "first")["status"] == "ok")
        #expect(h.scripted.actions == [.format(password: nil)])
        await h.stop()
    }

    @Test func cancelCannotStopARequestActingOnTheTag() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        h.scripted.hold()
        await h.send("write", write)
        await h.scripted.waitUntilStarted()
        await h.send("cancel", #"{"id":"w1"}"#)
        #expect(await h.response("cancel").errorCode == "busy")
        h.scripted.release()
        #expect(await h.finalResponse("write", id: "w1")["status"] == "ok")
        await h.stop()
    }

    @Test func cancelOfAnUnknownOrFinishedIDIsInvalid() async throws {
        let h = try await CommandHarness()
        await h.send("cancel", #"{"id":"nobody"}"#)
        let unknown = await h.response("cancel")
        #expect(unknown.errorCode == "invalid_request")
        #expect(unknown["error"]?["message"]?.stringValue?.hasPrefix("id:") == true)
        h.placeTag()
        await h.send("write", write)
        _ = await h.response("write")
        await h.send("cancel", #"{"id":"w1"}"#)
        #expect(await h.response("cancel", count: 2).errorCode == "invalid_request")
        await h.stop()
    }

    // MARK: - Queue

    @Test func commandsRunOneAtATimeInArrivalOrder() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        h.scripted.hold()
        await h.send("format", #"{"id":1}"#)
        await h.scripted.waitUntilStarted()
        await h.send("write", #"{"id":2,"ndef_hex":"D00000"}"#)
        await h.send("dump", #"{"id":3,"format":"hex"}"#)
        #expect(await h.router.queueDepth == 2)
        #expect(h.scripted.actions.count == 1)
        h.scripted.release()
        #expect(await h.finalResponse("dump", id: 3)["status"] == "ok")
        #expect(h.scripted.actions == [.format(password: nil), .write(message: writeMessage, password: nil), .dump(format: .hex)])
        let finals = h.publisher.published.compactMap(\.json).filter { $0["status"] == "ok" }.map { $0["id"] }
        #expect(finals == [1, 2, 3])
        await h.stop()
    }

    @Test func aFullQueueAnswersBusy() async throws {
        let h = try await CommandHarness(policy: CommandPolicy(queueCapacity: 1))
        h.placeTag()
        h.scripted.hold()
        await h.send("format", #"{"id":"running"}"#)
        await h.scripted.waitUntilStarted()
        await h.send("format", #"{"id":"queued"}"#)
        await h.send("format", #"{"id":"overflow"}"#)
        let busy = await h.response("format")
        #expect(busy == [
            "id": "overflow", "status": "error", "data": [:],
            "error": ["code": "busy", "message": "1 requests are already queued: try again later"],
        ])
        h.scripted.release()
        #expect(await h.finalResponse("format", id: "queued")["status"] == "ok")
        // busy is not remembered: the same id may be sent again.
        let sent = h.publisher.published.count
        await h.send("format", #"{"id":"overflow"}"#)
        #expect(await h.finalResponse("format", id: "overflow", skipping: sent)["status"] == "ok")
        #expect(h.scripted.actions.count == 3)
        await h.stop()
    }

    @Test func stoppingCancelsWhatIsPending() async throws {
        let h = try await CommandHarness()
        await h.send("write", write)
        #expect(await h.response("write")["status"] == "waiting")
        await h.send("format", #"{"id":"f"}"#)
        await h.stop()
        #expect(await h.finalResponse("write", id: "w1").errorCode == "canceled")
        #expect(await h.finalResponse("format", id: "f").errorCode == "canceled")
        #expect(h.scripted.actions.isEmpty)
    }

    // MARK: - Intake

    @Test func retainedRequestsAreIgnored() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        await h.send("write", write, retained: true)
        await h.send("format", #"{"id":"live"}"#)
        #expect(await h.finalResponse("format", id: "live")["status"] == "ok")
        #expect(h.responses("write").isEmpty)
        #expect(h.scripted.actions == [.format(password: nil)])
        #expect(h.logs.recorded.contains { $0.contains("retained") })
        await h.stop()
    }

    @Test func malformedRequestsAreAnsweredAndTheRouterKeepsGoing() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        await h.send("write", "{not json")
        let bad = await h.response("write")
        #expect(bad.errorCode == "invalid_request")
        #expect(bad["id"] == .null)
        await h.send("write", #"{"id":"typo","ndef_hex":"D00000","wait_for_tag":3}"#)
        let typo = await h.response("write", count: 2)
        #expect(typo["id"] == "typo")
        #expect(typo["error"]?["message"]?.stringValue?.hasPrefix("wait_for_tag:") == true)
        await h.send("write", write)
        #expect(await h.response("write", count: 3)["status"] == "ok")
        await h.stop()
    }

    @Test func unknownCommandsAreAnsweredOnTheirOwnResponseTopic() async throws {
        let h = try await CommandHarness()
        await h.send("reboot", #"{"id":"r"}"#)
        let response = await h.response("reboot")
        #expect(response.errorCode == "unknown_command")
        #expect(response["id"] == "r")
        await h.stop()
    }

    @Test func mqtt5ResponseTopicAndCorrelationDataAreHonoured() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        await h.send("write", write, responseTopic: "clients/app/replies", correlationData: [0xCA, 0xFE])
        let reply = await h.message(on: "clients/app/replies")
        #expect(reply.correlationData == [0xCA, 0xFE])
        #expect(reply.json?["status"] == "ok")
        #expect(reply.retain == false)
        #expect(h.responses("write").isEmpty)
        // A v3.1.1 request (no properties) is answered on the default topic, matched by id.
        await h.send("format", #"{"id":"v3"}"#)
        let plain = await h.message(on: "nfc/test/response/format")
        #expect(plain.correlationData == nil)
        #expect(plain.json?["id"] == "v3")
        // A response topic with a wildcard cannot be published to: the default topic is used.
        await h.send("format", #"{"id":"wild"}"#, responseTopic: "clients/+/replies", correlationData: [1])
        let fallback = await h.message(on: "nfc/test/response/format", count: 2)
        #expect(fallback.json?["id"] == "wild")
        #expect(fallback.correlationData == [1])
        await h.stop()
    }

    @Test func executorErrorsKeepTheirFacts() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        h.scripted.script(.failure(CommandError(.tagRemoved, pagesWritten: [4, 5])))
        await h.send("write", write)
        let removed = await h.response("write")
        #expect(removed.errorCode == "tag_removed")
        #expect(removed["data"] == ["pages_written": [4, 5]])
        await h.stop()
    }

    // MARK: - Lock

    let lock = #"{"id":"L","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F6"}"#

    @Test func lockIsRefusedWhenDisabled() async throws {
        let h = try await CommandHarness()
        h.placeTag()
        await h.send("lock", lock)
        let refused = await h.response("lock")
        #expect(refused.errorCode == "not_permitted")
        #expect(h.scripted.actions.isEmpty)
        #expect(h.audits.isEmpty)
        #expect(h.logs.recorded.contains { $0.contains("lock") && $0.contains("not_permitted") })
        await h.stop()
    }

    @Test func lockNeedsConfirmation() async throws {
        let h = try await CommandHarness(policy: CommandPolicy(lockEnabled: true))
        h.placeTag()
        await h.send("lock", #"{"id":"L","uid":"04A1B2C3D4E5F6"}"#)
        #expect(await h.response("lock").errorCode == "invalid_request")
        await h.send("lock", #"{"id":"L2","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F7"}"#)
        #expect(await h.response("lock", count: 2).errorCode == "invalid_request")
        #expect(h.scripted.actions.isEmpty)
        await h.stop()
    }

    @Test func lockRefusesAnotherTag() async throws {
        let h = try await CommandHarness(policy: CommandPolicy(lockEnabled: true))
        h.placeTag(uid: CommandHarness.otherUID)
        await h.send("lock", lock)
        #expect(await h.response("lock").errorCode == "tag_mismatch")
        #expect(h.scripted.actions.isEmpty)
        #expect(await h.audits(atLeast: 1).map(\.response.error?.code) == [.tagMismatch])
        await h.stop()
    }

    @Test func lockOnTheRightTagIsAudited() async throws {
        let h = try await CommandHarness(policy: CommandPolicy(lockEnabled: true))
        h.placeTag()
        h.scripted.script(.success(["pages_written": [130, 2]]))
        await h.send("lock", lock)
        #expect(await h.response("lock")["status"] == "ok")
        #expect(h.scripted.actions == [.lock(uid: CommandHarness.tagUID, password: nil)])
        let audits = await h.audits(atLeast: 1)
        #expect(audits.count == 1)
        #expect(audits.first?.fields["uid"] == "04A1B2C3D4E5F6")
        #expect(audits.first?.fields["status"] == "ok")
        #expect(audits.first?.fields["command"] == "lock")
        #expect(h.logs.recorded.contains { $0.contains("LOCKED permanently") })
        await h.stop()
    }
}
