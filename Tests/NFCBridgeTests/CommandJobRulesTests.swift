import Foundation
import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// The command rules around encode jobs and repeated ids (docs/mqtt.md, "Commands" rule 6 and
/// "Encode jobs"): a job's `lock` step obeys the rules of `request/lock`, a request waiting for its
/// tag gives way to a job started meanwhile, `job` and `feedback` act once per id, and `busy` or
/// the agent stopping is never replayed.
@Suite(.timeLimit(.minutes(1))) struct CommandJobRulesTests {
    /// A job runner that records what it was asked and with which lock refusal.
    final class RecordingJobs: JobHandling {
        let calls = Mutex<[(request: JobRequest, lockRefusal: CommandError?)]>([])
        let running = Mutex(false)

        var isRunning: Bool { running.withLock { $0 } }
        func handle(_ request: JobRequest, lockRefusal: CommandError?) async throws(CommandError) -> JobOutcome {
            calls.withLock { $0.append((request, lockRefusal)) }
            if case let .start(_, spec?) = request, spec.steps.lock, let lockRefusal { throw lockRefusal }
            return JobOutcome(job: "roll", action: request.action, state: "running")
        }
        var count: Int { calls.withLock { $0.count } }
        var lastRefusal: CommandError? { calls.withLock { $0.last?.lockRefusal } }
    }

    static let start = #""action":"start","job":"roll","template":[{"uri":"https://ex.com/{serial}"}],"serials":{"start":1,"count":2}"#

    static func signed(_ command: String, _ body: String, key: [UInt8]) -> String {
        let sig = RequestSignature.signature(key: key, topic: "nfc/test/request/\(command)", body: Array(body.utf8)) ?? ""
        return String(decoding: JSONValue.object(["signed": .string(body), "sig": .string(sig)]).jsonBytes, as: UTF8.self)
    }

    // MARK: - The lock step of a job

    @Test func theRouterTellsTheJobRunnerWhetherALockStepMayRun() async throws {
        // Locking disabled (the default): refused whatever the signature.
        let jobs = RecordingJobs()
        let disabled = try await CommandHarness(jobs: jobs)
        await disabled.send("job", #"{"id":"j1",\#(Self.start)}"#)
        _ = await disabled.finalResponse("job", id: "j1")
        #expect(jobs.lastRefusal?.code == .notPermitted)
        #expect(jobs.lastRefusal?.message.contains("commands.lock.enabled") == true)
        await disabled.stop()

        // Enabled without a signature key: allowed.
        let open = try await CommandHarness(policy: CommandPolicy(lockEnabled: true), jobs: jobs)
        await open.send("job", #"{"id":"j2",\#(Self.start)}"#)
        _ = await open.finalResponse("job", id: "j2")
        #expect(jobs.count == 2 && jobs.lastRefusal == nil)
        await open.stop()

        // Enabled with a key: only a signed request may lock.
        let key = Array("0123456789abcdef0123456789abcdef".utf8)
        let keyed = try await CommandHarness(
            policy: CommandPolicy(lockEnabled: true), signatures: RequestSignatureVerifier(key: key), jobs: jobs)
        await keyed.send("job", #"{"id":"j3",\#(Self.start)}"#)
        _ = await keyed.finalResponse("job", id: "j3")
        #expect(jobs.lastRefusal?.code == .notPermitted)
        #expect(jobs.lastRefusal?.message.contains("signed") == true)
        let ts = Timestamp.milliseconds(keyed.clock.now) / 1000
        await keyed.send("job", Self.signed("job", #"{"id":"j4",\#(Self.start),"ts":\#(ts),"nonce":"n-job-00001"}"#, key: key))
        _ = await keyed.finalResponse("job", id: "j4")
        #expect(jobs.count == 4 && jobs.lastRefusal == nil)
        await keyed.stop()
    }

    @Test func aRefusedLockStepIsNotRememberedForItsID() async throws {
        let jobs = RecordingJobs()
        let h = try await CommandHarness(jobs: jobs)
        let locking = #"{"id":"j1",\#(Self.start),"steps":["write","verify","lock"]}"#
        await h.send("job", locking)
        #expect(await h.response("job").errorCode == "not_permitted")
        // Sent again (locking enabled and the agent restarted, or signed): it is tried again.
        await h.send("job", locking)
        let again = await h.response("job", count: 2)
        #expect(again.errorCode == "not_permitted" && again["replayed"] == nil)
        #expect(jobs.count == 2)
        await h.stop()
    }

    static func runner(_ directory: String) async throws -> JobRunner {
        let device = VirtualReaderDevice()
        _ = try await device.open()
        return JobRunner(
            stateDirectory: directory, access: DeviceTagAccess(device: device, modulations: [.iso14443a], interval: .milliseconds(20)),
            executor: TagCommandExecutor(), reporting: EncodeStation.Reporting(tag: { _ in }, state: { _ in }),
            logger: AgentLogger(level: .error, journald: false, clock: ManualClock(), sink: { _ in }))
    }

    @Test func aJobWithTheLockStepIsRefusedBeforeItsJournalIsWritten() async throws {
        let directory = EncodeJobTests.stateDirectory()
        let runner = try await Self.runner(directory)
        let refusal = CommandError(.notPermitted, "lock is off")
        let spec = try EncodeJobTests.spec(lock: true)
        await #expect(throws: refusal) { try await runner.handle(.start(job: spec.id, spec: spec), lockRefusal: refusal) }
        #expect(!runner.isRunning)
        #expect(!JobJournal.exists(stateDirectory: directory, job: spec.id))
        // Without the lock step the same refusal does not matter.
        let plain = try EncodeJobTests.spec("plain")
        _ = try await runner.handle(.start(job: plain.id, spec: plain), lockRefusal: refusal)
        #expect(runner.isRunning)
        await runner.stop()
    }

    @Test func aResumedJobWithTheLockStepIsRefusedWhileLockingIsOff() async throws {
        let directory = EncodeJobTests.stateDirectory()
        let spec = try EncodeJobTests.spec(lock: true)
        await (try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: spec)).journal.close()
        let runner = try await Self.runner(directory)
        let refusal = CommandError(.notPermitted, "lock is off")
        await #expect(throws: refusal) { try await runner.handle(.start(job: spec.id, spec: nil), lockRefusal: refusal) }
        #expect(!runner.isRunning, "the refused job does not hold the reader")
        _ = try await runner.handle(.start(job: spec.id, spec: nil), lockRefusal: nil)
        #expect(runner.isRunning)
        await runner.stop()
    }

    // MARK: - The journal

    @Test func resumingAJobThatDoesNotExistCreatesNoFile() async throws {
        let directory = EncodeJobTests.stateDirectory()
        await #expect(throws: CommandError.self) { try await JobJournal.open(stateDirectory: directory, job: "ghost", spec: nil) }
        #expect(!JobJournal.exists(stateDirectory: directory, job: "ghost"))
    }

    @Test func aJournalCutShortInItsFirstLineStartsAfresh() async throws {
        let directory = EncodeJobTests.stateDirectory()
        let spec = try EncodeJobTests.spec()
        let path = JobJournal.path(stateDirectory: directory, job: spec.id)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // A power cut while the job was being created.
        try Data(#"{"spec":{"id":"roll","ser"#.utf8).write(to: URL(fileURLWithPath: path))
        // A resume cannot know the spec: refused, and not as a corrupt journal.
        let refused = await #expect(throws: CommandError.self) {
            try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: nil)
        }
        #expect(refused?.code == .invalidRequest)
        do {
            let opened = try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: spec)
            #expect(opened.ledger.nextIndex == 0 && opened.interrupted.isEmpty)
            try await opened.journal.append(.issue(index: 0, uid: EncodeJobTests.uid(1)))
            await opened.journal.close()
        }
        let again = try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: nil)
        #expect(again.ledger.spec == spec)
        #expect(again.interrupted == [0])
    }

    // MARK: - Jobs and repeated ids

    /// Sends write `w1` to wait for its tag, starts a job meanwhile, then shows the tag: the
    /// write's final answer.
    static func writeWaitingWhenAJobStarts(_ h: CommandHarness, _ jobs: RecordingJobs) async -> JSONValue {
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000","wait_for_tag_s":30}"#)
        #expect(await h.response("write")["status"] == "waiting")
        jobs.running.withLock { $0 = true }
        h.placeTag()
        return await h.finalResponse("write", id: "w1")
    }

    @Test func aRequestWaitingForItsTagGivesWayToAJobStartedMeanwhile() async throws {
        let jobs = RecordingJobs()
        let h = try await CommandHarness(jobs: jobs)
        #expect(await Self.writeWaitingWhenAJobStarts(h, jobs).errorCode == "busy")
        #expect(h.scripted.actions.isEmpty, "nothing was written under the job")
        await h.stop()
    }

    @Test func busyIsNotRememberedAndAFinishedIDIsReplayedEvenDuringAJob() async throws {
        let jobs = RecordingJobs()
        let h = try await CommandHarness(jobs: jobs)
        // Refused with `busy` once its turn came (a job started while it waited for its tag).
        #expect(await Self.writeWaitingWhenAJobStarts(h, jobs).errorCode == "busy")
        jobs.running.withLock { $0 = false }
        h.scripted.script(.success(["bytes_written": 8]))
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000"}"#)
        let second = await h.response("write", count: 3)
        #expect(second["status"] == "ok" && second["replayed"] == nil, "the busy answer was not kept")
        #expect(h.scripted.actions.count == 1)
        // The job starts again: the finished id still gets its first result, not busy.
        jobs.running.withLock { $0 = true }
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000"}"#)
        let third = await h.response("write", count: 4)
        #expect(third["status"] == "ok" && third["replayed"] == true)
        #expect(h.scripted.actions.count == 1)
        await h.stop()
    }

    @Test func aJobRequestActsOncePerID() async throws {
        let jobs = RecordingJobs()
        let h = try await CommandHarness(jobs: jobs)
        await h.send("job", #"{"id":"p1","action":"pause"}"#)
        #expect(await h.response("job")["status"] == "ok")
        await h.send("job", #"{"id":"p1","action":"pause"}"#)
        let replay = await h.response("job", count: 2)
        #expect(replay["status"] == "ok" && replay["replayed"] == true)
        #expect(jobs.count == 1, "a QoS 1 redelivery of the pause did not pause again")
        await h.stop()
    }

    @Test func anIDRefusedAsADuplicateActsOnceItsResultIsForgotten() async throws {
        let h = try await CommandHarness(cache: CommandResultCache(capacity: 1), jobs: RecordingJobs())
        await h.send("dump", #"{"id":"x","wait_for_tag_s":30}"#)
        #expect(await h.response("dump")["status"] == "waiting")
        await h.send("job", #"{"id":"x","action":"pause"}"#)
        #expect(await h.response("job").errorCode == "duplicate")
        h.scripted.script(.success(["n": 1]), .success(["n": 2]), .success(["n": 3]))
        h.placeTag()
        #expect(await h.finalResponse("dump", id: "x")["status"] == "ok")
        // Another result pushes x's out of the cache (capacity 1): x is a new request again.
        await h.send("dump", #"{"id":"y","wait_for_tag_s":0}"#)
        #expect(await h.finalResponse("dump", id: "y")["status"] == "ok")
        await h.send("dump", #"{"id":"x","wait_for_tag_s":0}"#)
        let again = await h.response("dump", count: 4)
        #expect(again["status"] == "ok" && again["replayed"] == nil)
        #expect(h.scripted.actions.count == 3)
        await h.stop()
    }

    @Test func aRequestEndedByTheAgentStoppingIsNotRemembered() async throws {
        let cache = CommandResultCache(capacity: 4)
        let h = try await CommandHarness(cache: cache)
        await h.send("write", #"{"id":"w1","ndef_hex":"D00000","wait_for_tag_s":30}"#)
        #expect(await h.response("write")["status"] == "waiting")
        await h.stop()
        let ended = await h.finalResponse("write", id: "w1")
        #expect(ended.errorCode == "canceled")
        #expect(cache.response(for: "s:w1") == nil, "the same id acts after the restart")
    }

    @Test func theTransactionIsBoundedLikeTheID() async throws {
        let h = try await CommandHarness()
        let long = String(repeating: "t", count: 257)
        await h.send("dump", #"{"id":"d1","transaction":"\#(long)","wait_for_tag_s":0}"#)
        let refused = await h.response("dump")
        #expect(refused.errorCode == "invalid_request")
        #expect(refused["error"]?["message"]?.stringValue?.hasPrefix("transaction:") == true)
        await h.stop()
    }
}
