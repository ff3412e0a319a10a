import FoundationEssentials
import POSIXThreads
import Synchronization
import Glibc
import NFCCore

/// The retained `<base>/<id>/tag` state: is a tag on the reader right now, and which tag was
/// scanned last (Home Assistant's "Last UID" reads it from this retained topic, so it survives a
/// Home Assistant restart and never shows a tap replayed from the spool).
///
/// It also carries what the previous run of the agent last saw in the field (``carriedOver``,
/// loaded by ``PresenceStore``): a tag found there again by the first poll after start-up is
/// reported with `"initial": true` (docs/mqtt.md, "scanned"), so automations can tell "the agent
/// restarted and saw the tag that was left on it" from a tap.
package struct TagPresence: Sendable, Equatable, Encodable {
    /// One tag in the field.
    package struct Tag: Sendable, Equatable {
        package var uid: [UInt8]
        package var cardType: String
        package var since: Date
        /// Found by the first poll after start-up, and already in the field before the restart.
        package var initial: Bool

        /// Creates a tag entry.
        package init(uid: [UInt8], cardType: String, since: Date, initial: Bool = false) {
            self.uid = uid
            self.cardType = cardType
            self.since = since
            self.initial = initial
        }
    }

    /// The last reported scan (an arrival the agent published live as `scanned`).
    package struct LastScan: Sendable, Equatable, Encodable {
        package var uid: [UInt8]
        package var cardType: String
        /// ``TagScan/homeAssistantTagID``.
        package var tagID: String
        /// The UID is a random one (``TagScan/hasRandomUID``).
        package var randomUID: Bool
        /// When (the `scanned` event's `ts`).
        package var date: Date

        /// Creates the entry.
        package init(uid: [UInt8], cardType: String, tagID: String, randomUID: Bool, date: Date) {
            self.uid = uid
            self.cardType = cardType
            self.tagID = tagID
            self.randomUID = randomUID
            self.date = date
        }

        enum CodingKeys: String, CodingKey { case uid, cardType, tagID = "tag_id", randomUID = "random_uid", ts }

        /// `{"uid":…,"cardType":…,"tag_id":…,"random_uid":…,"ts":…}`: the `tag` topic's `last`.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(uid.hexString, forKey: .uid)
            try container.encode(cardType, forKey: .cardType)
            try container.encode(tagID, forKey: .tagID)
            try container.encode(randomUID, forKey: .randomUID)
            try container.encode(Timestamp.string(date), forKey: .ts)
        }
    }

    /// The tags present, in arrival order.
    package var tags: [Tag] = []
    /// The last reported scan, if any (kept across restarts by ``PresenceStore``).
    package var last: LastScan?
    /// The UIDs the previous run last saw in the field, until the first poll after the reader
    /// opened (or the first removal, or an arrival of another tag) has run.
    package var carriedOver: Set<[UInt8]> = []
    /// The tags the previous run last saw in the field and this one has not found yet: those the
    /// first poll does not find left while the agent was down, and get their `removed`.
    package var leftBehind: [Tag] = []

    /// Creates an empty field.
    package init() {}

    /// Creates the state a run starts with: nothing in the field yet, the previous run's last scan,
    /// and the tags it last saw as ``carriedOver``.
    package init(previous: PresenceStore.Saved) {
        last = previous.last
        carriedOver = Set(previous.present.map(\.uid))
        leftBehind = previous.present
    }

    /// Records the arrival of `scan` at `date` (`reported`: published as `scanned`), and returns
    /// whether it is an initial scan: a tag the previous run left in the field, found again before
    /// anything else happened.
    @discardableResult
    package mutating func arrive(_ scan: TagScan, at date: Date, reported: Bool) -> Bool {
        let initial = carriedOver.contains(scan.uid)
        leftBehind.removeAll { $0.uid == scan.uid }
        if initial { carriedOver.remove(scan.uid) } else { carriedOver = [] }
        tags.removeAll { $0.uid == scan.uid }
        tags.append(Tag(uid: scan.uid, cardType: scan.cardType, since: date, initial: initial))
        if reported {
            last = LastScan(
                uid: scan.uid, cardType: scan.cardType, tagID: scan.homeAssistantTagID, randomUID: scan.hasRandomUID,
                date: date)
        }
        return initial
    }

    /// Records that `uid` left the field; returns its entry (nil when it was not in the field).
    @discardableResult
    package mutating func remove(_ uid: [UInt8]) -> Tag? {
        let tag = tags.last { $0.uid == uid }
        tags.removeAll { $0.uid == uid }
        carriedOver = []
        return tag
    }

    /// The first poll after the reader opened has run: a tag of the previous run not found by it
    /// is gone, and a later arrival is a tap, not an initial scan. Returns those tags (each once:
    /// the agent reports their `removed`).
    package mutating func firstPollDone() -> [Tag] {
        carriedOver = []
        defer { leftBehind = [] }
        return leftBehind
    }

    enum CodingKeys: String, CodingKey { case present, uid, cardType, since, count, initial, last }

    /// `{"present":false}`, or the most recent arrival: `{"present":true,"uid":…,"cardType":…,"since":…}`
    /// (+ `"count"` when several tags are in the field, `"initial":true` for a tag found at
    /// start-up that was there before the restart); then `"last"`, the last reported scan, when
    /// there was one.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let latest = tags.last {
            try container.encode(true, forKey: .present)
            try container.encode(latest.uid.hexString, forKey: .uid)
            try container.encode(latest.cardType, forKey: .cardType)
            try container.encode(Timestamp.string(latest.since), forKey: .since)
            if tags.count > 1 { try container.encode(tags.count, forKey: .count) }
            if latest.initial { try container.encode(true, forKey: .initial) }
        } else {
            try container.encode(false, forKey: .present)
        }
        try container.encodeIfPresent(last, forKey: .last)
    }
}

