import Synchronization

/// How far a running dump has got, in the family's own unit ("pages", …), and what it read so far:
/// the CLI's progress line and its partial file read it without knowing the family. Pass it as
/// ``DumpOptions/progress``; the family's dump calls ``begin(total:unit:partial:)`` once and
/// ``advance(to:)`` as it reads. Safe to read from any thread while the dump runs.
public final class DumpProgress: Sendable {
    private struct State {
        var read = 0
        var total: Int?
        var unit = ""
        var partial: (@Sendable (NFCError) -> TagDump?)?
    }

    private let state = Mutex(State())

    /// Creates a record of a dump that has not started.
    public init() {}

    /// Units read so far.
    public var read: Int { state.withLock { $0.read } }

    /// Units the dump reads when it runs to the end; nil before it started or when the family does not know.
    public var total: Int? { state.withLock { $0.total } }

    /// The unit ``read`` and ``total`` count, plural ("pages"); empty before the dump started.
    public var unit: String { state.withLock { $0.unit } }

    /// The dump of what was read before `error` ended it, worded as the family words an interrupted
    /// dump; nil when nothing was read or the family keeps no partial dumps.
    public func partialDump(after error: NFCError) -> TagDump? {
        let partial = state.withLock { $0.partial }
        return partial?(error)
    }

    /// Called by a family's dump when it starts: the size of the whole read and how to build a partial
    /// dump from what has been read when an error ends it.
    public func begin(total: Int?, unit: String, partial: @escaping @Sendable (NFCError) -> TagDump?) {
        state.withLock {
            $0 = State(read: 0, total: total, unit: unit, partial: partial)
        }
    }

    /// Called by a family's dump as it reads: `read` units are read so far.
    public func advance(to read: Int) {
        state.withLock { $0.read = read }
    }
}
