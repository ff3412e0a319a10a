import Synchronization

/// A callback that one thread sets and another calls: the place for what would be written
/// `Mutex<(@Sendable (Argument) -> Void)?>`.
///
/// That spelling is broken with Swift 6.3.1 (`-O` and `-Onone` alike): each read of a `Mutex` whose
/// value is a function type (`observer.withLock { $0 }?(x)`) leaves the stored closure wrapped in two
/// more reabstraction thunks (2 × 32 bytes of heap), and each call goes down the whole chain: 100,000
/// reads kept 6.4 MB (heaptrack), a million overflowed a thread's stack. The spool's durability
/// observer is read once per batch written, so the agent grew by 64 bytes per batch and its spool
/// writer's stack deepened for as long as it ran (issue 25's soak, bench/README.md). Here the closure
/// lives in a struct, which the mutex stores without reabstraction.
public struct CallbackSlot<Argument>: ~Copyable, Sendable {
    /// The callback in a struct (`@usableFromInline`: other modules lay out a slot's storage, and
    /// Swift 6.3.1's debug build fails to link a private type there).
    @usableFromInline
    struct Entry: Sendable {
        let call: @Sendable (Argument) -> Void
    }

    private let entry = Mutex<Entry?>(nil)

    /// An empty slot.
    public init() {}

    /// Sets the callback (nil: none).
    public func set(_ callback: (@Sendable (Argument) -> Void)?) {
        entry.withLock { $0 = callback.map { Entry(call: $0) } }
    }

    /// Calls the callback (outside the lock) with `argument`; false when none is set.
    @discardableResult
    public func callAsFunction(_ argument: Argument) -> Bool {
        guard let current = entry.withLock({ $0 }) else { return false }
        current.call(argument)
        return true
    }
}
