import FoundationEssentials
import Glibc
import NFCCore
import POSIXThreads
import Synchronization

/// An encode job's journal: `<state_dir>/jobs/<job>.journal`, one JSON object per line, appended and
/// fsynced (file, and the directory when the file is new) before the call returns. The job's first
/// line holds its spec; then one line per step of each serial (``JournalEntry``). The blocking calls
/// (write, fsync) run on the journal's own thread, never on the reader's or Swift's cooperative pool.
///
/// A power cut can leave a last line half written: it is dropped on load (the step it began never
/// happened: an `issue` is written before the tag is touched). Any other bad line is `journal_corrupt`.
package final class JobJournal: Sendable {
    /// The file.
    package let path: String
    private let fd: Int32
    private let writer: JobThread
    /// Until ``close()``: then appends fail, and the lock is released.
    private let isOpen = Mutex(true)

    /// Largest journal read back (a million serials take about 60 MB).
    static let maximumBytes = 128 << 20

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
        writer = JobThread(name: "job-journal")
    }

    deinit {
        closeBlocking()
        writer.stop()
    }

    /// Closes the journal, which releases its lock (``lockBlocking(job:)``), once an append under way
    /// is done; appends after it fail. Without it the lock goes with the last reference to the journal,
    /// whenever that is released: a job that ended could still hold its journal for a moment.
    package func close() async {
        try? await writer.run { [weak self] in self?.closeBlocking() }
    }

    private func closeBlocking() {
        let wasOpen = isOpen.withLock { open in
            defer { open = false }
            return open
        }
        if wasOpen { Glibc.close(fd) }
    }

    /// The journal's path for job `id` in `stateDirectory`.
    package static func path(stateDirectory: String, job id: String) -> String {
        AtomicFile.path(AtomicFile.path(stateDirectory, "jobs"), id + ".journal")
    }

    /// Whether job `id` has a journal in `stateDirectory`.
    package static func exists(stateDirectory: String, job id: String) -> Bool {
        access(path(stateDirectory: stateDirectory, job: id), F_OK) == 0
    }

    /// Opens job `spec.id`'s journal in `stateDirectory`, or starts it with `spec` (nil: the job
    /// must exist). Returns the journal and the ledger its lines give — serials in hand when the
    /// journal ended are torn (``JobLedger/tearInterrupted()``, their indexes in `interrupted`). A
    /// journal started with another spec is refused (`invalid_request`): a job id names one job.
    /// Blocking (file reads, fsync): call it off the cooperative pool (``open(stateDirectory:job:spec:)``).
    static func openBlocking(stateDirectory: String, job id: String, spec: EncodeJobSpec?)
        throws(CommandError) -> (journal: JobJournal, ledger: JobLedger, interrupted: [Int])
    {
        let path = path(stateDirectory: stateDirectory, job: id)
        do {
            try AtomicFile.makeDirectory(AtomicFile.directory(of: path))
        } catch {
            throw CommandError(.journalFailed, error.message)
        }
        // A resume of a job that does not exist creates no file.
        guard spec != nil || access(path, F_OK) == 0 else {
            throw CommandError(.invalidRequest, "job: no job '\(id)' to resume")
        }
        // One writer per journal, for as long as it is open (the lock goes with the descriptor):
        // taken before the journal is read, so what is replayed is what this process appends to.
        let fd = try openForAppend(path)
        let journal = JobJournal(path: path, fd: fd)
        try journal.lockBlocking(job: id)
        var read: [UInt8]?
        do { read = try AtomicFile.read(path, limit: maximumBytes) } catch { throw CommandError(.journalFailed, error.message) }
        // Only the first line, cut short by a power loss while the job was being created: the job
        // never started (no serial was issued), so it starts afresh with its spec.
        if let bytes = read, !bytes.contains(0x0A) { read = [] }
        // A journal with lines is replayed; one without starts with the spec.
        let existing: [UInt8]
        switch (read, spec) {
        case let (bytes?, _) where !bytes.isEmpty:
            existing = bytes
        case let (_, spec?):
            guard ftruncate(fd, 0) == 0 else {
                throw CommandError(.journalFailed, "cannot empty \(path): \(String(cString: strerror(errno)))")
            }
            try journal.appendBlocking(.spec(spec))
            AtomicFile.syncDirectory(of: path)
            return (journal, JobLedger(spec: spec), [])
        case (_, nil):
            throw CommandError(.invalidRequest, "job: no job '\(id)' to resume (its journal was cut short before the job started: start it with its spec)")
        }
        var ledger = try replay(existing, path: path)
        // Cut a half-written last line off, so the next line starts on a line of its own.
        let whole = (existing.lastIndex(of: 0x0A) ?? -1) + 1
        if whole < existing.count {
            guard ftruncate(fd, off_t(whole)) == 0, fsync(fd) == 0 else {
                throw CommandError(.journalFailed, "cannot cut the torn last line of \(path): \(String(cString: strerror(errno)))")
            }
        }
        if let spec, spec != ledger.spec {
            throw CommandError(.invalidRequest, "job: '\(id)' exists with another template, serials, steps or policy (\(path)): resume it as it is, or use a new job id")
        }
        let interrupted = ledger.tearInterrupted()
        return (journal, ledger, interrupted)
    }

    /// Takes the journal's exclusive lock, held until it is closed; `busy` when another process (an
    /// agent, `nfcbridge encode`) or another open of this one holds it.
    private func lockBlocking(job id: String) throws(CommandError) {
        guard flock(fd, LOCK_EX | LOCK_NB) != 0 else { return }
        let error = errno
        guard error == EWOULDBLOCK else {
            throw CommandError(.journalFailed, "cannot lock \(path): \(String(cString: strerror(error)))")
        }
        throw CommandError(.busy, "encode job '\(id)' is being run by another agent or `nfcbridge encode` (\(path) is locked): stop that one first, or use a new job id")
    }

    /// `path` opened for appending (created when missing).
    private static func openForAppend(_ path: String) throws(CommandError) -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CommandError(.journalFailed, "cannot open \(path): \(String(cString: strerror(errno)))") }
        return fd
    }

    /// ``openBlocking(stateDirectory:job:spec:)`` on a thread of its own.
    package static func open(stateDirectory: String, job id: String, spec: EncodeJobSpec?) async throws(CommandError)
        -> (journal: JobJournal, ledger: JobLedger, interrupted: [Int])
    {
        let opener = JobThread(name: "job-open")
        defer { opener.stop() }
        do {
            return try await opener.run { try openBlocking(stateDirectory: stateDirectory, job: id, spec: spec) }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(.journalFailed, "\(error)")
        }
    }

    /// The ledger `bytes` (a whole journal) give.
    static func replay(_ bytes: [UInt8], path: String) throws(CommandError) -> JobLedger {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        // A last line without its newline was cut by a power loss: that step never happened.
        if lines.last?.isEmpty == true { lines.removeLast() } else if !lines.isEmpty { lines.removeLast() }
        var ledger: JobLedger?
        for (number, line) in lines.enumerated() {
            let entry: JournalEntry
            do {
                entry = try JournalLine.decode(Array(line))
            } catch {
                throw CommandError(.journalCorrupt, "\(path):\(number + 1): \(error.message)")
            }
            if ledger == nil {
                guard case let .spec(spec) = entry else { throw JobLedger.corrupt("\(path): the first line is not the job") }
                ledger = JobLedger(spec: spec)
            } else {
                try ledger?.apply(entry)
            }
        }
        guard let ledger else { throw JobLedger.corrupt("\(path) holds no job line") }
        return ledger
    }

    /// Appends `entry` and fsyncs it, on the journal's thread.
    package func append(_ entry: JournalEntry) async throws(CommandError) {
        do {
            // Weakly: the thread may keep its closure a moment after answering, and a strong capture
            // would keep the journal, and its lock, past the last reference its owner drops.
            try await writer.run { [weak self] in
                guard let self else { throw CommandError(.journalFailed, "the journal was closed: the job has ended") }
                try appendBlocking(entry)
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(.journalFailed, "\(error)")
        }
    }

    private func appendBlocking(_ entry: JournalEntry) throws(CommandError) {
        guard isOpen.withLock({ $0 }) else { throw CommandError(.journalFailed, "\(path) was closed: the job has ended") }
        do {
            try AtomicFile.writeAll(fd, JournalLine.encode(entry) + [0x0A], path: path)
        } catch {
            throw CommandError(.journalFailed, error.message + ": the job stops; free the disk and resume it")
        }
        guard fsync(fd) == 0 else {
            throw CommandError(.journalFailed, "fsync \(path): \(String(cString: strerror(errno))): the job stops; resume it once the disk is fine")
        }
    }
}

