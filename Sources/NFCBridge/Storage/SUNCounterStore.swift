import FoundationEssentials
import POSIXThreads
import Synchronization

/// The last SDM read counter seen per NTAG 424 DNA UID (file `sun-counters` in the state directory),
/// so that a SUN message whose counter is not above it is `replayed` — across restarts too
/// (NT4H2421Gx §9.3: "Track SDMReadCtr per tag at the verifying side. Reject SDMReadCtr values that
/// have been seen before or that are played out-of-order.").
///
/// ``admit(uid:counter:)`` decides at once, in memory; the file is rewritten (``AtomicFile``: write,
/// fsync, rename) by a thread of its own, never on the reader's path, a burst of taps coalescing into
/// one write. At most ``maxEntries`` UIDs are kept: past that the UID seen longest ago is forgotten
/// (a replay of *its* old messages would then pass once; docs/sun.md says so). A line the file cannot
/// parse is skipped and ``recovery`` says how many.
package final class SUNCounterStore: Sendable {
    /// The file name in the state directory.
    package static let fileName = "sun-counters"
    /// UIDs kept at most (the file stays under ~0.5 MB).
    package static let maxEntries = 16_384
    /// The longest line: a 10-byte UID in hex, a space, a 24-bit counter, a newline.
    static let maxLineBytes = 20 + 1 + 8 + 1
    /// The first line of the file.
    static let header = "nfcbridge sun-counters 1"

    package let path: String
    /// What was wrong with the file when it was opened (nil when it was fine or absent).
    package let recovery: String?
    private let state: Mutex<State>
    private let writer = JobThread(name: "sun-counters")

    private struct Entry {
        var counter: Int
        /// When it was last admitted (a tick of this store), to forget the oldest first.
        var seen: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var tick: UInt64 = 0
        var writeQueued = false
        var failure: StorageError?
    }

    /// What ``admit(uid:counter:)`` decided.
    package enum Admission: Sendable, Equatable {
        /// Above the last one seen (or the first for the UID): recorded.
        case fresh(previous: Int?)
        /// Not above the last one seen: nothing recorded.
        case replayed(last: Int)
    }

    /// Opens the store of `directory` (which exists). A file that cannot be read (too large, not a
    /// regular file) is left alone and the store starts empty, ``recovery`` saying so: the agent starts.
    package init(directory: String) {
        path = AtomicFile.path(directory, Self.fileName)
        var state = State()
        var skipped = 0
        var unreadable: String?
        let bytes: [UInt8]?
        do throws(StorageError) {
            bytes = try AtomicFile.read(path, limit: Self.header.utf8.count + 1 + Self.maxEntries * Self.maxLineBytes)
        } catch {
            bytes = nil
            unreadable = error.message
        }
        if let bytes {
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            for (index, line) in lines.enumerated() {
                if index == 0 && line == Self.header { continue }
                let parts = line.split(separator: " ")
                guard parts.count == 2, parts[0].count <= 20, let uid = [UInt8](hex: String(parts[0])), !uid.isEmpty,
                      let counter = Int(parts[1]), (0...0xFF_FFFF).contains(counter), state.entries.count < Self.maxEntries
                else {
                    skipped += 1
                    continue
                }
                state.tick += 1
                state.entries[uid.hexString] = Entry(counter: counter, seen: state.tick)
            }
        }
        if let unreadable {
            recovery = "\(unreadable); starting with no SUN counters (a replay of an earlier message passes once)"
        } else {
            recovery = skipped == 0 ? nil : "\(path): skipped \(skipped) unreadable line(s); those tags' last SUN counters are forgotten"
        }
        self.state = Mutex(state)
    }

    deinit {
        writer.stop()
    }

    /// Records `counter` for `uid` when it is above the last one seen; a counter not above it is
    /// `replayed`. Never waits for the disk.
    package func admit(uid: [UInt8], counter: Int) -> Admission {
        let key = uid.hexString
        let (admission, write) = state.withLock { s -> (Admission, Bool) in
            if let last = s.entries[key]?.counter, counter <= last { return (.replayed(last: last), false) }
            let previous = s.entries[key]?.counter
            s.tick += 1
            s.entries[key] = Entry(counter: counter, seen: s.tick)
            if s.entries.count > Self.maxEntries, let oldest = s.entries.min(by: { $0.value.seen < $1.value.seen })?.key {
                s.entries[oldest] = nil
            }
            defer { s.writeQueued = true }
            return (.fresh(previous: previous), !s.writeQueued)
        }
        if write { writer.submit { [self] in writeNow() } }
        return admission
    }

    /// The last counter seen for `uid`, nil for none.
    package func last(for uid: [UInt8]) -> Int? { state.withLock { $0.entries[uid.hexString]?.counter } }

    /// Why the file could not be written, while it cannot.
    package var writeFailure: StorageError? { state.withLock { $0.failure } }

    /// Returns once every write queued so far is done (tests, a clean stop).
    package func flush() async {
        _ = try? await writer.run {}
    }

    /// Writes the current entries (on the writer's thread). Entries admitted while it writes queue
    /// the next write.
    private func writeNow() {
        let text = state.withLock { s -> String in
            s.writeQueued = false
            let lines = s.entries.sorted { $0.value.seen < $1.value.seen }.map { "\($0.key) \($0.value.counter)\n" }
            return Self.header + "\n" + lines.joined()
        }
        var failure: StorageError?
        do throws(StorageError) {
            try AtomicFile.write(Array(text.utf8), to: path)
        } catch {
            failure = error
        }
        state.withLock { $0.failure = failure }
    }
}
