import FoundationEssentials
import Glibc

/// The spool's two files and every system call made on them. Only the spool's writer thread
/// (and start-up) calls these: they block on the disk.
///
/// - `spool.jsonl`: append-only, one JSON ``SpooledMessage`` per line;
/// - `spool.head`: `<offset> <seq>`: the byte offset of the first message not yet delivered, and
///   the highest `seq` the spool ever held.
struct SpoolFiles: Sendable {
    let logPath: String
    let headPath: String

    /// The least free space a state directory must have at start (the spool refuses to start on
    /// a full filesystem rather than lose the first events).
    static let minimumFreeBytes: UInt64 = 1 << 20

    /// What an earlier run left: the waiting lines (with their lengths) within the bounds, the
    /// oldest beyond them dropped, the highest `seq` seen, how many lines could not be read and
    /// whether the last one was torn.
    struct Loaded {
        var messages: [(message: SpooledMessage, length: Int)] = []
        var dropped = EventSpool.Drop()
        var highestSeq: Int64 = 0
        var corrupt = 0
        var torn = false
        /// True when the files are not exactly the waiting lines and a head of 0 (delivered prefix,
        /// junk, torn tail, dropped lines, a head that is not where a line starts): the writer's
        /// first pass rewrites them, before it appends anything.
        var needsRewrite = false
    }

    /// Reads the log a chunk at a time (``SpoolLogScan``), keeping at most `maxEvents` waiting
    /// messages of at most `maxBytes` in all: the oldest beyond them are dropped, never the newest.
    func load(maxEvents: Int, maxBytes: Int) throws(StorageError) -> Loaded {
        var head = 0
        var headIsStale = false
        var headSeq: Int64 = 0
        if let headBytes = try AtomicFile.read(headPath, limit: 64, prefix: true) {
            let fields = String(decoding: headBytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            if let offset = fields.first.flatMap({ Int($0) }), offset >= 0 { head = offset } else { headIsStale = true }
            if fields.count > 1, let seq = Int64(fields[1]), seq >= 0 { headSeq = seq }
        }
        var scan = try scanLog(head: head, maxEvents: maxEvents, maxBytes: maxBytes)
        // The head is where a line starts: 0, or just after a newline. Any other offset is not one
        // this spool wrote for this log (beyond a log cut by a crash before the head was written,
        // inside a line): every line is taken as waiting (at least once), and the log and head are
        // rewritten before anything is appended — appended lines would otherwise fall behind it.
        if !scan.headIsLineStart {
            (head, headIsStale) = (0, true)
            scan = try scanLog(head: 0, maxEvents: maxEvents, maxBytes: maxBytes)
        }
        var result = Loaded(
            messages: scan.messages, dropped: scan.dropped, highestSeq: max(headSeq, scan.highestSeq),
            corrupt: scan.corrupt, torn: scan.isTorn)
        result.needsRewrite = result.corrupt > 0 || result.torn || result.dropped.count > 0 || head > 0 || headIsStale
            || (result.messages.isEmpty && scan.size > 0)
        return result
    }

    /// The log read through a ``SpoolLogScan`` from `head` on.
    private func scanLog(head: Int, maxEvents: Int, maxBytes: Int) throws(StorageError) -> SpoolLogScan {
        var scan = SpoolLogScan(head: head, maxEvents: maxEvents, maxBytes: maxBytes)
        _ = try AtomicFile.stream(logPath) { chunk in
            scan.read(chunk)
            return true
        }
        return scan
    }

    /// Refuses a state directory the spool cannot live in: one where a file cannot be created,
    /// written and fsync'd (a read-only or pseudo filesystem such as `/proc`), or whose
    /// filesystem has less than ``minimumFreeBytes`` free.
    func checkUsable() throws(StorageError) {
        let directory = AtomicFile.directory(of: logPath)
        var fs = statvfs()
        if statvfs(directory.isEmpty ? "." : directory, &fs) == 0 {
            let free = UInt64(fs.f_bavail).multipliedReportingOverflow(by: UInt64(fs.f_frsize))
            if !free.overflow, free.partialValue < Self.minimumFreeBytes {
                throw StorageError(
                    code: .stateDirUnusable,
                    "the state directory \(directory) has \(free.partialValue) bytes free; the spool needs at least \(Self.minimumFreeBytes): free space or choose another state_dir")
            }
        }
        let probe = AtomicFile.path(directory, ".spool-probe")
        do throws(StorageError) {
            try AtomicFile.write(Array("probe\n".utf8), to: probe)
        } catch {
            throw StorageError(code: .stateDirUnusable, "the spool cannot be written in \(directory) (\(error.message)): choose a state_dir on a writable disk")
        }
        unlink(probe)
    }

    /// Appends `bytes` (whole lines) to the log, which holds `end` good bytes, and fsyncs it. A
    /// write cut short (a full disk) is cut back to `end`, so the next append never lands on a
    /// fragment; when even that fails the caller rewrites the log.
    func append(_ bytes: [UInt8], end: Int) throws(StorageError) {
        let fd = open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError(code: .spoolWriteFailed, "cannot open \(logPath)", errno: errno, path: logPath) }
        defer { close(fd) }
        if end == 0 { AtomicFile.syncDirectory(of: logPath) }
        do throws(StorageError) {
            try AtomicFile.writeAll(fd, bytes, path: logPath)
        } catch {
            if ftruncate(fd, off_t(end)) == 0 { fsync(fd) }
            throw StorageError(code: .spoolWriteFailed, error.message)
        }
        guard fsync(fd) == 0 else {
            let number = errno
            if ftruncate(fd, off_t(end)) == 0 { fsync(fd) }
            throw StorageError(code: .spoolWriteFailed, "fsync \(logPath)", errno: number)
        }
    }

    func writeHead(offset: Int, highestSeq: Int64) throws(StorageError) {
        do throws(StorageError) {
            try AtomicFile.write(Array("\(offset) \(highestSeq)\n".utf8), to: headPath)
        } catch {
            throw StorageError(code: .spoolWriteFailed, error.message)
        }
    }

    /// Everything delivered: the log starts afresh; the head keeps the highest `seq`.
    func truncate(highestSeq: Int64) throws(StorageError) {
        // Head first, as in ``rewrite(_:highestSeq:)``: a crash in between leaves offset 0 over the
        // delivered lines (sent again, at least once), never a head beyond the end of a log that
        // later appends would fall behind.
        try writeHead(offset: 0, highestSeq: highestSeq)
        let fd = open(logPath, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError(code: .spoolWriteFailed, "cannot truncate \(logPath)", errno: errno, path: logPath) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StorageError(code: .spoolWriteFailed, "fsync \(logPath)", errno: errno) }
    }

    /// Replaces the log with exactly `bytes` (the waiting lines), atomically.
    func rewrite(_ bytes: [UInt8], highestSeq: Int64) throws(StorageError) {
        // Order matters for crash safety: the old head goes before the new log (offset 0) lands,
        // so a crash in between never skips a waiting message (it may re-send delivered ones).
        unlink(headPath)
        do throws(StorageError) {
            try AtomicFile.write(bytes, to: logPath)
        } catch {
            throw StorageError(code: .spoolWriteFailed, error.message)
        }
        try writeHead(offset: 0, highestSeq: highestSeq)
    }
}
