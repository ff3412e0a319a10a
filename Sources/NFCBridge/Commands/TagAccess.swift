import NFCCore

/// A tag in the field, as handed to a command.
package struct PresentTag: Sendable {
    /// Its UID (IDm for FeliCa), as selected.
    package var uid: [UInt8]
    /// The channel to it.
    package var transport: any TagTransport
    /// What the reader loop's identification found for it (``TagScan/cardInfo``), so a command does
    /// not identify it again; nil when it did not run or failed (the executor identifies it then).
    package var cardInfo: CardInfo?

    /// Creates a tag from its transport and, when known, its identification.
    package init(transport: any TagTransport, cardInfo: CardInfo? = nil) {
        self.uid = transport.target.uid
        self.transport = transport
        self.cardInfo = cardInfo
    }
}

/// How commands get at a tag. The reader belongs to whoever polls it — the agent's reader loop, or
/// a CLI command — so commands never poll on their own: they ask for the tags in the field, wait for
/// the next one, and borrow the reader while they act (presence checks pause meanwhile, so nothing
/// re-selects the tag between a PWD_AUTH and the writes after it).
///
/// ``DeviceTagAccess`` implements it over a `ReaderDevice` that nothing else polls (CLI, tests).
package protocol TagAccess: Sendable {
    /// The tags in the field now, the one that arrived first first; empty when there is none. Does
    /// not wait for one. A command picks among them (``TagChoice``): the one its request names, or
    /// the only one.
    func presentTags() async throws -> [PresentTag]

    /// Waits for a tag to be in the field and returns it: the next one to arrive when the field is
    /// empty, else the one that arrived first (an encode job takes the tags one after the other). Throws `CancellationError` when the task is cancelled, and the reader's error when
    /// it cannot be used.
    func nextTag() async throws -> PresentTag

    /// Runs `body` on `tag` with the reader to itself.
    func withExclusiveAccess<Result: Sendable>(
        to tag: PresentTag, _ body: @Sendable (any TagTransport) async throws -> Result
    ) async throws -> Result

    /// Returns once `tag` has left the field (at once when it is gone already): an encode job waits
    /// for it before it takes the next tag. Throws `CancellationError` when the task is cancelled.
    func waitForRemoval(of tag: PresentTag) async throws
}

/// ``TagAccess`` over a `ReaderDevice` that the caller opened and nothing else polls: the CLI's
/// `write` / `format` / `lock`, and in-process tests on a `VirtualReaderDevice`.
package struct DeviceTagAccess: TagAccess {
    let device: any ReaderDevice
    let modulations: [Modulation]
    let interval: Duration

    /// Polls `device` for `modulations`, each poll lasting at most `interval`.
    package init(device: any ReaderDevice, modulations: [Modulation], interval: Duration) {
        self.device = device
        self.modulations = modulations
        self.interval = interval
    }

    /// Polls `device` as the configuration's `reader` settings say (modulations, interval).
    package init(device: any ReaderDevice, reader: AgentConfiguration.ReaderSettings) {
        self.init(device: device, modulations: reader.modulations, interval: .milliseconds(reader.intervalMilliseconds))
    }

    /// The tag one poll selects: at most one.
    package func presentTags() async throws -> [PresentTag] {
        try await device.poll(modulations: modulations, timeout: .zero, limit: 1).map { PresentTag(transport: $0) }
    }

    package func nextTag() async throws -> PresentTag {
        // libnfc's poll blocks its thread: abort it when the waiting task is cancelled.
        try await withTaskCancellationHandler {
            while true {
                try Task.checkCancellation()
                if let transport = try await device.poll(modulations: modulations, timeout: interval, limit: 1).first {
                    return PresentTag(transport: transport)
                }
            }
        } onCancel: {
            device.abort()
        }
    }

    package func withExclusiveAccess<Result: Sendable>(
        to tag: PresentTag, _ body: @Sendable (any TagTransport) async throws -> Result
    ) async throws -> Result {
        try await body(tag.transport)
    }

    package func waitForRemoval(of tag: PresentTag) async throws {
        // A presence check is one exchange with the tag; between checks the reader rests a little.
        let pause = min(interval, .milliseconds(20))
        try await withTaskCancellationHandler {
            while try await device.isPresent(tag.transport) {
                try await Task.sleep(for: pause)
            }
        } onCancel: {
            device.abort()
        }
    }

    /// The first tag found within `timeout` (nil: wait as long as it takes), or nil when none came.
    /// Polls at least once, so a zero timeout still finds a tag already in the field. With `uid`
    /// the poll lists every tag in the field and returns the one with that UID when it is among
    /// them (else the first, which the caller refuses): the reader may list another tag first.
    package func firstTag(within timeout: Duration?, uid: [UInt8]? = nil) async throws -> PresentTag? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            try Task.checkCancellation()
            let left = deadline.map { max(.zero, ContinuousClock.now.duration(to: $0)) } ?? .seconds(60)
            let found =
                uid == nil
                ? try await device.poll(modulations: modulations, timeout: left, limit: 1)
                : try await device.poll(modulations: modulations, timeout: left)
            if let transport = found.first(where: { $0.target.uid == uid }) ?? found.first {
                return PresentTag(transport: transport)
            }
            if let deadline, ContinuousClock.now >= deadline { return nil }
        }
    }
}
