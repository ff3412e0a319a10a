import Foundation
import NFCCore
import Testing

@testable import NFCBridge

/// The router's parts on their own: the topic read once (by the caller), the bounded intake, the
/// responder.
@Suite struct CommandPartsTests {
    static func pending(_ id: String, command: CommandName = .format) -> RequestIntake.Pending {
        RequestIntake.Pending(
            request: CommandRequest(command: command, id: .string(id), waitForTagMilliseconds: 0, action: .format(password: nil)),
            route: CommandResponder.Route(topic: "nfc/test/response/format", correlationData: nil))
    }

    // MARK: - Intake

    @Test func theIntakeHoldsTheRunningRequestAndAtMostCapacityBehindIt() {
        var intake = RequestIntake(capacity: 1)
        #expect(intake.admit(Self.pending("a")) == .queued(behind: nil))
        #expect(intake.admit(Self.pending("b")) == .busy(queued: 1))
        let first = intake.next()
        #expect(first?.request.id == "a")
        intake.running = first.map { RequestIntake.Running(pending: $0, phase: .starting) }
        #expect(intake.admit(Self.pending("b")) == .queued(behind: 1))
        #expect(intake.admit(Self.pending("c")) == .busy(queued: 1))
        #expect(intake.queueDepth == 1)
    }

    @Test func anIdIsHeldOnceWhetherRunningOrQueued() {
        var intake = RequestIntake(capacity: 4)
        intake.running = RequestIntake.Running(pending: Self.pending("a"), phase: .acting)
        #expect(intake.admit(Self.pending("b")) == .queued(behind: 1))
        #expect(intake.admit(Self.pending("a")) == .duplicate)
        #expect(intake.admit(Self.pending("b")) == .duplicate)
        #expect(intake.isPending(CommandRequest.key(for: "b")))
        #expect(intake.removeQueued(key: CommandRequest.key(for: "b"))?.request.id == "b")
        #expect(!intake.isPending(CommandRequest.key(for: "b")))
        #expect(intake.removeQueued(key: CommandRequest.key(for: "a")) == nil, "the running one is not queued")
        #expect(intake.admit(Self.pending("c")) == .queued(behind: 1))
        #expect(intake.admit(Self.pending("d")) == .queued(behind: 2))
        #expect(intake.removeAll().map(\.request.id) == ["c", "d"])
        #expect(intake.next() == nil)
    }

    // MARK: - Responder

    final class Audits: Sendable {
        let entries = Watched<[CommandRouter.LockAudit]>([])
    }

    func makeResponder(_ publisher: InMemoryPublisher, audits: Audits = Audits()) -> CommandResponder {
        CommandResponder(
            topics: TopicMap(base: "nfc", id: "test"), publisher: publisher, cache: CommandResultCache(capacity: 4),
            logger: AgentLogger(level: .error, journald: false, sink: { _ in }),
            audit: { audit in audits.entries.update { $0.append(audit) } })
    }

    @Test func aUsableResponseTopicIsTakenWithItsCorrelationData() {
        let responder = makeResponder(InMemoryPublisher())
        let correlation: [UInt8] = [1, 2]
        func route(_ responseTopic: String?) -> CommandResponder.Route {
            responder.route(
                for: InboundMessage(topic: "nfc/test/request/dump", payload: [], responseTopic: responseTopic, correlationData: correlation),
                command: "dump")
        }
        #expect(route("client/7/answers") == .init(topic: "client/7/answers", correlationData: correlation))
        #expect(route("nfc/test/rr/operator/dump") == .init(topic: "nfc/test/rr/operator/dump", correlationData: correlation))
        #expect(route("nfc/other/rr/x") == .init(topic: "nfc/other/rr/x", correlationData: correlation))
        // Topics only the agent may write: its own tree but rr/, and Home Assistant's discovery.
        for unusable in [nil, "", "client/+/answers", "client/#", "a\0b", "nfc/test", "nfc/test/tag", "nfc/test/status",
                         "nfc/test/event/scanned", "nfc/test/response/lock", "homeassistant/sensor/test_last_uid/config"] {
            #expect(route(unusable) == .init(topic: "nfc/test/response/dump", correlationData: correlation))
        }
    }

    @Test func aFinalResponseIsSentRememberedAndALockAudited() async {
        let publisher = InMemoryPublisher()
        let audits = Audits()
        let responder = makeResponder(publisher, audits: audits)
        let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
        let lock = RequestIntake.Pending(
            request: CommandRequest(command: .lock, id: "l1", waitForTagMilliseconds: 0, action: .lock(uid: uid, password: nil)),
            route: .init(topic: "client/answers", correlationData: [9]))
        let response = CommandResponse.ok(id: "l1", transaction: nil, .empty)
        await responder.finish(lock, response)

        let sent = publisher.published(to: "client/answers")
        #expect(sent.count == 1)
        #expect(sent.first?.correlationData == [9])
        #expect(sent.first?.qos == .atLeastOnce)
        #expect(sent.first?.retain == false)
        #expect(sent.first?.json?["status"] == "ok")
        #expect(responder.cache.response(for: CommandRequest.key(for: "l1")) == response)
        #expect(audits.entries.value == [CommandRouter.LockAudit(id: "l1", uid: uid, response: response)])

        await responder.finish(Self.pending("f1"), .failure(id: "f1", transaction: nil, .canceledByRequest))
        #expect(audits.entries.value.count == 1, "only locks are audited")
        #expect(responder.cache.response(for: CommandRequest.key(for: "f1"))?.error == .canceledByRequest)
    }

    /// An outcome whose encoding fails (as a dump's JSON export could).
    struct UnencodableOutcome: CommandOutcome {
        struct Refusal: Error {}
        func encode(to encoder: any Encoder) throws { throw Refusal() }
    }

    @Test func anOutcomeThatCannotBeEncodedIsAnsweredAndKeptAsTheFailure() async {
        let publisher = InMemoryPublisher()
        let responder = makeResponder(publisher)
        let dump = RequestIntake.Pending(
            request: CommandRequest(command: .dump, id: "d1", waitForTagMilliseconds: 0, action: .dump(format: .json)),
            route: .init(topic: "client/answers", correlationData: nil))
        await responder.finish(dump, .ok(id: "d1", transaction: "t", UnencodableOutcome(), of: .dump))
        let sent = publisher.published(to: "client/answers").first?.json
        #expect(sent?["status"] == "error")
        #expect(sent?["error"]?["code"] == "read_failed")
        #expect(sent?["transaction"] == "t")
        #expect(responder.cache.response(for: "s:d1")?.error?.code == .readFailed)
        let write = CommandResponse.ok(id: "w1", transaction: nil, UnencodableOutcome(), of: .write).encoded()
        #expect(write.response.error?.code == .writeFailed)
        #expect(write.response.error?.message.hasPrefix("the result of write could not be encoded") == true)
    }
}
