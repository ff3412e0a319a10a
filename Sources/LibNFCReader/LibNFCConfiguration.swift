/// Timing of the libnfc backend. The defaults follow libnfc's own tools.
public struct LibNFCConfiguration: Sendable, Equatable {
    /// How long the host waits for the reader's answer to a Type 2 / Classic / FeliCa command
    /// (libnfc's default command timeout is 350 ms). A silent tag is reported by the PN53x itself
    /// after its RF timeout (about 51 ms), well within this.
    public var commandTimeout: Duration
    /// How long the host waits for an ISO-DEP exchange (APDU); the reader handles waiting-time
    /// extensions itself, so this covers slow cards (DESFire key operations, passports).
    public var apduTimeout: Duration
    /// Pause between two polling rounds on an empty field, so the serial line and the reader are
    /// not hammered. A poll abort or task cancellation cuts it short.
    public var pollInterval: Duration
    /// How long the GetFirmwareVersion probe waits for the chip (ACK and answer) after a call timed
    /// out on the host side, to tell a silent reader from a silent tag or an empty field (libnfc
    /// gives its own Diagnose check 500 ms). The probe is tried twice before the reader is called
    /// unresponsive.
    public var probeTimeout: Duration
    /// The least time one libnfc call may block the reader thread before it is aborted and the
    /// reader reported unresponsive; a call whose own timeout is longer gets twice that plus 1 s.
    /// libnfc bounds each wait by the call's timeout, so this only fires when something below it
    /// does not (see ``LibNFCAbortControl``).
    public var callDeadline: Duration
    /// Let a PN532 poll by itself (InAutoPoll, UM0701-02 §7.3.13) when a poll is long enough for
    /// one of its polls and asks only for 106 kbps type A and FeliCa: the line stays quiet and a
    /// tag is seen as it arrives. Readers without the command keep the host's polling (see
    /// ``LibNFCAutoPoll``). Off for one-shot commands, whose tag is usually there already.
    public var autoPoll: Bool

    /// Creates a configuration; every value has a default.
    public init(
        commandTimeout: Duration = .milliseconds(350), apduTimeout: Duration = .seconds(2),
        pollInterval: Duration = .milliseconds(100), probeTimeout: Duration = .milliseconds(500),
        callDeadline: Duration = .seconds(5), autoPoll: Bool = false
    ) {
        self.autoPoll = autoPoll
        self.commandTimeout = commandTimeout
        self.apduTimeout = apduTimeout
        self.pollInterval = pollInterval
        self.probeTimeout = probeTimeout
        self.callDeadline = callDeadline
    }
}

extension Duration {
    /// Milliseconds for a libnfc timeout argument: at least 1 (libnfc reads 0 as "wait forever").
    var libnfcMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, ms))
    }
}
