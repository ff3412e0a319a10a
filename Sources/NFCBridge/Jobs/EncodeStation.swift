import NFCCore

/// Runs an encode job: takes each next tag from a ``TagAccess``, gives it the next serial and drives
/// it through the command layer's own write and lock (``CommandExecuting``: the code `request/write`
/// and `nfcbridge write` run), journalling every step (``JobJournal``) so that a serial is issued to
/// one tag only, a tag gets one serial only, and a stop at any point — power cut included — resumes
/// without losing or repeating a serial.
///
/// Per tag, in order:
/// 1. a UID the ledger knows: done or spent → `duplicate`; torn → finished with its own serial;
/// 2. identification (the reader loop's, when it made one); with policy `blank`, the NDEF message
///    must be empty, else `refused` (`not_blank`);
/// 3. `issue` (serial → UID) journalled and fsynced, then the write (which reads its pages back),
///    then the lock and the password protection when asked;
/// 4. `done`; or, when nothing was written (refused before the first WRITE), `release`; when the tag
///    left, `torn`; when the write or verify failed, a retry on the same tag or `spent`.
/// Then it waits for the tag to leave before it takes the next.
package struct EncodeStation: Sendable {
    /// Where tags come from.
    let access: any TagAccess
    /// The write and lock (``TagCommandExecutor`` outside tests).
    let executor: any CommandExecuting
    /// The job's journal.
    let journal: JobJournal
    /// Pause / resume / cancel.
    let control: JobControl
    /// The NTAG passwords of the keys file, for the `protect` step (by name).
    let passwords: [Type2Password]

    /// What the station tells its user.
    package struct Reporting: Sendable {
        /// After each tag.
        var tag: @Sendable (EncodeTagResult) async -> Void
        /// After each change of the counts or the phase.
        var state: @Sendable (EncodeJobState) async -> Void

        /// Reports through `tag` and `state`.
        package init(tag: @escaping @Sendable (EncodeTagResult) async -> Void,
                     state: @escaping @Sendable (EncodeJobState) async -> Void) {
            self.tag = tag
            self.state = state
        }
    }

    /// Creates a station.
    package init(access: any TagAccess, executor: any CommandExecuting = TagCommandExecutor(), journal: JobJournal,
                 control: JobControl = JobControl(), passwords: [Type2Password] = []) {
        self.access = access
        self.executor = executor
        self.journal = journal
        self.control = control
        self.passwords = passwords
    }

    /// Runs the job from `ledger` until every serial is resolved or it is cancelled; `interrupted`
    /// are the serials the journal left in hand (reported as torn first). Returns the final ledger.
    /// A journal that cannot be written stops it (`journal_failed`); cancelling the task stops it
    /// too (`CancellationError`), resumable from the journal.
    package func run(_ ledger: JobLedger, interrupted: [Int] = [], reporting: Reporting) async throws -> JobLedger {
        var ledger = ledger
        let protection = try Self.protection(ledger.spec, passwords: passwords)
        for index in interrupted {
            let uid = ledger.states[index].uid ?? []
            await reporting.tag(EncodeTagResult(
                job: ledger.spec.id, n: index + 1, serial: ledger.spec.serials.serial(at: index).description,
                uid: uid.hexString, result: .torn, code: "interrupted",
                message: "the job stopped while this tag was being written: it may hold part of the message; show it again to finish it",
                resumed: false, attempts: 0, ms: 0))
        }
        await reporting.state(EncodeJobState(ledger, phase: phase(ledger)))
        while !ledger.isFinished {
            switch control.current {
            case .canceled:
                try await journal.append(.canceled)
                try ledger.apply(.canceled)
            case .paused:
                await reporting.state(EncodeJobState(ledger, phase: .paused))
                _ = await control.waitForChange(from: .paused)
                try Task.checkCancellation()
                await reporting.state(EncodeJobState(ledger, phase: phase(ledger)))
            case .running:
                guard let tag = try await nextTag() else { continue }
                let started = ContinuousClock.now
                var result = try await encode(tag, ledger: &ledger, protection: protection)
                let elapsed = started.duration(to: .now).components
                result.ms = elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
                await reporting.tag(result)
                await reporting.state(EncodeJobState(ledger, phase: phase(ledger)))
                if !ledger.isFinished { try await access.waitForRemoval(of: tag) }
            }
        }
        // A cancel ends here (the last tag's report already said `finished`).
        if ledger.isCanceled { await reporting.state(EncodeJobState(ledger, phase: .canceled)) }
        return ledger
    }

    private func phase(_ ledger: JobLedger) -> EncodeJobState.Phase {
        // A cancel answered is journalled already (JobRunner), the tag in hand finished or not.
        let live = EncodeJobState.Phase(control.current)
        if ledger.isCanceled || live == .canceled { return .canceled }
        return ledger.isFinished ? .finished : live
    }

    /// The next tag, or nil when the control changed first (pause, cancel).
    private func nextTag() async throws -> PresentTag? {
        try await withThrowingTaskGroup(of: PresentTag?.self) { group in
            group.addTask { try await access.nextTag() }
            group.addTask {
                _ = await control.waitForChange(from: .running)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { return nil }
            return first
        }
    }

    /// Encodes one tag (see the type's steps); journal failures are thrown.
    private func encode(_ tag: PresentTag, ledger: inout JobLedger, protection: Type2PasswordProtect.Settings?)
        async throws(CommandError) -> EncodeTagResult
    {
        let spec = ledger.spec
        var result = EncodeTagResult(job: spec.id, uid: tag.uid.hexString, result: .refused, resumed: false, attempts: 0, ms: 0)
        let resumedIndex = ledger.byUID[tag.uid]
        if let index = resumedIndex {
            result.n = index + 1
            result.serial = spec.serials.serial(at: index).description
            switch ledger.states[index] {
            case .done:
                return duplicate(result, code: "already_encoded", "this tag already holds serial \(result.serial ?? "")")
            case let .spent(_, code):
                return duplicate(result, code: "already_failed", "this tag failed before (\(code)) and its serial was spent")
            case .open, .issued, .torn:
                result.resumed = true
            }
        }
        let info: CardInfo
        do {
            info = try await access.withExclusiveAccess(to: tag) { transport in
                try await Self.identify(tag, transport: transport, checkBlank: spec.policy.tags == .blank && resumedIndex == nil)
            }
        } catch {
            return refused(result, CommandError.fromJob(error))
        }
        guard let index = resumedIndex ?? ledger.nextIndex else {
            return refused(result, CommandError(.canceled, "no serial is left to issue"))
        }
        let serial = spec.serials.serial(at: index)
        result.n = index + 1
        result.serial = serial.description
        let message: [UInt8]
        do {
            message = try spec.template.message(for: EncodeTemplate.Fill(serial: serial, uid: tag.uid, n: index + 1))
        } catch {
            return refused(result, error)
        }
        try await record(.issue(index: index, uid: tag.uid), in: &ledger)
        while true {
            result.attempts += 1
            var attempt = await write(message, lock: spec.steps.lock, protection: protection, resumed: result.resumed,
                                      tag: tag, info: info)
            if let refusal = attempt, result.resumed, refusal.error.code == .tagLocked, await holds(message, tag: tag, info: info) {
                // Torn during (or after) its lock: the tag holds its serial but may lack some lock bits
                // and its protection. Those steps are finished (only missing bits set) and verified.
                attempt = await finish(lock: spec.steps.lock, protection: protection, tag: tag, info: info)
            }
            guard let failure = attempt else {
                try await record(.done(index: index), in: &ledger)
                result.result = .ok
                // A failed attempt before this one is not the outcome: `code` is null for `ok`.
                result.code = nil
                result.message = nil
                return result
            }
            result.code = failure.error.code.rawValue
            result.message = failure.error.message
            switch Self.kind(of: failure) {
            case .nothingWritten where !result.resumed:
                try await record(.release(index: index), in: &ledger)
                result.n = nil
                result.serial = nil
                result.result = .refused
                return result
            case .tagGone:
                try await record(.torn(index: index, code: failure.error.code.rawValue), in: &ledger)
                result.result = .torn
                return result
            case .nothingWritten, .badWrite:
                if spec.policy.onFailure == .retry, result.attempts <= spec.policy.retries { continue }
                try await record(.spent(index: index, code: failure.error.code.rawValue), in: &ledger)
                result.result = .failed
                return result
            }
        }
    }

    /// Identifies the tag (the reader loop's identification when it has one) and, with `checkBlank`,
    /// refuses one whose NDEF message is not empty (`not_blank`).
    private static func identify(_ tag: PresentTag, transport: any TagTransport, checkBlank: Bool) async throws -> CardInfo {
        let info = try await TagCommandExecutor.cardInfo(transport, identified: tag.cardInfo, changesTag: true)
        guard checkBlank else { return info }
        switch try await NDEFReader.read(info: info, transport: transport) {
        case let .message(bytes) where !bytes.isEmpty:
            throw CommandError(.notBlank, "the tag holds an NDEF message of \(bytes.count) bytes and the job's policy is blank (use overwrite to replace it)")
        case .message, .noMessage:
            return info
        case let .unreadable(error), let .notRead(error):
            throw CommandError(error, pagesWritten: [])
        }
    }

    /// Whether the tag's NDEF message is `message` (a torn tag found locked: was it finished?).
    private func holds(_ message: [UInt8], tag: PresentTag, info: CardInfo) async -> Bool {
        let read = try? await access.withExclusiveAccess(to: tag) { transport in
            try await NDEFReader.read(info: info, transport: transport)
        }
        return read?.message == message
    }

    private func record(_ entry: JournalEntry, in ledger: inout JobLedger) async throws(CommandError) {
        try await journal.append(entry)
        try ledger.apply(entry)
    }

    private func duplicate(_ result: EncodeTagResult, code: String, _ message: String) -> EncodeTagResult {
        var result = result
        result.result = .duplicate
        result.code = code
        result.message = message
        return result
    }

    private func refused(_ result: EncodeTagResult, _ error: CommandError) -> EncodeTagResult {
        var result = result
        result.result = .refused
        result.code = error.code.rawValue
        result.message = error.message
        return result
    }
}

extension CommandError {
    /// Any error met while handling a tag, as a command error (NFCCore's through the one table).
    static func fromJob(_ error: any Error) -> CommandError {
        if let error = error as? CommandError { return error }
        return TagCommandExecutor.failure(error, changesTag: true)
    }
}
