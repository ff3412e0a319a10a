import NFCCore

extension Agent {
    /// A tag's arrival with its SUN verdict made final: a valid SUN message whose SDM read counter is
    /// not above the last one seen for its UID (``SUNCounterStore``, kept in the state directory) is
    /// `replayed`; a fresh one is recorded. In memory only (the store writes on its own thread).
    func admittingSUN(_ event: ReaderLoopEvent) -> ReaderLoopEvent {
        guard case let .arrived(scan, report) = event, let check = scan.sun else { return event }
        let admitted = Self.admit(check, uid: scan.uid, counters: parts.sunCounters)
        if admitted.result.verdict == .replayed {
            logger.warning(
                "tag \(scan.uid.hexString): SUN message replayed (read counter \(admitted.result.counter ?? 0), last seen \(parts.sunCounters.last(for: admitted.result.uid ?? scan.uid) ?? 0))")
        }
        var admittedScan = scan
        admittedScan.sun = admitted
        return .arrived(admittedScan, report: report)
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
