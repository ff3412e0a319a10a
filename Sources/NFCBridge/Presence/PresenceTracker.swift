/// The presence state machine: turns "which UIDs the reader sees now" into `scanned` / `removed`
/// decisions. It is pure — observations and the time come in as arguments, decisions go out — so
/// every timing rule is tested without sleeping.
///
/// Rules (see docs/mqtt.md, "Presence"):
/// - a UID seen for the first time *arrives*: one `scanned`, unless the same UID was reported less
///   than `min_interval_ms` ago (a re-tap inside the window is tracked but not reported);
/// - a UID not seen for `removal_grace_ms` in a row is *removed* (one marginal read does not flap);
///   `removed` is reported only for arrivals that were reported;
/// - a UID that was observed missing and is seen again `removal_grace_ms` or more after it was last
///   seen was away that long: it is *removed* and *arrives* again, even when no observation fell
///   after the grace ran out (the reader found it again first);
/// - in `repeat` mode a UID that stays is reported again every `rearm_ms`;
/// - several UIDs at once are tracked separately.
package struct PresenceTracker: Sendable {
    /// The timing rules.
    package struct Settings: Sendable, Equatable {
        package var mode: AgentConfiguration.PresenceMode
        package var removalGraceMilliseconds: Int64
        package var rearmMilliseconds: Int64
        package var minIntervalMilliseconds: Int64

        /// Creates settings.
        package init(
            mode: AgentConfiguration.PresenceMode, removalGraceMilliseconds: Int64, rearmMilliseconds: Int64,
            minIntervalMilliseconds: Int64
        ) {
            self.mode = mode
            self.removalGraceMilliseconds = removalGraceMilliseconds
            self.rearmMilliseconds = rearmMilliseconds
            self.minIntervalMilliseconds = minIntervalMilliseconds
        }

        /// The defaults of `config.yaml` (``AgentConfiguration/PresenceSettings``).
        package init() {
            self.init(AgentConfiguration.PresenceSettings())
        }

        /// The settings of a configuration.
        package init(_ settings: AgentConfiguration.PresenceSettings) {
            self.init(
                mode: settings.mode, removalGraceMilliseconds: Int64(settings.removalGraceMilliseconds),
                rearmMilliseconds: Int64(settings.rearmMilliseconds),
                minIntervalMilliseconds: Int64(settings.minIntervalMilliseconds))
        }
    }

    /// What the agent should do.
    package enum Decision: Sendable, Equatable {
        /// A tag arrived. Publish `scanned` when `report` is true; when false it is a re-tap inside
        /// `min_interval_ms` (still present for the `tag` state topic, but no event).
        case arrived(uid: [UInt8], report: Bool)
        /// Repeat mode: the tag is still there, publish `scanned` again.
        case repeated(uid: [UInt8])
        /// The tag left. `presentMilliseconds` runs from the first to the last time it was seen.
        /// Publish `removed` when `report` is true.
        case removed(uid: [UInt8], presentMilliseconds: Int64, report: Bool)
    }

    private struct Track: Sendable {
        var firstSeen: Int64
        var lastSeen: Int64
        var reported: Bool
        /// An observation since `lastSeen` did not see it.
        var missed = false
    }

    /// The rules in force.
    package let settings: Settings
    private var tracks: [[UInt8]: Track] = [:]
    /// When each UID was last reported as scanned (for `min_interval_ms` and `rearm_ms`).
    private var lastReported: [[UInt8]: Int64] = [:]

    /// A tracker with nothing in the field.
    package init(settings: Settings) {
        self.settings = settings
    }

    /// UIDs currently considered present (including those inside their removal grace), in arrival order.
    package var presentUIDs: [[UInt8]] {
        tracks.sorted {
            $0.value.firstSeen != $1.value.firstSeen
                ? $0.value.firstSeen < $1.value.firstSeen : $0.key.lexicographicallyPrecedes($1.key)
        }.map(\.key)
    }

    /// When `uid` was first seen, if it is present.
    package func firstSeen(_ uid: [UInt8]) -> Int64? { tracks[uid]?.firstSeen }

    /// True when `uid` is present and was reported (its `removed` will be reported too).
    package func isReported(_ uid: [UInt8]) -> Bool { tracks[uid]?.reported ?? false }

    /// Feeds one observation: the UIDs the reader sees at `now` (milliseconds on a monotonic clock).
    /// Returns removals first (they happened before), then arrivals and repeats, each sorted by UID.
    package mutating func observe(_ seen: Set<[UInt8]>, at now: Int64) -> [Decision] {
        var removals: [Decision] = []
        var arrivals: [Decision] = []
        for uid in tracks.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            guard var track = tracks[uid] else { continue }
            let away = now - track.lastSeen >= settings.removalGraceMilliseconds
            if seen.contains(uid) {
                // Back after an absence the grace does not cover: it left, and arrives again below.
                guard track.missed && away else { continue }
            } else if !away {
                track.missed = true
                tracks[uid] = track
                continue
            }
            tracks[uid] = nil
            removals.append(
                .removed(uid: uid, presentMilliseconds: track.lastSeen - track.firstSeen, report: track.reported))
        }
        for uid in seen.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            if var track = tracks[uid] {
                track.missed = false
                track.lastSeen = now
                if settings.mode == .repeat, now - (lastReported[uid] ?? Int64.min / 2) >= settings.rearmMilliseconds {
                    arrivals.append(track.reported ? .repeated(uid: uid) : .arrived(uid: uid, report: true))
                    track.reported = true
                    lastReported[uid] = now
                }
                tracks[uid] = track
            } else {
                let isRetap = lastReported[uid].map { now - $0 < settings.minIntervalMilliseconds } ?? false
                tracks[uid] = Track(firstSeen: now, lastSeen: now, reported: !isRetap)
                if !isRetap { lastReported[uid] = now }
                arrivals.append(.arrived(uid: uid, report: !isRetap))
            }
        }
        forgetOldReports(now: now)
        return removals + arrivals
    }

    /// The reader went away: every present tag is removed now. A reader outage is not a re-tap: a
    /// tag whose `removed` this reports is reported again when the reader finds it back, also within
    /// `min_interval_ms` (its arrival would otherwise go unreported after a reported removal).
    package mutating func removeAll(at now: Int64) -> [Decision] {
        let removals = tracks.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }).compactMap { uid -> Decision? in
            guard let track = tracks[uid] else { return nil }
            return .removed(uid: uid, presentMilliseconds: track.lastSeen - track.firstSeen, report: track.reported)
        }
        tracks.removeAll()
        for case let .removed(uid, _, true) in removals { lastReported[uid] = nil }
        forgetOldReports(now: now)
        return removals
    }

    /// Keeps `lastReported` bounded (phones show a new random UID on every tap): an entry older than
    /// both windows can no longer suppress or re-arm anything.
    private mutating func forgetOldReports(now: Int64) {
        let horizon = max(settings.minIntervalMilliseconds, settings.rearmMilliseconds)
        lastReported = lastReported.filter { uid, time in tracks[uid] != nil || now - time < horizon }
    }
}
