import FoundationEssentials
import NFCCore
import Glibc
import POSIXThreads
import Synchronization

/// The agent's encode job (`request/job`): one at a time per reader, run by an ``EncodeStation`` on
/// the reader loop's ``TagAccess``, its results reported as `event/job` and the retained
/// `state/job`. The running job's id is kept in `<state_dir>/jobs/active` until it finishes or is
/// cancelled, so an agent that stopped — SIGKILL and power cut included — resumes it at start
/// (``resumeActive(lockRefusal:)``), the serial in hand reported as torn (docs/tagging-station.md).
package final class JobRunner: JobHandling {
    private struct Current {
        var id: String
        var control: JobControl
        var task: Task<Void, Never>?
        /// Its journal, once open: a pause, resume or cancel is journalled before it is answered.
        var journal: JobJournal?
    }

    private let current = Mutex<Current?>(nil)
    /// The state last reported (`state/job`), of the running job or the last one that ended.
    private let lastReported = Mutex<EncodeJobState?>(nil)
    private let stateDirectory: String
    private let access: any TagAccess
    private let executor: any CommandExecuting
    private let reporting: EncodeStation.Reporting
    private let passwords: [Type2Password]
    private let logger: AgentLogger
    private let files = JobThread(name: "job-active")

    /// A runner keeping its journals in `stateDirectory`, taking tags from `access`, writing through
    /// `executor` and reporting through `reporting`; `passwords` are the keys file's NTAG passwords
    /// a job's `protect` step names.
    package init(stateDirectory: String, access: any TagAccess, executor: any CommandExecuting,
                 reporting: EncodeStation.Reporting, logger: AgentLogger, passwords: [Type2Password] = []) {
        self.stateDirectory = stateDirectory
        self.access = access
        self.executor = executor
        self.reporting = reporting
        self.passwords = passwords
        self.logger = logger
    }

    deinit { files.stop() }

    /// The `job` state last reported in this run, running or ended (published again on every
    /// connection, with the rest of the retained state); nil before the first job.
    package var lastState: EncodeJobState? { lastReported.withLock { $0 } }

    package var isRunning: Bool { current.withLock { $0 != nil } }

    package func handle(_ request: JobRequest, lockRefusal: CommandError?) async throws(CommandError) -> JobOutcome {
        switch request {
        case let .start(id, spec):
            try await start(id: id, spec: spec, lockRefusal: lockRefusal)
            return JobOutcome(job: id, action: request.action, state: "running")
        case let .pause(job), let .resume(job), let .cancel(job):
            let running = current.withLock { $0.map { ($0.id, $0.control, $0.journal) } }
            guard let (id, control, journal) = running else {
                throw CommandError(.invalidRequest, "job: no encode job is running (start one with action start)")
            }
            if let job, job != id { throw CommandError.invalid("job", "'\(job)' is not the running job ('\(id)')") }
            // Journalled (fsynced, on the journal's thread) before it is answered, so that a restart
            // honours it — a tag left on the reader holds the station where it is until it goes.
            let entry: JournalEntry? = switch (request, control.current) {
            case (.pause, .running): .pause
            case (.resume, .paused): .resume
            case (.cancel, .running), (.cancel, .paused): .canceled
            default: nil
            }
            if let entry, let journal { try await journal.append(entry) }
            switch request {
            case .pause: control.pause()
            case .resume: control.resume()
            default: control.cancel()
            }
            let phase = EncodeJobState.Phase(control.current)
            if entry != nil, var state = lastReported.withLock({ $0?.job == id ? $0 : nil }) {
                state.state = phase
                await reporting.state(state)
            }
            logger.info("encode job \(id): \(request.action)")
            return JobOutcome(job: id, action: request.action, state: phase.rawValue)
        }
    }

    /// Starts (or, `spec` nil, resumes) job `id`; `busy` while another job runs. A job whose steps
    /// hold `lock` is refused with `lockRefusal` when one is given, before its journal is touched.
    private func start(id: String, spec: EncodeJobSpec?, lockRefusal: CommandError?) async throws(CommandError) {
        if let spec {
            if spec.steps.lock, let lockRefusal { throw lockRefusal }
            _ = try EncodeStation.protection(spec, passwords: passwords)
        }
        let control = JobControl()
        let taken = current.withLock { current -> String? in
            if let running = current { return running.id }
            current = Current(id: id, control: control)
            return nil
        }
        if let taken {
            throw CommandError(.busy, "encode job '\(taken)' is running on this reader: pause or cancel it first (one job at a time)")
        }
        let opened: (journal: JobJournal, ledger: JobLedger, interrupted: [Int])
        var refused: JobJournal?  // closed when the job is refused after its journal was opened
        do throws(CommandError) {
            opened = try await JobJournal.open(stateDirectory: stateDirectory, job: id, spec: spec)
            refused = opened.journal
            guard !opened.ledger.isFinished else {
                // A resume of a job that ended while the agent stopped (a cancel journalled with a tag
                // still on the reader, then a SIGKILL): nothing to resume at the next start either.
                if spec == nil { try await setActive(nil) }
                throw CommandError.invalid("job", "'\(id)' is \(opened.ledger.isCanceled ? "canceled" : "finished"): start a new job id")
            }
            if opened.ledger.spec.steps.lock, let lockRefusal { throw lockRefusal }
            try await setActive(id)
            // A job paused when the agent stopped stays paused.
            if opened.ledger.isPaused { control.pause() }
            current.withLock { if $0?.id == id { $0?.journal = opened.journal } }
        } catch {
            current.withLock { $0 = nil }
            await refused?.close()
            throw error
        }
        logger.info("encode job \(id) \(spec == nil ? "resumed" : "started"): \(opened.ledger.remaining) serial(s) to issue")
        let task = Task { [self] in
            let station = EncodeStation(access: access, executor: executor, journal: opened.journal, control: control,
                                        passwords: passwords)
            let outer = reporting
            let reporting = EncodeStation.Reporting(tag: outer.tag) { [self] state in
                lastReported.withLock { $0 = state }
                await outer.state(state)
            }
            do {
                let ledger = try await station.run(opened.ledger, interrupted: opened.interrupted, reporting: reporting)
                logger.info("encode job \(id) \(ledger.isCanceled ? "canceled" : "finished"): \(ledger.done) done, \(ledger.failed) failed, \(ledger.torn) torn")
                do { try await setActive(nil) } catch { logger.warning("encode job \(id): \(error)") }
            } catch is CancellationError {
                logger.info("encode job \(id) stopped with the agent: it resumes at the next start")
            } catch {
                let failure = CommandError.fromJob(error)
                logger.error("encode job \(id) stopped: \(failure)")
                await reporting.state(EncodeJobState(opened.ledger, phase: .stopped, error: failure.description))
                do { try await setActive(nil) } catch { logger.warning("encode job \(id): \(error)") }
            }
            current.withLock { if $0?.id == id { $0 = nil } }
            // Its lock released now: the same job may be opened again at once (resumed by the CLI).
            await opened.journal.close()
        }
        current.withLock { if $0?.id == id { $0?.task = task } }
    }

    /// Resumes the job the agent was running when it stopped, if any (at start). `lockRefusal`: why
    /// a job with the step `lock` may not go on (`commands.lock.enabled` turned off since it started);
    /// such a job stays where it is, to be resumed once locking is allowed again.
    package func resumeActive(lockRefusal: CommandError?) async {
        let id: String?
        do {
            id = try await files.run { [path = activePath] () throws -> String? in
                guard let bytes = try AtomicFile.read(path, limit: 256) else { return nil }
                return String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines()
            }
        } catch {
            logger.warning("encode jobs: cannot read \(activePath): \(error)")
            return
        }
        guard let id, !id.isEmpty else { return }
        do {
            try await start(id: id, spec: nil, lockRefusal: lockRefusal)
        } catch {
            logger.warning("encode job \(id) could not be resumed: \(error)")
        }
    }

    /// Stops the running job (the agent stops): the tag in hand, if any, is torn; the job resumes at
    /// the next start.
    package func stop() async {
        let task = current.withLock { $0?.task }
        task?.cancel()
        await task?.value
    }

    private var activePath: String { AtomicFile.path(AtomicFile.path(stateDirectory, "jobs"), "active") }

    /// Records `id` as the running job (nil: none), fsynced.
    private func setActive(_ id: String?) async throws(CommandError) {
        do {
            try await files.run { [path = activePath] in
                if let id {
                    try AtomicFile.write(Array((id + "\n").utf8), to: path)
                } else if unlink(path) == 0 {
                    AtomicFile.syncDirectory(of: path)
                }
            }
        } catch let error as StorageError {
            throw CommandError(.journalFailed, error.message)
        } catch {
            throw CommandError(.journalFailed, "\(error)")
        }
    }
}
