import Foundation
import NFCCore
import Synchronization
import Testing

@testable import NFCBridge

/// The signed-request scheme (docs/mqtt.md, "Signed requests"): the HMAC, the canonical string,
/// the timestamp window and the nonce book — all on injected times, never the wall clock.
@Suite struct RequestSignatureTests {
    static let key = Array("0123456789abcdef0123456789abcdef".utf8)
    static let topic = "nfc/door1/request/write"
    /// 2026-01-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    /// An envelope as a client builds it (the signature from the scheme's own function).
    static func envelope(_ body: String, key: [UInt8] = key, topic: String = topic, sig: String? = nil) -> [UInt8] {
        let signature = sig ?? RequestSignature.signature(key: key, topic: topic, body: Array(body.utf8)) ?? ""
        return JSONValue.object(["signed": .string(body), "sig": .string(signature)]).jsonBytes
    }

    static func body(ts: Int64 = 1_767_225_600, nonce: String = "nonce-0001") -> String {
        #"{"id":"job-1","nonce":"\#(nonce)","records":[{"text":"hi"}],"ts":\#(ts)}"#
    }

    @Test func hmacMatchesRFC4231TestCase2() throws {
        let mac = RequestSignature.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(mac?.hexString == "5BDCC146BF60754E6A042426089575C75A003F089D2739839DEC58B964EC3843")
    }

