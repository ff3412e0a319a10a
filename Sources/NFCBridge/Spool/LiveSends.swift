import FoundationEssentials
import Glibc
import POSIXThreads
import Synchronization

/// The record of events sent live (`spool.live` in the state directory), so that a kill never
/// yields two copies of one `event_id` with different `buffered` flags.
///
/// The spool's head moves after the broker's PUBACK, written by the spool's writer thread; a
/// SIGKILL in between leaves the event in the log, and the next run sends it again. Before the
/// sender publishes an event live it records the event's `seq` here; the next run sends a spooled
/// event whose `seq` is recorded with `buffered: false` (and `durable: false` when its first copy
/// said so): the same bytes as the first copy. Every other spooled event goes as `buffered: true`.
///
/// A record is a `pwrite` into the kernel's page cache, without fsync, on a thread of its own (the
/// sender awaits it; the reader never does): it survives a kill of the process, **not a power cut
/// or a kernel crash** — after one a live event the head had not passed goes again as
/// `buffered: true`, as before. The file is opened for each record, never held open, so the state
/// filesystem can still be remounted read-only.
///
/// Layout (fixed size, ``fileSize`` bytes): an 8-byte magic (`NFCBLIV1`), 8 reserved bytes, then
/// ``slots`` slots of 16 bytes, little-endian: the `seq` and a check word (`seq ^ key ^ flags`).
/// Event `seq` lives in slot `seq % slots`, so the file holds the last live send of each residue:
/// a `seq` is forgotten only after ``slots`` later events. A file of another size or magic is
/// ignored (``problem`` says so) and replaced; a slot whose check word does not match is skipped.
final class LiveSends: Sendable {
    /// How an event went out.
    struct Mark: Sendable, Equatable {
        /// Its copy said `durable: false` (it was not on disk when it went out).
        var notDurable = false
    }

    /// Slots in the file: the last this many live sends are remembered.
    static let slots = 4096
    static let headerSize = 16
    static let slotSize = 16
    /// The size of `spool.live`.
    static let fileSize = headerSize + slots * slotSize
    static let magic = Array("NFCBLIV1".utf8)
    /// Mixed into each slot's check word, so zeroed or foreign bytes never read as a record.
    static let key: UInt64 = 0x4E46_4342_4C49_5645

    /// The file.
    let path: String
    /// Why the file an earlier run left was not used (nil when it was fine or missing).
    let problem: String?
    /// The live sends of earlier runs, by `seq` (only those still in the spool).
    private let earlier: [Int64: Mark]
    private let writer = JobThread(name: "spool-live")
    /// Whether the last record failed (so a failure is logged once per streak).
    private let failing = Mutex(false)

    /// Loads what earlier runs recorded about `spooled` (the `seq`s in the spool) and makes sure
    /// the file exists. Never throws: a file that cannot be read or made is reported in ``problem``
    /// and the records go on being tried (each failure is returned by ``record(_:_:)``).
    init(directory: String, spooled: Set<Int64>) {
        path = AtomicFile.path(directory, "spool.live")
        var problem: String?
        var earlier: [Int64: Mark] = [:]
        var fresh = true
        do throws(BoundedFile.Failure) {
            if let bytes = try BoundedFile.read(path, limit: Self.fileSize) {
                if bytes.count == Self.fileSize, Array(bytes[0..<Self.magic.count]) == Self.magic {
                    fresh = false
                    for (seq, mark) in Self.marks(in: bytes) where spooled.contains(seq) { earlier[seq] = mark }
                } else {
                    problem = "\(path) is not a record of live sends (\(bytes.count) bytes, expected \(Self.fileSize) starting NFCBLIV1): ignored and replaced"
                }
            }
        } catch {
            problem = "\(error.message); ignored and replaced"
        }
        if fresh {
            var bytes = [UInt8](repeating: 0, count: Self.fileSize)
            bytes.replaceSubrange(0..<Self.magic.count, with: Self.magic)
            do throws(StorageError) {
                try AtomicFile.write(bytes, to: path)
            } catch {
                problem = (problem.map { $0 + "; " } ?? "") + "cannot create it (\(error.message)): a kill now may resend a live event as buffered"
            }
        }
        self.problem = problem
        self.earlier = earlier
    }

    deinit {
        writer.stop()
    }

    /// How the event numbered `seq` went out in an earlier run, when it went out live.
    func earlierLiveSend(of seq: Int64) -> Mark? { earlier[seq] }

    /// Records, before a copy of the event numbered `seq` goes out, how it goes: `mark` (live) or
    /// nil (buffered, after a live attempt that failed). Returns the failure when the file could
    /// not be written and it is the first of a streak; nil otherwise (written, or failing still).
    func record(_ seq: Int64, _ mark: Mark?) async -> StorageError? {
        let slot = Self.slot(seq, mark)
        let offset = Self.offset(of: seq)
        let outcome = try? await writer.run { [path] () -> StorageError? in
            Self.write(slot, at: offset, to: path)
        }
        let failure = outcome ?? nil
        let first = failing.withLock { f -> Bool in
            defer { f = failure != nil }
            return failure != nil && !f
        }
        return first ? failure : nil
    }

    /// Overwrites one slot (no fsync: the page cache survives a kill of the process).
    private static func write(_ slot: [UInt8], at offset: Int, to path: String) -> StorageError? {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return StorageError(code: .stateWriteFailed, "cannot open \(path)", errno: errno, path: path) }
        defer { close(fd) }
        while true {
            let written = slot.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if written == slot.count { return nil }
            if written < 0 && errno == EINTR { continue }
            return StorageError(code: .stateWriteFailed, "cannot write \(path)", errno: written < 0 ? errno : EIO)
        }
    }

    static func offset(of seq: Int64) -> Int {
        // `seq` is positive (handed out by the sequence store); the remainder is below `slots`.
        headerSize + Int(seq.magnitude % UInt64(slots)) * slotSize
    }

    /// The 16 bytes of a slot: `seq`, then the check word; a buffered send clears the slot.
    static func slot(_ seq: Int64, _ mark: Mark?) -> [UInt8] {
        guard let mark else { return [UInt8](repeating: 0, count: slotSize) }
        let value = UInt64(bitPattern: seq)
        let check = value ^ key ^ (mark.notDurable ? 1 : 0)
        return littleEndian(value) + littleEndian(check)
    }

    /// The valid slots of a file's bytes.
    static func marks(in bytes: [UInt8]) -> [(Int64, Mark)] {
        var marks: [(Int64, Mark)] = []
        var offset = headerSize
        while offset + slotSize <= bytes.count {
            let value = word(bytes, at: offset)
            let flags = word(bytes, at: offset + 8) ^ value ^ key
            let seq = Int64(bitPattern: value)
            if seq > 0, flags <= 1, offset == Self.offset(of: seq) { marks.append((seq, Mark(notDurable: flags == 1))) }
            offset += slotSize
        }
        return marks
    }

    private static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
