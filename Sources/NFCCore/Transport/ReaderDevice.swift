/// Who made the reader and what it runs.
public struct ReaderInfo: Sendable, Hashable, Codable {
    /// The connection string the device was opened with (libnfc connstring, or a virtual name).
    public var connstring: String
    /// Device name as the driver reports it.
    public var name: String
    /// Chip and firmware, e.g. "PN532 v1.6".
    public var firmware: String

    public init(connstring: String, name: String, firmware: String) {
        self.connstring = connstring
        self.name = name
        self.firmware = firmware
    }
}

/// A reader that polls for tags: the libnfc backend on real boards, a virtual field in tests.
/// The agent's reader loop is written against this protocol only.
///
/// Blocking: implementations must never block Swift's cooperative pool. ``poll(modulations:timeout:)``
/// is cancellable: cancelling the calling task (or ``abort()``) ends a poll that waits on an empty field.
public protocol ReaderDevice: Sendable {
    /// Opens the device. Throws ``NFCError/readerUnavailable(_:)`` when it cannot.
    func open() async throws -> ReaderInfo
    /// Closes the device (field off). Safe to call when not open.
    func close() async
    /// Waits up to `timeout` for tags of the given modulations and selects them. Returns the
    /// transports of the tags found (empty when none arrived in time). Several tags in the field
    /// at once are returned separately where the reader can see them.
    func poll(modulations: [Modulation], timeout: Duration) async throws -> [any TagTransport]
    /// True while the tag behind `transport` still answers (family-specific presence check).
    /// Throws ``NFCError/readerUnavailable(_:)`` when the reader itself went away.
    func isPresent(_ transport: any TagTransport) async throws -> Bool
    /// Aborts a blocking poll from another thread (e.g. on shutdown or when a command arrives).
    func abort()
    /// Like ``poll(modulations:timeout:)``, but returns at most `limit` tags, so a reader that must
    /// select each tag to see the next one stops after `limit` selects (one for `limit` 1).
    func poll(modulations: [Modulation], timeout: Duration, limit: Int) async throws -> [any TagTransport]
    /// One presence check that also tells whether the tag missed it: ``PresenceCheck/returned``
    /// when the check itself got silence and a re-select then found the same tag (it may have
    /// left the field and come back while the check ran).
    func checkPresence(_ transport: any TagTransport) async throws -> PresenceCheck
    /// The executor of the one thread the device's blocking calls run on, when it has one: a task
    /// that prefers it (`Task(executorPreference:)`) makes those calls there at once, without a hop
    /// to that thread and back for each (issue 25). Nil (the default): no such thread.
    var taskExecutor: (any TaskExecutor)? { get }
    /// True when the last poll returned a tag the reader found by itself at once, and left the search
    /// for more tags in the field to the next poll (a PN532 in InAutoPoll: the scan goes first). The
    /// caller polls again soon to see them. False (the default) when a poll always searched.
    func hasDeferredSearch() async -> Bool
}

/// The outcome of ``ReaderDevice/checkPresence(_:)``.
public enum PresenceCheck: Sendable, Equatable {
    /// The tag answered.
    case present
    /// The tag was silent, then answered a re-select: it was (or may have been) away in between.
    case returned
    /// The tag is gone.
    case absent
}

extension ReaderDevice {
    /// No executor of its own.
    public var taskExecutor: (any TaskExecutor)? { nil }

    /// Every poll searched the whole field.
    public func hasDeferredSearch() async -> Bool { false }

    /// The first `limit` tags of ``poll(modulations:timeout:)``.
    public func poll(modulations: [Modulation], timeout: Duration, limit: Int) async throws -> [any TagTransport] {
        Array(try await poll(modulations: modulations, timeout: timeout).prefix(max(1, limit)))
    }

    /// ``isPresent(_:)`` as a ``PresenceCheck`` (a reader that cannot tell a missed check).
    public func checkPresence(_ transport: any TagTransport) async throws -> PresenceCheck {
        try await isPresent(transport) ? .present : .absent
    }
}