/// The JSON form of one journal line: `{"t":"issue","i":3,"uid":"04A1…"}`.
enum JournalLine {
    static func encode(_ entry: JournalEntry) -> [UInt8] {
        let object: [String: JSONValue] =
            switch entry {
            case let .spec(spec): ["t": "job", "spec": spec.json]
            case let .issue(index, uid): ["t": "issue", "i": .int(Int64(index)), "uid": .string(uid.hexString)]
            case let .done(index): ["t": "done", "i": .int(Int64(index))]
            case let .spent(index, code): ["t": "spent", "i": .int(Int64(index)), "code": .string(code)]
            case let .torn(index, code): ["t": "torn", "i": .int(Int64(index)), "code": .string(code)]
            case let .release(index): ["t": "release", "i": .int(Int64(index))]
            case .canceled: ["t": "canceled"]
            case .pause: ["t": "pause"]
            case .resume: ["t": "resume"]
            }
        return JSONValue.object(object).jsonBytes
    }

    static func decode(_ line: [UInt8]) throws(CommandError) -> JournalEntry {
        guard let object = (try? JSONValue(parsing: Data(line)))?.objectValue, let kind = object["t"]?.stringValue else {
            throw CommandError(.journalCorrupt, "not a journal line")
        }
        if kind == "job" {
            guard let spec = object["spec"]?.objectValue else { throw CommandError(.journalCorrupt, "a job line without its spec") }
            return .spec(try EncodeJobSpec(json: spec))
        }
        if kind == "canceled" { return .canceled }
        if kind == "pause" { return .pause }
        if kind == "resume" { return .resume }
        guard let index = object["i"]?.intValue, (0..<Int64(SerialSource.maximumCount)).contains(index) else {
            throw CommandError(.journalCorrupt, "a \(kind) line without its serial index")
        }
        let code = object["code"]?.stringValue ?? ""
        switch kind {
        case "issue":
            guard let uid = object["uid"]?.stringValue.flatMap([UInt8].init(hex:)), (4...10).contains(uid.count) else {
                throw CommandError(.journalCorrupt, "an issue line without a UID")
            }
            return .issue(index: Int(index), uid: uid)
        case "done": return .done(index: Int(index))
        case "spent": return .spent(index: Int(index), code: code)
        case "torn": return .torn(index: Int(index), code: code)
        case "release": return .release(index: Int(index))
        default: throw CommandError(.journalCorrupt, "unknown line kind '\(kind)'")
        }
    }
}
