import NFCCore

extension Agent {
    /// A tag's arrival with its SUN verdict made final: a valid SUN message whose SDM read counter is
    /// not above the last one seen for its UID (``SUNCounterStore``, kept in the state directory) is
    /// `replayed`; a fresh one is recorded. In memory only (the store writes on its own thread).
    /// `failures`: what refused the tap and needs an `event/error` too (the credential's hash), as
    /// `.failed` events that follow it.
    func admittingSUN(_ event: ReaderLoopEvent) -> (ReaderLoopEvent, failures: [ReaderLoopEvent]) {
        var problems: [NFCError] = []
        switch event {
        case let .repeated(scan):
            // Repeat mode re-publishes the arrival's scan: judged again, never admitted twice.
            var repeated = scan
            repeated.sun = scan.sun.map { Self.rejudge($0, counters: parts.sunCounters) }
            repeated.trust = Self.trust(repeated.trust, with: repeated.sun, problems: &problems)
            return (.repeated(repeated), problems.map { .failed(operation: "scan", uid: scan.uid, $0) })
        case let .arrived(scan, report):
            var admitted = scan
            if let check = scan.sun {
                let judged = Self.admit(check, uid: scan.uid, counters: parts.sunCounters)
                if judged.result.verdict == .replayed {
                    logger.warning(
                        "tag \(scan.uid.hexString): SUN message replayed (read counter \(judged.result.counter ?? 0), last seen \(parts.sunCounters.last(for: judged.result.uid ?? scan.uid) ?? 0))")
                }
                admitted.sun = judged
            }
            admitted.trust = Self.trust(admitted.trust, with: admitted.sun, problems: &problems)
            return (.arrived(admitted, report: report), problems.map { .failed(operation: "scan", uid: scan.uid, $0) })
        default:
            return (event, [])
        }
    }

    /// The verdict of a scan already admitted at its arrival (repeat mode): still valid while its
    /// counter is the last one seen, replayed once a later one was.
    static func rejudge(_ check: SUNCheck, counters: SUNCounterStore) -> SUNCheck {
        var check = fresh(check)
        guard check.result.verdict == .valid, let counter = check.result.counter,
              let carried = check.result.uid, let last = counters.last(for: carried), last > counter else { return check }
        check.result.verdict = .replayed
        check.result.reason = "the read counter is not above the last one seen for this UID"
        return check
    }

    /// `trust` with its `sun` member, refused unless the message is valid. A tag the other checks
    /// did not look at gets a report of its own: the credential is the SUN message (its UID, when valid,
    /// hashed with `access.credential_hash`). With `access.credential: sun` a tap without a valid
    /// message has no credential and is refused (`sun_missing` when no message was checked at all).
    /// A hash that cannot be made refuses the tap (`credential_hash_failed`) and its error goes to
    /// `problems`; `crypto` gives libcrypto (a test passes a failing one).
    static func trust(
        _ trust: TrustReport?, with check: SUNCheck?, problems: inout [NFCError],
        crypto: () throws(NFCError) -> LibCrypto = LibCrypto.load
    ) -> TrustReport? {
        guard let check else {
            guard var trust, trust.credentialSource == .sun, trust.credential == nil else { return trust }
            trust.refuse(.sunMissing)
            return trust
        }
        var trust = trust ?? TrustReport(credentialSource: .sun)
        let member = SUNTrust(check)
        trust.sun = member
        if let refusal = member.refusal { trust.refuse(refusal) }
        guard trust.credentialSource == .sun, trust.credential == nil else { return trust }
        guard member.refusal == nil, let uid = check.result.uid else {
            trust.refuse(.credentialMissing)
            return trust
        }
        do {
            trust.credential = try TrustEvaluator.published(uid, hashed: trust.credentialHashed, crypto: crypto)
        } catch {
            trust.refuse(.credentialHashFailed)
            problems.append(error)
        }
        return trust
    }

    /// A valid message that mirrors no UID or no read counter is `not_fresh`: no counter can show it
    /// is not a copy, and a counter kept under a UID the tag itself announces proves nothing.
    static func fresh(_ check: SUNCheck) -> SUNCheck {
        guard check.result.verdict == .valid, check.result.uid == nil || check.result.counter == nil else { return check }
        var check = check
        check.result.verdict = .notFresh
        check.result.reason = "the message mirrors no UID or no read counter (SDMOptions): a copy cannot be told from the tag"
        return check
    }

    /// `check` after the counter store: only a valid message with a counter is admitted. The counter
    /// belongs to the UID the message carries (a clone answering with another tag's message is
    /// judged by the genuine tag's counter).
    static func admit(_ check: SUNCheck, uid: [UInt8], counters: SUNCounterStore) -> SUNCheck {
        var check = fresh(check)
        guard check.result.verdict == .valid, let counter = check.result.counter, let carried = check.result.uid else { return check }
        if case .replayed = counters.admit(uid: carried, counter: counter) {
            check.result.verdict = .replayed
            check.result.reason = "the read counter is not above the last one seen for this UID"
        }
        return check
    }
}
