import FoundationEssentials
import Glibc
import Synchronization

/// The per-agent event sequence number: monotonic, and persisted in the state directory (file
/// `sequence`) so it keeps growing across restarts. Consumers use gaps to spot lost events, so the
/// number is written durably before the event that carries it leaves.
public final class SequenceStore: Sendable {
    /// The file holding the last number handed out.
    public let path: String
    private let last: Mutex<Int64>

    /// Opens (or starts) the sequence in `directory`. A file that does not hold a number is moved
    /// aside to `sequence.corrupt` and counting restarts above `floor`.
    public init(directory: String, floor: Int64 = 0) throws(StorageError) {
        path = AtomicFile.path(directory, "sequence")
        var start = floor
        if let bytes = try AtomicFile.read(path) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines()
            if let value = Int64(text), value >= 0 {
                start = max(value, floor)
            } else {
                rename(path, path + ".corrupt")
            }
        }
        last = Mutex(start)
    }

    /// The last number handed out (0 before the first event).
    public var current: Int64 { last.withLock { $0 } }

    /// Hands out the next number after persisting it.
    public func next() throws(StorageError) -> Int64 {
        try last.withLock { (value: inout Int64) throws(StorageError) -> Int64 in
            let next = value + 1
            try AtomicFile.write(Array("\(next)\n".utf8), to: path)
            value = next
            return next
        }
    }
}
