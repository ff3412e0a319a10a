import Synchronization

/// The `event/error` notices of events the spool's bounds dropped (oldest first, or expired): one
/// notice at a time; what is dropped while one waits for the broker goes into the next. A notice
/// that is dropped itself is due again. The journal records each notice as an event and tells this
/// when one is delivered; this keeps no event of its own.
final class DropNotices: Sendable {
    private struct State {
        /// Dropped and not yet in a notice.
        var unreported = EventSpool.Drop()
        /// A notice is on its way (claimed, or recorded and not yet delivered).
        var pending = false
        /// The recorded notice's `event_id` and `seq`.
        var id: String?
        var seq: Int64?

        mutating func claim() -> EventSpool.Drop {
            (pending, id, seq) = (true, nil, nil)
            defer { unreported = EventSpool.Drop() }
            return unreported
        }
    }

    private let state = Mutex(State())

    /// Adds `drop`; returns the drops to announce now, or nil while a notice is on its way.
    func add(_ drop: EventSpool.Drop) -> EventSpool.Drop? {
        state.withLock { s in
            s.unreported.merge(drop)
            // The notice waiting in the spool was dropped itself: another one is due.
            if let seq = s.seq, let first = drop.firstSeq, let last = drop.lastSeq, first <= seq, seq <= last {
                (s.pending, s.id, s.seq) = (false, nil, nil)
            }
            guard !s.pending else { return nil }
            return s.claim()
        }
    }

    /// The claimed notice was recorded as the event `id` with `seq` (before it can go out).
    func recorded(id: String, seq: Int64) {
        state.withLock { (s: inout State) in (s.pending, s.id, s.seq) = (true, id, seq) }
    }

    /// The event `id` was delivered: when it was the notice, the drops since it, to announce now.
    func delivered(_ id: String) -> EventSpool.Drop? {
        state.withLock { s in
            guard s.id == id else { return nil }
            (s.pending, s.id, s.seq) = (false, nil, nil)
            guard s.unreported.count > 0 else { return nil }
            return s.claim()
        }
    }
}
