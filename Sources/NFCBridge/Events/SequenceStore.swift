import FoundationEssentials
import Glibc
import POSIXThreads
import Synchronization

/// The per-agent event sequence number: monotonic, and persisted in the state directory (file
/// `sequence`) so it keeps growing across restarts. Consumers use gaps to spot lost events.
///
/// Handing out a number never waits for the disk: the file holds a *reservation*, a number at
/// least as high as any handed out. It is written ``block`` numbers ahead, by a thread of its own,
/// once half of the reservation is used; a restart after a crash continues above the reservation
/// (a gap of at most ``block``: numbers that may have been handed out are never handed out again),
/// and ``close()`` writes the exact last number so a clean restart leaves no gap. When the file
/// cannot be written, counting goes on in memory (never repeating a number in this run) and
/// ``writeFailure`` says why.
///
/// It never goes backwards: a `sequence` file that is missing, unreadable, negative, implausibly
/// large (beyond ``largestAccepted``, where `+1` could ever overflow) or below `floor` (the spool's
/// highest `seq`) is replaced by `floor`, and ``recovery`` says what happened (the agent logs it
/// as a warning). At a million events a second, ``largestAccepted`` is 146,000 years away.
package final class SequenceStore: Sendable {
    /// The file holding the reservation.
    package let path: String
    /// What was wrong with the file when it was opened (nil when it was fine or this is the first start).
    package let recovery: String?
    private let state: Mutex<State>
    private let writer = JobThread(name: "sequence")
    private let reservationObserver = CallbackSlot<Void>()

    private struct State {
        var last: Int64
        var reserved: Int64
        var refilling = false
        var failure: StorageError?
    }

    /// How far ahead the reservation is written.
    package static let block: Int64 = 64

    /// The largest number a `sequence` file may hold (2^62); anything above is treated as corrupt.
    package static let largestAccepted: Int64 = 1 << 62

    /// Opens (or starts) the sequence in `directory`. `floor` is the highest `seq` known elsewhere
    /// (the spool's); counting continues above it. A file that does not hold a usable number is
    /// moved aside to `sequence.corrupt`.
    package init(directory: String, floor: Int64 = 0) throws(StorageError) {
        path = AtomicFile.path(directory, "sequence")
        let floor = min(max(0, floor), Self.largestAccepted)
        var start = floor
        var recovery: String?
        if let bytes = try AtomicFile.read(path, limit: 4096, prefix: true) {
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
        let reserved = min(start + Self.block, Self.largestAccepted)
        try AtomicFile.write(Array("\(reserved)\n".utf8), to: path)
        state = Mutex(State(last: start, reserved: reserved))
    }

    deinit {
        writer.stop()
    }

    /// The last number handed out (0 before the first event).
    package var current: Int64 { state.withLock { $0.last } }

    /// Why the reservation could not be written, while it cannot.
    package var writeFailure: StorageError? { state.withLock { $0.failure } }

    /// Hands out the next number at once; when half the reservation is used the writer thread
    /// moves it ahead.
    package func next() -> Int64 {
        let (value, refill) = state.withLock { s -> (Int64, Bool) in
            // Cannot overflow in practice (see `largestAccepted`); stay put rather than trap if it ever did.
            let (next, overflow) = s.last.addingReportingOverflow(1)
            if !overflow { s.last = next }
            guard !s.refilling, s.reserved - s.last < Self.block / 2 else { return (s.last, false) }
            s.refilling = true
            return (s.last, true)
        }
        if refill { writer.submit { [self] in reserveAhead() } }
        return value
    }

    /// Writes the exact last number (a clean stop: the next run continues without a gap). Blocks
    /// on the disk.
    package func close() throws(StorageError) {
        let last = state.withLock { $0.last }
        try AtomicFile.write(Array("\(last)\n".utf8), to: path)
        state.withLock { $0.reserved = last }
    }

    /// True when an event numbered `seq` may be published: the file's reservation covers it, so no
    /// later run can hand `seq` out again — or the file cannot be written at all (a disk outage:
    /// events are published all the same, docs/mqtt.md). While the writer merely lags (a slow disk,
    /// a burst), a number beyond the reservation waits until it is written.
    package func mayPublish(_ seq: Int64) -> Bool {
        state.withLock { Self.mayPublish(seq, reserved: $0.reserved, writeFailing: $0.failure != nil) }
    }

    /// The rule of ``mayPublish(_:)``: covered by the reservation on disk, or no disk to wait for.
    static func mayPublish(_ seq: Int64, reserved: Int64, writeFailing: Bool) -> Bool {
        seq <= reserved || writeFailing
    }

    /// Tells `handler` (on the writer's thread) each time the reservation moved ahead on disk.
    package func observeReservations(_ handler: @escaping @Sendable () -> Void) {
        reservationObserver.set(handler)
    }

    /// Returns once the reservation asked for so far is written (or failed).
    func reservationWritten() async {
        _ = try? await writer.run {}
    }

    /// Moves the reservation ahead until it is at least half a block beyond the last number
    /// handed out (numbers handed out while it writes are covered by the next round).
    private func reserveAhead() {
        while true {
            // A block beyond the last number handed out (never below what is reserved): a restart
            // after a crash skips at most a block.
            let target = state.withLock { min(max($0.reserved, $0.last + Self.block), Self.largestAccepted) }
            var failure: StorageError?
            do throws(StorageError) {
                try AtomicFile.write(Array("\(target)\n".utf8), to: path)
            } catch {
                failure = error
            }
            let again = state.withLock { s -> Bool in
                if failure == nil { s.reserved = max(s.reserved, target) }
                s.failure = failure
                let again = failure == nil && s.reserved - s.last < Self.block / 2 && s.reserved < Self.largestAccepted
                if !again { s.refilling = false }
                return again
            }
            if failure == nil { reservationObserver(()) }
            if !again { return }
        }
    }
}
