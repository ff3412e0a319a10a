import NFCCore

/// What the reader loop reports to the agent, in the order it happens.
package enum ReaderLoopEvent: Sendable, Equatable {
    /// The reader was opened (`reopened`: not the first time since start).
    case opened(ReaderInfo, reopened: Bool)
    /// The reader cannot be used: opening failed or it went away. `firstFailure` is true for the
    /// first failure of an outage (the agent reports it once, then retries quietly).
    case unavailable(NFCError, operation: String, firstFailure: Bool)
    /// A poll or presence check failed while the reader stays open.
    case pollFailed(NFCError, consecutive: Int)
    /// A poll succeeded again after failures.
    case pollRecovered
    /// A tag arrived and was scanned. Publish `scanned` when `report` is true.
    case arrived(TagScan, report: Bool)
    /// Repeat mode: the tag is still there.
    case repeated(TagScan)
    /// A tag left (`report`: its arrival was reported).
    case removed(uid: [UInt8], presentMilliseconds: Int64, report: Bool)
    /// The dump of a scanned tag.
    case dumped(TagScan, TagDump)
    /// An operation on a tag failed (`scan`, `dump`).
    case failed(operation: String, uid: [UInt8]?, NFCError)
    /// One turn of the loop completed (the watchdog's sign of life).
    case progress
    /// A long tag operation (`scan`, `dump`) starts: a MIFARE Classic dump trying many keys can take
    /// tens of seconds, which the watchdog must not take for a hang.
    case busy(operation: String)
}
