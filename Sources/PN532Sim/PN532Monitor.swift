import Dispatch
import Synchronization

/// Something that happened on the emulated host interface.
public enum PN532Event: Sendable, Equatable {
    /// A client opened the pty (first byte of a session).
    case connected
    /// The client closed it (POLLHUP / EIO); a pending command was dropped.
    case disconnected
    /// A command frame arrived (code and parameters).
    case command(code: UInt8, parameters: [UInt8])
    /// The host aborted the pending command with an ACK frame.
    case aborted
    /// A frame with bad checksums was ignored.
    case malformed(PN532FrameError)
}

/// Counts what the emulator saw and lets tests and the control channel wait for it ("until the
/// client has sent InAutoPoll"), without sleeping. Optionally prints a trace line per event in the
/// form of docs/simulator.md (`0x4A InListPassiveTarget(0100)`).
public final class PN532Monitor: Sendable {
    /// A consistent view of the counters.
    public struct Snapshot: Sendable, Equatable {
        /// Commands received, by code.
        public var commandCounts: [UInt8: Int] = [:]
        /// Client sessions begun.
        public var sessions = 0
        /// True while a client has the pty open.
        public var isClientConnected = false
        /// Aborts received.
        public var aborts = 0
    }

    private struct Waiter {
        let predicate: @Sendable (Snapshot) -> Bool
        let semaphore: DispatchSemaphore
    }

    private struct State {
        var snapshot = Snapshot()
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 1
    }

    private let state = Mutex(State())
    private let trace: (@Sendable (String) -> Void)?

    /// Creates a monitor; `trace` receives one line per event.
    public init(trace: (@Sendable (String) -> Void)? = nil) {
        self.trace = trace
    }

    /// The counters now.
    public var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// How many commands with `code` arrived so far.
    public func commandCount(_ code: UInt8) -> Int { snapshot.commandCounts[code, default: 0] }

    /// Records an event and wakes the waiters it satisfies.
    func record(_ event: PN532Event) {
        let satisfied = state.withLock { s -> [DispatchSemaphore] in
            switch event {
            case .connected:
                s.snapshot.sessions += 1
                s.snapshot.isClientConnected = true
            case .disconnected: s.snapshot.isClientConnected = false
            case let .command(code, _): s.snapshot.commandCounts[code, default: 0] += 1
            case .aborted: s.snapshot.aborts += 1
            case .malformed: break
            }
            let snapshot = s.snapshot
            let done = s.waiters.filter { $0.value.predicate(snapshot) }
            for key in done.keys { s.waiters[key] = nil }
            return done.values.map(\.semaphore)
        }
        for semaphore in satisfied { semaphore.signal() }
        if let trace { trace(Self.traceLine(event)) }
    }

    /// Blocks the calling thread until `predicate` holds or `timeout` passes; true if it held.
    /// For tests and the control thread — never call it from the session thread.
    public func wait(timeout: Duration, until predicate: @escaping @Sendable (Snapshot) -> Bool) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let key = state.withLock { s -> UInt64? in
            if predicate(s.snapshot) { return nil }
            defer { s.nextWaiter += 1 }
            s.waiters[s.nextWaiter] = Waiter(predicate: predicate, semaphore: semaphore)
            return s.nextWaiter
        }
        guard let key else { return true }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        if semaphore.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success { return true }
        return state.withLock { s in
            s.waiters[key] = nil
            return predicate(s.snapshot)
        }
    }

    /// Waits until at least `count` commands with `code` arrived in total.
    public func waitForCommand(_ code: UInt8, count: Int = 1, timeout: Duration) -> Bool {
        wait(timeout: timeout) { $0.commandCounts[code, default: 0] >= count }
    }

    /// The trace form of an event.
    static func traceLine(_ event: PN532Event) -> String {
        switch event {
        case .connected: "-- connect"
        case .disconnected: "-- disconnect"
        case .aborted: "-- abort"
        case let .malformed(error): "-- malformed frame: \(error)"
        case let .command(code, parameters):
            "0x\(code.hexString) \(PN532CommandTable.name(of: code))(\(parameters.hexString.lowercased()))"
        }
    }
}
