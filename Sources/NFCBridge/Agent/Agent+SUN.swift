import NFCCore

extension Agent {
    /// A tag's arrival with its SUN verdict made final: a valid SUN message whose SDM read counter is
    /// not above the last one seen for its UID (``SUNCounterStore``, kept in the state directory) is
    /// `replayed`; a fresh one is recorded. In memory only (the store writes on its own thread).
    func admittingSUN(_ event: ReaderLoopEvent) -> ReaderLoopEvent {
        if case let .repeated(scan) = event, let check = scan.sun {
            // Repeat mode re-publishes the arrival's scan: judged again, never admitted twice.
            var repeated = scan
            repeated.sun = Self.rejudge(check, uid: scan.uid, counters: parts.sunCounters)
            repeated.trust = Self.trust(repeated.trust, with: repeated.sun ?? check)
            return .repeated(repeated)
        }
        guard case let .arrived(scan, report) = event, let check = scan.sun else { return event }
        let admitted = Self.admit(check, uid: scan.uid, counters: parts.sunCounters)
        if admitted.result.verdict == .replayed {
            logger.warning(
                "tag \(scan.uid.hexString): SUN message replayed (read counter \(admitted.result.counter ?? 0), last seen \(parts.sunCounters.last(for: admitted.result.uid ?? scan.uid) ?? 0))")
        }
        var admittedScan = scan
        admittedScan.sun = admitted
        admittedScan.trust = Self.trust(admittedScan.trust, with: admitted)
        return .arrived(admittedScan, report: report)
    }

    /// The verdict of a scan already admitted at its arrival (repeat mode): still valid while its
    /// counter is the last one seen, replayed once a later one was.
    static func rejudge(_ check: SUNCheck, uid: [UInt8], counters: SUNCounterStore) -> SUNCheck {
        guard check.result.verdict == .valid, let counter = check.result.counter,
              let last = counters.last(for: check.result.uid ?? uid), last > counter else { return check }
        var check = check
        check.result.verdict = .replayed
        check.result.reason = "the read counter is not above the last one seen for this UID"
        return check
    }

    /// `trust` with its `sun` member, refused unless the message is valid. A tag the other checks
    /// did not look at gets a report of its own: the credential is the SUN message (its UID, when valid).
    static func trust(_ trust: TrustReport?, with check: SUNCheck) -> TrustReport {
        var trust = trust ?? TrustReport(credentialSource: "sun")
        let member = SUNTrust(check)
        trust.sun = member
        if let refusal = member.refusal {
            trust.refuse(refusal)
        } else if trust.credentialSource == "sun", trust.credential == nil, let uid = check.result.uid {
            trust.credential = uid.hexString
        }
        return trust
    }

    /// `check` after the counter store: only a valid message with a counter is admitted. The counter
    /// belongs to the UID the message carries (a clone answering with another tag's message is
    /// judged by the genuine tag's counter).
    static func admit(_ check: SUNCheck, uid: [UInt8], counters: SUNCounterStore) -> SUNCheck {
        guard check.result.verdict == .valid, let counter = check.result.counter else { return check }
        var check = check
        if case .replayed = counters.admit(uid: check.result.uid ?? uid, counter: counter) {
            check.result.verdict = .replayed
            check.result.reason = "the read counter is not above the last one seen for this UID"
        }
        return check
    }
}
