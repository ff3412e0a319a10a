/// One line of an encode job's journal (``JobJournal``). The journal is the job's only memory: the
/// ledger of which serial went to which tag is rebuilt from it on every start.
package enum JournalEntry: Sendable, Equatable {
    /// The job as given (the first line).
    case spec(EncodeJobSpec)
    /// The serial at `index` is given to the tag `uid` — written and fsynced *before* the first WRITE.
    case issue(index: Int, uid: [UInt8])
    /// The tag holding `index` was written, verified (and locked when asked).
    case done(index: Int)
    /// The serial at `index` is spent: its tag failed (`code`); it is never issued again.
    case spent(index: Int, code: String)
    /// The tag holding `index` left the field mid-write (`code`): the serial stays with that tag and is
    /// finished when it comes back.
    case torn(index: Int, code: String)
    /// Nothing was written to the tag for `index` (it was refused before the first WRITE): the serial
    /// goes back to the front of the roll.
    case release(index: Int)
    /// The job was cancelled (`request/job` `cancel`): no serial is issued any more.
    case canceled
    /// The job was paused (`pause`): a restart resumes it paused.
    case pause
    /// The job was resumed after a `pause`.
    case resume
}

/// What became of each serial of a job, rebuilt from its journal: the serial → UID bindings, the
/// UIDs already seen, and the next serial to issue. Pure: ``JobJournal`` does the file.
///
/// The rules it keeps: a serial is issued to one tag only, ever; a UID gets one serial, ever; a
/// serial released (nothing written) is issued again before any new one; an issued serial that was
/// not resolved when the journal ends (power cut, crash, SIGKILL) is torn.
package struct JobLedger: Sendable, Equatable {
    /// The state of one serial.
    package enum SerialState: Sendable, Equatable {
        /// Not issued (or released).
        case open
        /// Given to `uid`, being written now.
        case issued(uid: [UInt8])
        /// Given to `uid`, which left mid-write or was being written when the agent stopped: finished if
        /// that tag comes back.
        case torn(uid: [UInt8], code: String)
        /// On `uid`, verified.
        case done(uid: [UInt8])
        /// Spent on `uid`, which failed with `code`.
        case spent(uid: [UInt8], code: String)

        /// The tag the serial went to, when it was issued.
        package var uid: [UInt8]? {
            switch self {
            case .open: nil
            case let .issued(uid), let .torn(uid, _), let .done(uid), let .spent(uid, _): uid
            }
        }
    }

    /// The job.
    package let spec: EncodeJobSpec
    /// Per serial index.
    package private(set) var states: [SerialState]
    /// UID → the serial index it holds.
    package private(set) var byUID: [[UInt8]: Int] = [:]
    /// Indexes below this were issued at least once.
    private var cursor = 0
    /// Released indexes (below ``cursor``), issued again first.
    private var released: [Int] = []
    /// True once cancelled.
    package private(set) var isCanceled = false
    /// True while paused (the last `pause` not followed by a `resume`).
    package private(set) var isPaused = false

    /// A ledger for a job nothing was issued from yet.
    package init(spec: EncodeJobSpec) {
        self.spec = spec
        states = Array(repeating: .open, count: spec.serials.count)
    }

    /// The next serial to issue, nil when none is left (or the job was cancelled).
    package var nextIndex: Int? {
        guard !isCanceled else { return nil }
        if let first = released.min() { return first }
        return cursor < states.count ? cursor : nil
    }

    /// Serials verified on a tag.
    package var done: Int { states.count { if case .done = $0 { true } else { false } } }
    /// Serials spent on tags that failed.
    package var failed: Int { states.count { if case .spent = $0 { true } else { false } } }
    /// Serials on tags that left mid-write (or were in hand when the agent stopped).
    package var torn: Int { states.count { if case .torn = $0 { true } else { false } } }
    /// Serials not issued yet.
    package var remaining: Int { states.count - cursor + released.count }
    /// True when every serial was issued and resolved (done, spent or torn), or the job was cancelled.
    package var isFinished: Bool {
        isCanceled || (remaining == 0 && !states.contains { if case .issued = $0 { true } else { false } })
    }

    /// The torn serials, by index.
    package var tornIndexes: [Int] {
        states.indices.filter { if case .torn = states[$0] { true } else { false } }
    }

    /// Applies one journal entry; an entry that breaks the rules (a serial issued twice, an index out
    /// of range) is `journal_corrupt`.
    package mutating func apply(_ entry: JournalEntry) throws(CommandError) {
        switch entry {
        case .spec:
            throw Self.corrupt("a second job line")
        case let .issue(index, uid):
            try check(index)
            // A torn serial (or one in hand when the agent stopped) is issued again only to its own tag.
            guard states[index] == .open || (states[index].uid == uid && !isResolved(index)) else {
                throw Self.corrupt("serial \(index + 1) issued twice")
            }
            if let held = byUID[uid], held != index { throw Self.corrupt("UID \(uid.hexString) given two serials") }
            states[index] = .issued(uid: uid)
            byUID[uid] = index
            if index >= cursor {
                guard index == cursor else { throw Self.corrupt("serial \(index + 1) issued before serial \(cursor + 1)") }
                cursor += 1
            } else {
                released.removeAll { $0 == index }
            }
        case let .done(index):
            guard let uid = try issued(index) else { throw Self.corrupt("serial \(index + 1) done but not issued") }
            states[index] = .done(uid: uid)
        case let .spent(index, code):
            guard let uid = try issued(index) else { throw Self.corrupt("serial \(index + 1) spent but not issued") }
            states[index] = .spent(uid: uid, code: code)
        case let .torn(index, code):
            guard let uid = try issued(index) else { throw Self.corrupt("serial \(index + 1) torn but not issued") }
            states[index] = .torn(uid: uid, code: code)
        case let .release(index):
            try check(index)
            guard case let .issued(uid) = states[index] else { throw Self.corrupt("serial \(index + 1) released but not in hand") }
            states[index] = .open
            byUID[uid] = nil
            released.append(index)
        case .canceled:
            isCanceled = true
        case .pause:
            isPaused = true
        case .resume:
            isPaused = false
        }
    }

    /// Marks the serial in hand when the journal ended (the agent stopped mid-tag) as torn with
    /// `interrupted`; returns its index.
    package mutating func tearInterrupted() -> [Int] {
        let interrupted = states.indices.filter { if case .issued = states[$0] { true } else { false } }
        for index in interrupted {
            if let uid = states[index].uid { states[index] = .torn(uid: uid, code: "interrupted") }
        }
        return interrupted
    }

    private func isResolved(_ index: Int) -> Bool {
        switch states[index] {
        case .done, .spent: true
        case .open, .issued, .torn: false
        }
    }

    private func check(_ index: Int) throws(CommandError) {
        guard states.indices.contains(index) else { throw Self.corrupt("serial index \(index) out of range") }
    }

    /// The UID a serial in hand or torn went to; nil when it is not.
    private func issued(_ index: Int) throws(CommandError) -> [UInt8]? {
        try check(index)
        switch states[index] {
        case let .issued(uid), let .torn(uid, _): return uid
        default: return nil
        }
    }

    static func corrupt(_ what: String) -> CommandError {
        CommandError(.journalCorrupt, "the job journal is inconsistent (\(what)): keep the file for the record and start a new job id")
    }
}
