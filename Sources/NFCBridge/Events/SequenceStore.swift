import FoundationEssentials
import Glibc
import Synchronization

/// The per-agent event sequence number: monotonic, and persisted in the state directory (file
/// `sequence`) so it keeps growing across restarts. Consumers use gaps to spot lost events, so the
/// number is written durably before the event that carries it leaves.
///
/// It never goes backwards: a `sequence` file that is missing, unreadable, negative, implausibly
/// large (beyond ``largestAccepted``, where `+1` could ever overflow) or below `floor` (the spool's
/// highest `seq`) is replaced by `floor`, and ``recovery`` says what happened (the agent logs it
/// as a warning). At a million events a second, ``largestAccepted`` is 146,000 years away.
public final class SequenceStore: Sendable {
    /// The file holding the last number handed out.
    public let path: String
    /// What was wrong with the file when it was opened (nil when it was fine or this is the first start).
    public let recovery: String?
    private let last: Mutex<Int64>

    /// The largest number a `sequence` file may hold (2^62); anything above is treated as corrupt.
    public static let largestAccepted: Int64 = 1 << 62

    /// Opens (or starts) the sequence in `directory`. `floor` is the highest `seq` known elsewhere
    /// (the spool's); counting continues above it. A file that does not hold a usable number is
    /// moved aside to `sequence.corrupt`.
    public init(directory: String, floor: Int64 = 0) throws(StorageError) {
        path = AtomicFile.path(directory, "sequence")
        let floor = min(max(0, floor), Self.largestAccepted)
        var start = floor
        var recovery: String?
        if let bytes = try AtomicFile.read(path) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines()
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            if let value = Int64(text), value >= 0, value <= Self.largestAccepted {
                if value < floor {
                    recovery = "the sequence file \(path) holds \(value), below the spool's highest seq \(floor): continuing after \(floor)"
                }
                start = max(value, floor)
            } else {
                rename(path, path + ".corrupt")
                let why = Int64(text).map { $0 < 0 ? "is negative" : "is implausibly large" } ?? "is not a number"
                recovery = "the sequence file \(path) \(why) (\"\(shown)\"; kept as sequence.corrupt): continuing after the spool's highest seq \(floor)"
            }
        } else if floor > 0 {
            recovery = "the sequence file \(path) is missing: continuing after the spool's highest seq \(floor)"
        }
        self.recovery = recovery
        last = Mutex(start)
    }

    /// The last number handed out (0 before the first event).
    public var current: Int64 { last.withLock { $0 } }

    /// Hands out the next number after persisting it. When the file cannot be written the number
    /// is handed out all the same (counting goes on in memory, never repeating a number) and
    /// `onWriteFailure` is told.
    public func next(onWriteFailure: (StorageError) -> Void) -> Int64 {
        let (next, failure) = last.withLock { (value: inout Int64) -> (Int64, StorageError?) in
            // Cannot overflow in practice (see `largestAccepted`); stay put rather than trap if it ever did.
            let (next, overflow) = value.addingReportingOverflow(1)
            guard !overflow else { return (value, StorageError(code: .stateWriteFailed, "the event sequence is exhausted")) }
            value = next
            do throws(StorageError) {
                try AtomicFile.write(Array("\(next)\n".utf8), to: path)
                return (next, nil)
            } catch {
                return (next, error)
            }
        }
        if let failure { onWriteFailure(failure) }
        return next
    }

    /// Hands out the next number after persisting it; throws when the file cannot be written (the
    /// number is used up all the same).
    public func next() throws(StorageError) -> Int64 {
        var failure: StorageError?
        let value = next { failure = $0 }
        if let failure { throw failure }
        return value
    }
}
