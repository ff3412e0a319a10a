import FoundationEssentials
import Glibc
import Synchronization

/// The final responses of recent requests by `id`: a repeated id (a QoS 1 redelivery, a client
/// retry) gets the first result back and never acts twice.
///
/// Bounded: beyond ``capacity`` the least recently used result is dropped. When given a state
/// directory it keeps the results in `command-results.json` there (rewritten atomically after every
/// change), so a restart does not forget them.
public final class CommandResultCache: Sendable {
    /// The file name in the state directory.
    public static let fileName = "command-results.json"

    /// One remembered result; the file is the list of them, `[{"key":…,"response":{…}}]`.
    private struct Entry: Sendable, Encodable {
        var key: String
        var response: JSONValue
    }

    /// Most results kept.
    public let capacity: Int
    private let path: String?
    private let logger: AgentLogger?
    /// Least recently used first.
    private let entries: Mutex<[Entry]>

    /// An in-memory cache.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        self.path = nil
        self.logger = nil
        self.entries = Mutex([])
    }

    /// A cache persisted in `directory`, loading what an earlier run left there. A file that cannot
    /// be read as results is logged and started afresh (forgetting results is safer than refusing
    /// to start).
    public init(capacity: Int, directory: String, logger: AgentLogger? = nil) throws(StorageError) {
        self.capacity = max(1, capacity)
        let path = AtomicFile.path(directory, Self.fileName)
        self.path = path
        self.logger = logger
        var loaded: [Entry] = []
        if let bytes = try AtomicFile.read(path) {
            if let list = (try? JSONValue(parsing: Data(bytes)))?.arrayValue {
                for item in list {
                    guard let key = item["key"]?.stringValue, let response = item["response"] else { continue }
                    loaded.append(Entry(key: key, response: response))
                }
            } else {
                logger?.warning("\(path) is not a list of command results: starting with none")
            }
        }
        self.entries = Mutex(Array(loaded.suffix(self.capacity)))
    }

    /// The response remembered for `key` (marks it recently used).
    public func response(for key: String) -> CommandResponse? {
        entries.withLock { list -> CommandResponse? in
            guard let index = list.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = list.remove(at: index)
            list.append(entry)
            return CommandResponse(json: entry.response)
        }
    }

    /// Remembers the final `response` for `key`.
    public func store(_ response: CommandResponse, for key: String) {
        let snapshot = entries.withLock { list -> [Entry] in
            list.removeAll { $0.key == key }
            list.append(Entry(key: key, response: response.json))
            if list.count > capacity { list.removeFirst(list.count - capacity) }
            return list
        }
        persist(snapshot)
    }

    /// How many results are kept.
    public var count: Int { entries.withLock { $0.count } }

    private func persist(_ snapshot: [Entry]) {
        guard let path else { return }
        // Keys and JSON values only: encoding cannot fail.
        let bytes = ((try? JSONValueEncoder().encode(snapshot)) ?? .array([])).jsonBytes
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            logger?.error("cannot persist command results: \(error.message)")
        }
    }
}
