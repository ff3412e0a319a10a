import NFCCore

/// What an encode job did with one tag: `event/job` on MQTT, one line of `nfcbridge encode`.
package struct EncodeTagResult: Sendable, Equatable, Encodable {
    /// The outcome.
    package enum Result: String, Sendable, Equatable, Encodable, CaseIterable {
        /// Written, verified (and locked when asked): the serial is on the tag.
        case ok
        /// The tag already has a serial of this job (done or spent): not encoded again.
        case duplicate
        /// Not encoded and no serial used (not blank, read-only, too small, not NDEF, refused a
        /// password…): `code` says why; the serial goes to the next tag.
        case refused
        /// The write or verify failed on a tag still in the field: the serial is spent, never
        /// issued again (after the retries the policy allows).
        case failed
        /// The tag left mid-write, or the agent stopped while it was being written: the serial
        /// stays with this tag (it may hold part of it) and is finished when the tag comes back.
        case torn
    }

    /// The job id.
    package var job: String
    /// The serial's position in the roll (from 1); nil when no serial was used (`refused`).
    package var n: Int?
    /// The serial, as `{serial}` shows it; nil with `n`.
    package var serial: String?
    /// The tag's UID (hex).
    package var uid: String
    /// The outcome.
    package var result: Result
    /// The error code behind `refused`, `failed` and `torn` (as in command responses), or
    /// `already_encoded` / `already_failed` for `duplicate`.
    package var code: String?
    /// What happened, for the operator.
    package var message: String?
    /// True when this tag was torn before and is now finished with its own serial.
    package var resumed: Bool
    /// Writes tried on this tag.
    package var attempts: Int
    /// Milliseconds spent on the tag (tag in hand to result).
    package var ms: Int64

    enum CodingKeys: String, CodingKey { case job, n, serial, uid, result, code, message, resumed, attempts, ms }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(job, forKey: .job)
        try container.encode(n, forKey: .n)
        try container.encode(serial, forKey: .serial)
        try container.encode(uid, forKey: .uid)
        try container.encode(result, forKey: .result)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encode(resumed, forKey: .resumed)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(ms, forKey: .ms)
    }
}

/// An encode job's counts: the retained `state/job` on MQTT, the last line of `nfcbridge encode`.
package struct EncodeJobState: Sendable, Equatable, Encodable {
    /// Where the job is.
    package enum Phase: String, Sendable, Equatable, Encodable, CaseIterable {
        /// Waiting for or encoding tags.
        case running
        /// `pause`d: no new tag is taken.
        case paused
        /// Every serial was issued and resolved.
        case finished
        /// Ended by `cancel`: no serial is issued any more.
        case canceled
        /// Stopped by an error (`error`); resumable once fixed.
        case stopped

        /// The phase a job's control puts it in (a job that is not over).
        init(_ mode: JobControl.Mode) {
            switch mode {
            case .running: self = .running
            case .paused: self = .paused
            case .canceled: self = .canceled
            }
        }
    }

    /// A tag left with a torn serial.
    package struct TornTag: Sendable, Equatable, Encodable {
        var n: Int
        var serial: String
        var uid: String
        var code: String
    }

    /// The job id.
    package var job: String
    /// Where it is.
    package var state: Phase
    /// Serials in the job.
    package var total: Int
    /// Serials verified on a tag.
    package var done: Int
    /// Serials spent on tags that failed.
    package var failed: Int
    /// Serials on torn tags (listed in `torn_tags`).
    package var torn: Int
    /// Serials not issued yet.
    package var remaining: Int
    /// The torn tags: show them again while the job runs to finish them.
    package var tornTags: [TornTag]
    /// Why the job stopped (`state` `stopped`).
    package var error: String?

    enum CodingKeys: String, CodingKey {
        case job, state, total, done, failed, torn, remaining, tornTags = "torn_tags", error
    }

    /// The counts of `ledger` in `phase`.
    package init(_ ledger: JobLedger, phase: Phase, error: String? = nil) {
        job = ledger.spec.id
        state = phase
        total = ledger.spec.serials.count
        done = ledger.done
        failed = ledger.failed
        torn = ledger.torn
        remaining = ledger.remaining
        tornTags = ledger.tornIndexes.map { index in
            let state = ledger.states[index]
            let code = if case let .torn(_, code) = state { code } else { "" }
            return TornTag(n: index + 1, serial: ledger.spec.serials.serial(at: index).description,
                           uid: state.uid?.hexString ?? "", code: code)
        }
        self.error = error
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(job, forKey: .job)
        try container.encode(state, forKey: .state)
        try container.encode(total, forKey: .total)
        try container.encode(done, forKey: .done)
        try container.encode(failed, forKey: .failed)
        try container.encode(torn, forKey: .torn)
        try container.encode(remaining, forKey: .remaining)
        try container.encode(tornTags, forKey: .tornTags)
        try container.encode(error, forKey: .error)
    }
}
