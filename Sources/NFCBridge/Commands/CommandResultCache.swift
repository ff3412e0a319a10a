import FoundationEssentials
import Glibc
import POSIXThreads
import Synchronization

/// The final responses of recent requests by `id`: a repeated id (a QoS 1 redelivery, a client
/// retry) gets the first result back and never acts twice.
///
/// Bounded twice: a result is kept for ``windowSeconds`` (`commands.idempotency_window_s`, 24 h by
/// default) after it was stored, and beyond ``capacity`` the least recently used result is dropped
/// even sooner. When given a state directory it keeps the results in `command-results.json` there
/// (rewritten atomically after every change), so a restart does not forget them; the window counts
/// on the wall clock (`stored_at`, Unix milliseconds), so it also runs while the agent is stopped.
/// The file is written (and fsynced) on the cache's own thread, never on Swift's cooperative pool:
/// ``store(_:for:)`` returns once the result is on disk.
package final class CommandResultCache: Sendable {
    /// The file name in the state directory.
    package static let fileName = "command-results.json"

    /// One remembered result; the file is the list of them,
    /// `[{"key":…,"response":{…},"stored_at":1764600000000}]`.
    private struct Entry: Sendable, Encodable {
        var key: String
        /// The response, typed; one read back from the file holds its `data` as stored.
        var response: CommandResponse
        /// When it was stored, Unix milliseconds.
        var storedAt: Int64
        enum CodingKeys: String, CodingKey { case key, response, storedAt = "stored_at" }
    }

    /// An entry as read from the file: an item without a key or a readable response is skipped, one
    /// without `stored_at` counts as stored at load time.
    private struct LoadedEntry: Decodable {
        var key: String?
        var response: CommandResponse?
        var storedAt: Int64?

        init(from decoder: any Decoder) throws {
            guard let container = try? decoder.container(keyedBy: Entry.CodingKeys.self) else { return }
            key = try? container.decode(String.self, forKey: .key)
            response = try? container.decode(CommandResponse.self, forKey: .response)
            storedAt = try? container.decode(Int64.self, forKey: .storedAt)
        }
    }

    /// Most results kept.
    package let capacity: Int
    /// The largest `command-results.json` read (16 MiB).
    static let fileLimit = 16 << 20
    /// How long a result is kept, in seconds.
    package let windowSeconds: Int64
    private let path: String?
    private let logger: AgentLogger?
    private let now: @Sendable () -> Date
    /// Least recently used first, and whether the file is behind them.
    private let entries: Mutex<(list: [Entry], dirty: Bool)>
    /// Writes the file (nil: in memory only).
    private let writer: JobThread?

    /// An in-memory cache. `now` is the wall clock (injected by tests).
    package init(
        capacity: Int, windowSeconds: Int = AgentConfiguration.CommandSettings.defaults.idempotencyWindowSeconds,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.capacity = max(1, capacity)
        self.windowSeconds = Int64(max(1, windowSeconds))
        self.path = nil
        self.logger = nil
        self.now = now
        self.entries = Mutex(([], false))
        self.writer = nil
    }

    deinit { writer?.stop() }

    /// A cache persisted in `directory`, loading what an earlier run left there. A file that cannot
    /// be read as results is logged and started afresh (forgetting results is safer than refusing
    /// to start). Entries of an older file without `stored_at` count as stored at load time.
    package init(
        capacity: Int, directory: String, logger: AgentLogger? = nil,
        windowSeconds: Int = AgentConfiguration.CommandSettings.defaults.idempotencyWindowSeconds,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(StorageError) {
        self.capacity = max(1, capacity)
        self.windowSeconds = Int64(max(1, windowSeconds))
        let path = AtomicFile.path(directory, Self.fileName)
        self.path = path
        self.logger = logger
        self.now = now
        let loadedAt = Timestamp.milliseconds(now())
        var loaded: [Entry] = []
        // Bounded: a file far beyond what `capacity` results take (a damaged or planted one) is
        // not parsed; the cache starts empty, as for any unreadable file.
        var bytes: [UInt8]?
        do throws(StorageError) {
            bytes = try AtomicFile.read(path, limit: Self.fileLimit)
        } catch {
            logger?.warning("\(error.message); starting with no command results")
        }
        if let bytes {
            if let list = try? JSONDecoder().decode([LoadedEntry].self, from: Data(bytes)) {
                for item in list {
                    guard let key = item.key, let response = item.response else { continue }
                    loaded.append(Entry(key: key, response: response, storedAt: item.storedAt ?? loadedAt))
                }
            } else {
                logger?.warning("\(path) is not a list of command results: starting with none")
            }
        }
        let oldest = loadedAt - self.windowSeconds * 1000
        self.entries = Mutex((Array(loaded.filter { $0.storedAt > oldest }.suffix(self.capacity)), false))
        self.writer = JobThread(name: "cmd-results")
    }

    /// The response remembered for `key` (marks it recently used); nil when none, or when it is
    /// older than the window.
    package func response(for key: String) -> CommandResponse? {
        let oldest = Timestamp.milliseconds(now()) - windowSeconds * 1000
        let (response, expired) = entries.withLock { state -> (CommandResponse?, Bool) in
            let before = state.list.count
            state.list.removeAll { $0.storedAt <= oldest }
            let expired = state.list.count != before
            if expired { state.dirty = true }
            guard let index = state.list.firstIndex(where: { $0.key == key }) else { return (nil, expired) }
            let entry = state.list.remove(at: index)
            state.list.append(entry)
            return (entry.response, expired)
        }
        // Forgetting expired results needs no wait: the next write, or this one, takes them out.
        if expired { writer?.submit { [self] in writeIfDirty() } }
        return response
    }

    /// Remembers the final `response` for `key`; with a file, returns once the file holds it.
    package func store(_ response: CommandResponse, for key: String) async {
        let storedAt = Timestamp.milliseconds(now())
        let oldest = storedAt - windowSeconds * 1000
        entries.withLock { state in
            state.list.removeAll { $0.key == key || $0.storedAt <= oldest }
            state.list.append(Entry(key: key, response: response, storedAt: storedAt))
            if state.list.count > capacity { state.list.removeFirst(state.list.count - capacity) }
            state.dirty = true
        }
        guard let writer else { return }
        // Never fails: writeIfDirty logs its own errors.
        _ = try? await writer.run { [self] in writeIfDirty() }
    }

    /// How many results are kept.
    package var count: Int { entries.withLock { $0.list.count } }

    /// On the writer thread: writes the list when it changed since the last write. A store that
    /// finds the file already written by an earlier job (which took its entry too) returns at once.
    private func writeIfDirty() {
        guard let path else { return }
        let snapshot = entries.withLock { state -> [Entry]? in
            guard state.dirty else { return nil }
            state.dirty = false
            return state.list
        }
        guard let snapshot else { return }
        do {
            try AtomicFile.write(try JSONWire.bytes(snapshot), to: path)
            return
        } catch let error as StorageError {
            logger?.error("cannot persist command results: \(error.message)")
        } catch {
            // Only an outcome whose own encoding throws (a dump export Foundation cannot write).
            logger?.error("cannot persist command results: \(error)")
        }
        // The next store tries again (a full disk may have room by then).
        entries.withLock { $0.dirty = true }
    }
}

extension CommandResponse: Decodable {
    /// Reads a response back from the result cache's file: `data` stays as stored (written again
    /// unchanged when it is replayed), the failure's details are read from it.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Status.self, forKey: .status)
        id = try? container.decode(RequestID.self, forKey: .id)
        transaction = try? container.decode(TransactionID.self, forKey: .transaction)
        let stored = try? container.decode(StoredJSON.self, forKey: .data)
        data = stored.map { $0.isObject ? .stored($0) : .empty } ?? .empty
        replayed = (try? container.decode(Bool.self, forKey: .replayed)) == true
        error = nil
        if let payload = try? container.decode(ErrorPayload.self, forKey: .error),
            let code = CommandErrorCode(rawValue: payload.code)
        {
            let details = (try? container.decode(CommandErrorDetails.self, forKey: .data)) ?? CommandErrorDetails()
            error = CommandError(code, payload.message, details: details)
        }
    }
}
