import FoundationEssentials
import NFCCore

/// What the agent knows right now.
package struct AgentState: Sendable {
    /// When the agent started (wall clock).
    package var startedAt: Date
    /// When the agent started (monotonic milliseconds).
    package var startedMonotonic: Int64
    /// The reader's state.
    package var reader: ReaderStatus
    /// The reader's identity, once opened.
    package var readerInfo: ReaderInfo?
    /// Tags in the field.
    package var tags = TagPresence()
    /// Reported scans (arrivals and repeats).
    package var scansTotal = 0
    /// Successful reopens of the reader.
    package var readerReopens = 0
    /// Failed polls and presence checks.
    package var pollErrors = 0
    /// The broker link was up and acknowledging when the event came (set by the agent before each
    /// event): a scan made otherwise goes out `buffered` and does not become `tag.last` (Home
    /// Assistant's Last UID).
    package var linkLive = true
    /// Broker connections so far (reconnects = connections − 1).
    package var connections = 0
    /// Last sign of life of the reader loop (monotonic milliseconds).
    package var lastProgress: Int64 = 0
    /// When the tag operation under way started (monotonic milliseconds), if one is.
    package var busySince: Int64?
    /// Reopens of a reader that does not answer (``NFCError/readerUnresponsive(_:)``) that failed
    /// in a row; reset when it opens or turns out to be gone instead.
    package var failedUnresponsiveReopens = 0
    /// The reader stopped answering and ``AgentReducer/reopensBeforeHung`` reopens failed: the
    /// watchdog is no longer petted, so systemd restarts the service.
    package var isReaderHung: Bool { failedUnresponsiveReopens >= AgentReducer.reopensBeforeHung }

    init(startedAt: Date, startedMonotonic: Int64, reader: ReaderStatus, tags: TagPresence = TagPresence()) {
        self.startedAt = startedAt
        self.startedMonotonic = startedMonotonic
        self.reader = reader
        self.tags = tags
        self.lastProgress = startedMonotonic
    }
}
