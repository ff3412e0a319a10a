import Foundation
import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// What an encode job reports and keeps when a tag's first attempt fails, a tag is torn mid-lock,
/// or a job is cancelled or paused (docs/tagging-station.md); on the benches of ``EncodeJobTests``.
@Suite(.timeLimit(.minutes(1))) struct EncodeJobOutcomeTests {
    typealias Bench = EncodeJobTests.Bench

    @Test func aTagThatSucceedsOnItsRetryReportsOkWithoutTheFirstAttemptsError() async throws {
        let bench = try await Bench()
        let job = bench.run(try EncodeJobTests.spec(count: 1))
        var results = bench.results.makeAsyncIterator()
        let flaky = VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid(1))
        flaky.corruptNextWrite()
        let retried = await bench.show(flaky, &results)
        #expect(retried?.result == .ok && retried?.attempts == 2)
        #expect(retried?.code == nil && retried?.message == nil, "\(String(describing: retried))")
        #expect(try await job.value.done == 1)
    }
}

extension EncodeJobOutcomeTests {
    /// Page `page` of a virtual tag.
    static func page(_ page: Int, of tag: VirtualType2Tag) -> [UInt8] { Array(tag.memory[page * 4..<page * 4 + 4]) }

    /// WRITEs of the test message on an NTAG213, then of its CC and its dynamic lock bits (page 28h).
    static let writesBeforeStaticLock = 8

    @Test func aTagTornMidLockIsLockedForGoodBeforeItIsReportedOk() async throws {
        let bench = try await Bench()
        // Two serials: a job whose only serial is torn has nothing left to wait for.
        let job = bench.run(try EncodeJobTests.spec(count: 2, lock: true))
        var results = bench.results.makeAsyncIterator()
        let tag = VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid(1))
        // The message's WRITEs, then the CC's and the dynamic lock bits'; the tag leaves before the static lock bytes.
        bench.pulls.withLock { $0[EncodeJobTests.uid(1)] = Self.writesBeforeStaticLock }
        let torn = await bench.show(tag, &results, seen: true)
        #expect(torn?.result == .torn, "\(String(describing: torn))")
        try #require(Self.page(3, of: tag)[3] == 0x0F && Self.page(40, of: tag)[0] == 0xFF,
                     "the pull did not come between the dynamic and the static lock bits")
        #expect(Self.page(2, of: tag)[2...3] == [0x00, 0x00])
        let back = await bench.show(tag, &results)
        #expect(back?.result == .ok && back?.resumed == true && back?.code == nil, "\(String(describing: back))")
        #expect(Self.page(2, of: tag)[2...3] == [0xFF, 0xFF], "the static lock bytes were not set")
        let next = await bench.show(VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid(2)), &results)
        #expect(next?.result == .ok && next?.serial == "1001")
        let ledger = try await job.value
        #expect(ledger.done == 2)
        #expect(EncodeJobTests.message(on: tag) == (try EncodeJobTests.uriMessage("https://ex.com/t/001000")))
    }
}

extension EncodeJobOutcomeTests {
    /// A ``JobRunner`` on a virtual reader, its tag results streamed and its states kept.
    final class RunnerBench: Sendable {
        let device = VirtualReaderDevice()
        let directory: String
        let results: AsyncStream<EncodeTagResult>
        let continuation: AsyncStream<EncodeTagResult>.Continuation
        let log = StateLog()
        let runner: JobRunner

        final class StateLog: Sendable {
            let states = Mutex<[EncodeJobState]>([])
        }

        init(directory: String = EncodeJobTests.stateDirectory()) async throws {
            self.directory = directory
            (results, continuation) = AsyncStream.makeStream()
            _ = try await device.open()
            let continuation = continuation, log = log
            runner = JobRunner(
                stateDirectory: directory, access: DeviceTagAccess(device: device, modulations: [.iso14443a], interval: .milliseconds(20)),
                executor: TagCommandExecutor(),
                reporting: EncodeStation.Reporting(tag: { continuation.yield($0) }, state: { state in log.states.withLock { $0.append(state) } }),
                logger: AgentLogger(level: .error, journald: false, clock: ManualClock(), sink: { _ in }))
        }

        /// The ledger the journal on disk gives now (what a restart after a SIGKILL would find).
        func journalled(_ id: String = "roll") throws -> JobLedger {
            let path = JobJournal.path(stateDirectory: directory, job: id)
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            return try JobJournal.replay(bytes, path: path)
        }
    }

    @Test func anAnsweredCancelIsJournalledWhileATagStaysOnTheReader() async throws {
        let bench = try await RunnerBench()
        let spec = try EncodeJobTests.spec(count: 3)
        _ = try await bench.runner.handle(.start(job: spec.id, spec: spec), lockRefusal: nil)
        var results = bench.results.makeAsyncIterator()
        bench.device.place(VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid(1)))
        #expect(await results.next()?.result == .ok)
        // The tag stays: the station waits for it to leave (once it reported the tag's counts).
        while bench.log.states.withLock({ $0.last?.done != 1 }) { await Task.yield() }
        let answer = try await bench.runner.handle(.cancel(job: spec.id), lockRefusal: nil)
        #expect(answer.state == "canceled")
        #expect(try bench.journalled().isCanceled, "a restart now would resume the job")
        #expect(bench.log.states.withLock { $0.last?.state } == .canceled)
        // The agent stops with the tag still there (as a SIGKILL would leave it): the next start finds
        // the job canceled, resumes nothing, and forgets it (it named the job at every start after).
        await bench.runner.stop()
        let active = AtomicFile.path(AtomicFile.path(bench.directory, "jobs"), "active")
        #expect(FileManager.default.fileExists(atPath: active))
        let restarted = try await RunnerBench(directory: bench.directory)
        await restarted.runner.resumeActive(lockRefusal: nil)
        #expect(!restarted.runner.isRunning)
        #expect(!FileManager.default.fileExists(atPath: active), "jobs/active still names the canceled job")
    }

    @Test func anAnsweredPauseIsJournalledAndARestartResumesThePausedJobPaused() async throws {
        let directory = EncodeJobTests.stateDirectory()
        let spec = try EncodeJobTests.spec(count: 3)
        do {
            let bench = try await RunnerBench(directory: directory)
            _ = try await bench.runner.handle(.start(job: spec.id, spec: spec), lockRefusal: nil)
            // Once the station reported its start (it waits for a tag).
            while bench.log.states.withLock({ $0.isEmpty }) { await Task.yield() }
            let answer = try await bench.runner.handle(.pause(job: spec.id), lockRefusal: nil)
            #expect(answer.state == "paused")
            #expect(try bench.journalled().isPaused)
            #expect(bench.log.states.withLock { $0.last?.state } == .paused)
            await bench.runner.stop()
        }
        let restarted = try await RunnerBench(directory: directory)
        await restarted.runner.resumeActive(lockRefusal: nil)
        #expect(restarted.runner.isRunning)
        while restarted.log.states.withLock({ $0.isEmpty }) { await Task.yield() }
        #expect(restarted.log.states.withLock { $0.first?.state } == .paused, "the restarted job was not paused")
        let answer = try await restarted.runner.handle(.resume(job: spec.id), lockRefusal: nil)
        #expect(answer.state == "running")
        #expect(try restarted.journalled().isPaused == false)
        await restarted.runner.stop()
    }
}