/// Keeps what the reader last saw in the state directory (file `presence.json`), so the next run
/// knows which tags were on the reader when this one stopped — by SIGTERM or SIGKILL alike — and
/// which tag was scanned last.
///
/// Written on every change of the field (an arrival or a removal, not on a clean stop: the tags are
/// still there then). A file that cannot be read is moved aside to `presence.json.corrupt`.
package final class PresenceStore: Sendable {
    /// What the file holds.
    package struct Saved: Sendable, Equatable {
        /// The tags in the field at the last change.
        package var present: [TagPresence.Tag]
        /// The last reported scan.
        package var last: TagPresence.LastScan?

        /// Creates the record.
        package init(present: [TagPresence.Tag] = [], last: TagPresence.LastScan? = nil) {
            self.present = present
            self.last = last
        }
    }

    /// The file's form: UIDs in hex, times in Unix milliseconds.
    struct Record: Codable {
        struct Entry: Codable {
            var uid: String
            var cardType: String
            var ms: Int64
            var tagID: String?
            var randomUID: Bool?
            enum CodingKeys: String, CodingKey { case uid, cardType, ms, tagID = "tag_id", randomUID = "random_uid" }
        }
        var present: [Entry]
        var last: Entry?
    }

    /// The file.
    package let path: String
    /// The largest `presence.json` read (a reader holds a handful of tags: far below).
    static let fileLimit = 1 << 20

    private let writer = JobThread(name: "presence")
    private let queued = Mutex<TagPresence?>(nil)

    /// The store in `directory` (the file is not read until ``load()``).
    package init(directory: String) {
        path = AtomicFile.path(directory, "presence.json")
    }

    deinit {
        writer.stop()
    }

    /// The record of the previous run: empty when there is none; when the file is not a record,
    /// it is moved aside and the returned error says why (the agent logs it and starts empty).
    package func load() -> (Saved, StorageError?) {
        let bytes: [UInt8]?
        do {
            bytes = try AtomicFile.read(path, limit: Self.fileLimit)
        } catch {
            return (Saved(), error)
        }
        guard let bytes else { return (Saved(), nil) }
        func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }
        if let record = try? JSONDecoder().decode(Record.self, from: Data(bytes)) {
            var saved = Saved()
            var valid = true
            for entry in record.present {
                guard let uid = [UInt8](hex: entry.uid), !uid.isEmpty else {
                    valid = false
                    break
                }
                saved.present.append(TagPresence.Tag(uid: uid, cardType: entry.cardType, since: date(entry.ms)))
            }
            if let entry = record.last {
                if let uid = [UInt8](hex: entry.uid), !uid.isEmpty, let tagID = entry.tagID {
                    saved.last = TagPresence.LastScan(
                        uid: uid, cardType: entry.cardType, tagID: tagID, randomUID: entry.randomUID ?? false,
                        date: date(entry.ms))
                } else {
                    valid = false
                }
            }
            if valid { return (saved, nil) }
        }
        rename(path, path + ".corrupt")
        return (Saved(), StorageError(code: .stateWriteFailed, "\(path) is not a presence record (moved to \(path).corrupt)"))
    }

    /// Persists `presence` on the store's own thread and returns at once, so the reader never
    /// waits for the disk. Writes that queue up while one is made are coalesced: only the latest
    /// field is written. `onSaved` hears each write made (the tags it holds), `onFailure` one that failed.
    package func saveInBackground(
        _ presence: TagPresence, onSaved: @escaping @Sendable (Int) -> Void = { _ in },
        onFailure: @escaping @Sendable (StorageError) -> Void
    ) {
        let first = queued.withLock { queued -> Bool in
            defer { queued = presence }
            return queued == nil
        }
        guard first else { return }
        writer.submit { [self] in
            guard let latest = queued.withLock({ queued -> TagPresence? in
                defer { queued = nil }
                return queued
            }) else { return }
            do throws(StorageError) {
                try save(latest)
                onSaved(latest.tags.count)
            } catch {
                onFailure(error)
            }
        }
    }

    /// Returns once every ``saveInBackground(_:onFailure:)`` so far is written (or failed).
    package func flush() async {
        _ = try? await writer.run {}
    }

    /// Persists the field and the last scan of `presence` (blocks on the disk).
    package func save(_ presence: TagPresence) throws(StorageError) {
        let record = Record(
            present: presence.tags.map { .init(uid: $0.uid.hexString, cardType: $0.cardType, ms: Timestamp.milliseconds($0.since)) },
            last: presence.last.map {
                .init(
                    uid: $0.uid.hexString, cardType: $0.cardType, ms: Timestamp.milliseconds($0.date), tagID: $0.tagID,
                    randomUID: $0.randomUID)
            })
        let bytes: [UInt8]
        do {
            bytes = try JSONWire.bytes(record)
        } catch {
            // Strings, numbers and booleans only: not expected.
            throw StorageError(code: .stateWriteFailed, "cannot encode the presence record: \(error)")
        }
        try AtomicFile.write(bytes + [0x0A], to: path)
    }
}