    @Test func canonicalStringIsTopicLineFeedBody() {
        #expect(RequestSignature.canonical(topic: "a/b", body: Array("{}".utf8)) == Array("a/b\n{}".utf8))
        // The documented worked example (docs/mqtt.md), as `openssl dgst -sha256 -hmac` computes it.
        let body = #"{"id":"job-1","nonce":"4f1c2a9e7b3d","records":[{"uri":"https://example.com"}],"ts":1767225600}"#
        #expect(
            RequestSignature.signature(
                key: Array("8d3f1e0c5a7b9d2e4f6a8c0e1b3d5f7a".utf8), topic: "nfc/door1/request/write", body: Array(body.utf8))
                == "88255474b9938fcc29ad0aa4dd1d55bc8264cb29931f89653e3736c68d78b88c")
    }

    @Test func aGoodSignatureYieldsTheRequestWithoutTsAndNonce() throws {
        let verifier = RequestSignatureVerifier(key: Self.key)
        let outcome = verifier.check(topic: Self.topic, payload: RequestPayload(Self.envelope(Self.body()), limit: .max), now: Self.now)
        guard case let .verified(body) = outcome else {
            Issue.record("expected verified, got \(outcome)")
            return
        }
        guard case let .object(fields)? = body.content else {
            Issue.record("expected an object, got \(body)")
            return
        }
        #expect(fields.names == ["id", "records"])
    }

    @Test func unsignedPayloadsAreLeftToTheRouter() {
        let verifier = RequestSignatureVerifier(key: Self.key)
        #expect(verifier.check(topic: Self.topic, payload: RequestPayload(Array(#"{"id":"x"}"#.utf8), limit: .max), now: Self.now) == .unsigned)
        #expect(verifier.check(topic: Self.topic, payload: RequestPayload(Array("not json".utf8), limit: .max), now: Self.now) == .unsigned)
    }

    @Test(arguments: [
        ("wrong key", envelope(body(), key: Array("another key of 16+ bytes".utf8))),
        ("other topic", envelope(body(), topic: "nfc/door2/request/write")),
        ("bad hex", envelope(body(), sig: String(repeating: "z", count: 64))),
        ("short sig", envelope(body(), sig: "abcd")),
        ("no ts", envelope(#"{"id":"job-1","nonce":"nonce-0001"}"#)),
        ("no nonce", envelope(#"{"id":"job-1","ts":1767225600}"#)),
        ("short nonce", envelope(body(nonce: "abc"))),
    ])
    func badSignaturesAreNotPermitted(reason: String, payload: [UInt8]) {
        let verifier = RequestSignatureVerifier(key: Self.key)
        guard case let .rejected(rejection) = verifier.check(topic: Self.topic, payload: RequestPayload(payload, limit: .max), now: Self.now) else {
            Issue.record("\(reason): accepted")
            return
        }
        #expect(rejection.error.code == .notPermitted, "\(reason)")
        #expect(verifier.nonceCount == 0, "\(reason): a refused request must not use up its nonce")
    }

    @Test func aChangedBodyIsRefused() {
        let verifier = RequestSignatureVerifier(key: Self.key)
        let good = Self.envelope(Self.body())
        let sig = (try? JSONValue(parsing: Data(good)))?["sig"]?.stringValue
        let tampered = Self.envelope(Self.body().replacingOccurrences(of: "hi", with: "ho"), sig: sig)
        guard case let .rejected(rejection) = verifier.check(topic: Self.topic, payload: RequestPayload(tampered, limit: .max), now: Self.now) else {
            Issue.record("a tampered body was accepted")
            return
        }
        #expect(rejection.error.code == .notPermitted)
        #expect(rejection.id == "job-1")
    }

    @Test func anEnvelopeWithAnotherFieldIsInvalid() {
        let verifier = RequestSignatureVerifier(key: Self.key)
        var object = (try? JSONValue(parsing: Data(Self.envelope(Self.body()))))?.objectValue ?? [:]
        object["extra"] = 1
        guard case let .rejected(rejection) = verifier.check(topic: Self.topic, payload: RequestPayload(JSONValue.object(object).jsonBytes, limit: .max), now: Self.now)
        else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.error.code == .invalidRequest)
    }

    @Test func aReplayedNonceIsRefused() {
        let verifier = RequestSignatureVerifier(key: Self.key)
        let payload = Self.envelope(Self.body())
        #expect(verifier.check(topic: Self.topic, payload: RequestPayload(payload, limit: .max), now: Self.now) != .unsigned)
        guard case let .rejected(rejection) = verifier.check(topic: Self.topic, payload: RequestPayload(payload, limit: .max), now: Self.now) else {
            Issue.record("a replay was accepted")
            return
        }
        #expect(rejection.error.message.contains("already used"))
        // Another nonce with the same id is a new request (the result cache answers it).
        guard case .verified = verifier.check(topic: Self.topic, payload: RequestPayload(Self.envelope(Self.body(nonce: "nonce-0002")), limit: .max), now: Self.now)
        else {
            Issue.record("a fresh nonce was refused")
            return
        }
    }

    @Test func theTimestampWindowIsInclusiveBothWays() {
        let verifier = RequestSignatureVerifier(key: Self.key, windowSeconds: 300)
        let base: Int64 = 1_767_225_600
        func accepted(_ ts: Int64, _ nonce: String) -> Bool {
            if case .verified = verifier.check(topic: Self.topic, payload: RequestPayload(Self.envelope(Self.body(ts: ts, nonce: nonce)), limit: .max), now: Self.now) {
                return true
            }
            return false
        }
        #expect(accepted(base - 300, "nonce-old-edge"))
        #expect(accepted(base + 300, "nonce-new-edge"))
        #expect(!accepted(base - 301, "nonce-too-old"))
        #expect(!accepted(base + 301, "nonce-too-new"))
    }

    /// The stale-request refusal for a `ts` that is a valid Int64 but far off (issue 20: Int64.min
    /// overflowed the distance and trapped the agent).
    static func expectRefusedAsStale(ts: Int64, now: Date = now) {
        let verifier = RequestSignatureVerifier(key: Self.key, windowSeconds: 300)
        let outcome = verifier.check(topic: Self.topic, payload: RequestPayload(Self.envelope(Self.body(ts: ts)), limit: .max), now: now)
        guard case let .rejected(rejection) = outcome else {
            Issue.record("ts \(ts): expected a refusal, got \(outcome)")
            return
        }
        #expect(rejection.error.code == .notPermitted)
        #expect(rejection.error.message.contains("from the agent's clock"), "\(rejection.error.message)")
        #expect(verifier.nonceCount == 0)
    }

    @Test func aTimestampOfInt64MinIsRefusedNotACrash() {
        Self.expectRefusedAsStale(ts: .min)
        Self.expectRefusedAsStale(ts: .min, now: Date(timeIntervalSince1970: 0))
    }

    @Test func aTimestampOfInt64MaxIsRefusedNotACrash() {
        Self.expectRefusedAsStale(ts: .max)
        // An agent clock before 1970 makes now negative: Int64.max - now would overflow too.
        Self.expectRefusedAsStale(ts: .max, now: Date(timeIntervalSince1970: -1))
    }

    @Test func noncesLeaveTheBookWithTheirWindow() {
        let verifier = RequestSignatureVerifier(key: Self.key, windowSeconds: 300)
        let payload = Self.envelope(Self.body())
        _ = verifier.check(topic: Self.topic, payload: RequestPayload(payload, limit: .max), now: Self.now)
        #expect(verifier.nonceCount == 1)
        // 10 minutes later the old nonce is forgotten; its request is refused as stale, not replayed.
        let later = Self.now.addingTimeInterval(600)
        _ = verifier.check(topic: Self.topic, payload: RequestPayload(Self.envelope(Self.body(ts: 1_767_226_200, nonce: "nonce-later")), limit: .max), now: later)
        #expect(verifier.nonceCount == 1)
        guard case let .rejected(rejection) = verifier.check(topic: Self.topic, payload: RequestPayload(payload, limit: .max), now: later) else {
            Issue.record("an old request was accepted")
            return
        }
        #expect(rejection.error.message.contains("from the agent's clock"))
    }

    @Test func aFullBookRaisesTheFloorSoAForgottenNonceCannotBeReplayed() {
        let verifier = RequestSignatureVerifier(key: Self.key, windowSeconds: 300, nonceCapacity: 2)
        let first = Self.envelope(Self.body(ts: 1_767_225_590, nonce: "nonce-0a"))
        for payload in [first, Self.envelope(Self.body(ts: 1_767_225_595, nonce: "nonce-0b")), Self.envelope(Self.body(nonce: "nonce-0c"))] {
            guard case .verified = verifier.check(topic: Self.topic, payload: RequestPayload(payload, limit: .max), now: Self.now) else {
                Issue.record("refused")
                return
            }
        }
        #expect(verifier.nonceCount == 2)
        guard case let .rejected(rejection) = verifier.check(topic: Self.topic, payload: RequestPayload(first, limit: .max), now: Self.now) else {
            Issue.record("the forgotten nonce was replayed")
            return
        }
        #expect(rejection.error.code == .notPermitted)
    }
}

/// The router's use of the verifier: which commands must be signed, and what the client gets.
@Suite(.timeLimit(.minutes(1))) struct SignedRequestRouterTests {
    static let key = RequestSignatureTests.key

    func signed(_ command: String, _ body: String) -> String {
        let topic = "nfc/test/request/\(command)"
        let sig = RequestSignature.signature(key: Self.key, topic: topic, body: Array(body.utf8)) ?? ""
        return String(decoding: JSONValue.object(["signed": .string(body), "sig": .string(sig)]).jsonBytes, as: UTF8.self)
    }

    @Test func withAKeyLockMustBeSignedAndOthersMayBe() async throws {
        let h = try await CommandHarness(
            policy: CommandPolicy(lockEnabled: true), signatures: RequestSignatureVerifier(key: Self.key))
        let clock = h.clock
        h.placeTag()
        let uid = CommandHarness.tagUID.hexString
        await h.send("lock", #"{"id":"l1","uid":"\#(uid)","confirm":"\#(uid)"}"#)
        let refused = await h.response("lock")
        #expect(refused.errorCode == "not_permitted")
        #expect(refused["id"] == "l1")
        #expect(h.logs.recorded.contains { $0.contains("unsigned request refused") })
        // Unsigned write: allowed (require_signature is off).
        h.scripted.script(.success(["w": 1]), .success(["locked": true]))
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000"}"#)
        #expect(await h.finalResponse("write", id: "w1")["status"] == "ok")
        let ts = Timestamp.milliseconds(clock.now) / 1000
        await h.send("lock", signed("lock", #"{"id":"l2","uid":"\#(uid)","confirm":"\#(uid)","ts":\#(ts),"nonce":"n-lock-0001"}"#))
        #expect(await h.finalResponse("lock", id: "l2")["status"] == "ok")
        await h.stop()
    }

    @Test func requireSignatureCoversEveryCommand() async throws {
        let h = try await CommandHarness(
            policy: CommandPolicy(requireSignature: true), signatures: RequestSignatureVerifier(key: Self.key))
        let clock = h.clock
        h.placeTag()
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000"}"#)
        #expect(await h.response("write").errorCode == "not_permitted")
        await h.send("cancel", #"{"id":"w1"}"#)
        #expect(await h.response("cancel").errorCode == "not_permitted")
        h.scripted.script(.success(["w": 1]))
        let ts = Timestamp.milliseconds(clock.now) / 1000
        let request = signed("write", #"{"id":"w2","ndef_hex":"D00000","ts":\#(ts),"nonce":"n-write-0001"}"#)
        await h.send("write", request)
        #expect(await h.finalResponse("write", id: "w2")["status"] == "ok")
        await h.send("write", request)
        let replay = await h.response("write", count: 3)
        #expect(replay.errorCode == "not_permitted")
        #expect(replay["replayed"] == nil)
        #expect(h.scripted.actions.count == 1)
        await h.stop()
    }

    @Test func aSignedBodyIsBoundedByItsSignedTextAndReadOnce() async throws {
        let h = try await CommandHarness(
            policy: CommandPolicy(maximumPayloadBytes: 120), signatures: RequestSignatureVerifier(key: Self.key))
        let ts = Timestamp.milliseconds(h.clock.now) / 1000
        h.placeTag()
        h.scripted.script(.success(["w": 1]))
        // A `signed` text within the limit, in an envelope beyond it (but within twice it): taken.
        let small = #"{"id":"s1","ndef_hex":"D00000","ts":\#(ts),"nonce":"n-bound-0001"}"#
        let envelope = signed("write", small)
        #expect(envelope.utf8.count > 120 && small.utf8.count <= 120)
        await h.send("write", envelope)
        #expect(await h.finalResponse("write", id: "s1")["status"] == "ok")
        // A `signed` text over the limit (its envelope within twice it): refused as too large, naming
        // the size of the text, which is what the body is bounded by.
        let padding = String(repeating: "0", count: 55)
        let large = #"{"id":"s2","ndef_hex":"D00000","ts":\#(ts),"nonce":"n-bound-0002\#(padding)"}"#
        #expect(large.utf8.count > 120 && signed("write", large).utf8.count <= 240)
        await h.send("write", signed("write", large))
        let refused = await h.response("write", count: 2)
        #expect(refused.errorCode == "invalid_request")
        #expect(refused["error"]?["message"] == .string("payload: \(large.utf8.count) bytes is over the limit of 120 bytes"))
        #expect(h.scripted.actions.count == 1)
        await h.stop()
    }
}

@Suite struct ResultCacheWindowTests {
    /// A wall clock the test moves.
    final class Wall: Sendable {
        let date = Mutex(Date(timeIntervalSince1970: 1_767_225_600))
        func advance(_ seconds: Double) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
        var now: Date { date.withLock { $0 } }
    }

    @Test func thePersistedWindowRunsOnTheWallClockAcrossRestarts() async throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let wall = Wall()
        let first = try CommandResultCache(capacity: 4, directory: dir.path, windowSeconds: 3600, now: { wall.now })
        await first.store(.ok(id: "a", transaction: nil, .empty), for: "s:a")
        wall.advance(1800)
        await first.store(.ok(id: "b", transaction: nil, .empty), for: "s:b")
        wall.advance(1800)
        // Reloaded an hour after "a": "a" has left the window, "b" has not.
        let second = try CommandResultCache(capacity: 4, directory: dir.path, windowSeconds: 3600, now: { wall.now })
        #expect(second.response(for: "s:a") == nil)
        #expect(second.response(for: "s:b")?.id == "b")
        wall.advance(1800)
        #expect(second.response(for: "s:b") == nil)
        #expect(second.count == 0)
    }

    @Test func aResultReadBackFromTheFileIsPublishedAsItWasWritten() async throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let wall = Wall()
        let first = try CommandResultCache(capacity: 4, directory: dir.path, windowSeconds: 3600, now: { wall.now })
        let outcome = ScriptedOutcome(data: ["pages_written": [4, 5], "ratio": .double(0.5), "uid": "04A1B2", "url": "https://a/b"])
        let done = CommandResponse.ok(id: 7, transaction: .double(1.5), outcome, of: .write)
        let failed = CommandResponse.failure(id: "f", transaction: "t", CommandError(.tagRemoved, pagesWritten: [4]))
        await first.store(done, for: "i:7")
        await first.store(failed, for: "s:f")
        // In memory the typed response itself comes back.
        #expect(first.response(for: "i:7") == done)
        let second = try CommandResultCache(capacity: 4, directory: dir.path, windowSeconds: 3600, now: { wall.now })
        let replayed = try #require(second.response(for: "i:7"))
        #expect(replayed.id == 7)
        #expect(replayed.transaction == .double(1.5))
        #expect(replayed.payload == done.payload, "the stored data is written again byte for byte")
        let refused = try #require(second.response(for: "s:f"))
        #expect(refused.error == failed.error, "code, message and pages_written are read back")
        #expect(refused.payload == failed.payload)
    }

    @Test func anOlderFileWithoutStoredAtIsKeptForAWholeWindow() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        try AtomicFile.write(
            Array(#"[{"key":"s:old","response":{"id":"old","status":"ok","data":{}}}]"#.utf8),
            to: AtomicFile.path(dir.path, CommandResultCache.fileName))
        let wall = Wall()
        let cache = try CommandResultCache(capacity: 4, directory: dir.path, windowSeconds: 60, now: { wall.now })
        #expect(cache.response(for: "s:old")?.id == "old")
        wall.advance(61)
        #expect(cache.response(for: "s:old") == nil)
    }
}
