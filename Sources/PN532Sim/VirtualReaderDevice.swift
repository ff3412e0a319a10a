import Foundation
import enum NFCCore.Modulation
import enum NFCCore.NFCError
import protocol NFCCore.ReaderDevice
import struct NFCCore.ReaderInfo
import protocol NFCCore.TagTransport
import struct NFCCore.Target
import Synchronization

/// An in-process ``ReaderDevice`` over ``VirtualTag``s: a reader with a field that tests fill and
/// empty (``place(_:)``, ``remove(_:)``), and a cable they can pull (``unplug()``, ``replug()``).
/// The agent's whole reader loop runs against it without a pty, libnfc or threads of its own.
///
/// Polls return one ``VirtualTagTransport`` per tag in the field whose modulation is polled for,
/// activating each tag as a reader's select would. An empty field makes `poll` wait until a tag
/// is placed, the timeout passes, ``abort()`` is called or the task is cancelled.
public final class VirtualReaderDevice: ReaderDevice {
    private struct State {
        var field: [any VirtualTag] = []
        var transports: [ObjectIdentifier: [VirtualTagTransport]] = [:]
        var plugged = true
        var isOpen = false
        var openCount = 0
        var pollCount = 0
        /// Bumped by every change a waiting poll must see (place, unplug, abort).
        var generation = 0
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
        /// Tasks in ``waitForPoll(after:)``: each resumes once `pollCount` exceeds its count.
        var pollWaiters: [UUID: (after: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        /// Bumped by ``abort()``: a poll that sees it change returns empty-handed.
        var aborts = 0
        /// Presence checks that answer "absent" although the tag is there (a marginal read).
        var flakyChecks: [ObjectIdentifier: Int] = [:]
        var failOpens = 0
    }

    /// What `open()` reports.
    public let info: ReaderInfo
    private let state = Mutex(State())

    /// Creates a plugged-in reader with an empty field.
    public init(info: ReaderInfo = ReaderInfo(connstring: "virtual:0", name: "Virtual PN532", firmware: "PN532 v1.6")) {
        self.info = info
    }

    // MARK: - Test controls

    /// Puts `tag` into the field (a waiting poll sees it at once).
    public func place(_ tag: any VirtualTag) {
        wake { s in
            if !s.field.contains(where: { $0 === tag }) { s.field.append(tag) }
        }
    }

    /// Takes `tag` out of the field: it powers off and its transports report ``NFCError/tagRemoved``.
    public func remove(_ tag: any VirtualTag) {
        let transports = state.withLock { s -> [VirtualTagTransport] in
            s.field.removeAll { $0 === tag }
            return s.transports.removeValue(forKey: ObjectIdentifier(tag)) ?? []
        }
        for transport in transports { transport.remove() }
        tag.powerOff()
    }

    /// Makes the next `count` presence checks of `tag` answer "absent" while it stays in the field
    /// (a marginal read on the edge of the field).
    public func failPresenceChecks(of tag: any VirtualTag, count: Int) {
        state.withLock { $0.flakyChecks[ObjectIdentifier(tag)] = count }
    }

    /// Makes the next `count` opens fail although the reader is plugged (e.g. busy).
    public func failOpens(count: Int) {
        state.withLock { $0.failOpens = count }
    }

    /// Pulls the cable: every call fails with ``NFCError/readerUnavailable(_:)`` until ``replug()``.
    public func unplug() {
        wake { s in
            s.plugged = false
            s.isOpen = false
        }
    }

    /// Plugs the reader back in (it must be opened again).
    public func replug() {
        state.withLock { $0.plugged = true }
    }

    /// True while opened and not closed.
    public var isOpen: Bool { state.withLock { $0.isOpen } }
    /// How many times the reader was opened.
    public var openCount: Int { state.withLock { $0.openCount } }
    /// How many polls ran (counted as each begins, before it looks at the field).
    public var pollCount: Int { state.withLock { $0.pollCount } }

    /// Returns once a poll has begun after the `count`th (``pollCount`` > `count`), or on
    /// cancellation. With `count` read after a ``remove(_:)``, that poll cannot find the removed tag.
    public func waitForPoll(after count: Int) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.pollCount > count || Task.isCancelled { return true }
                    s.pollWaiters[id] = (count, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.pollWaiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    // MARK: - ReaderDevice

    public func open() async throws -> ReaderInfo {
        try state.withLock { s throws(NFCError) in
            guard s.plugged else { throw .readerUnavailable("virtual reader unplugged") }
            if s.failOpens > 0 {
                s.failOpens -= 1
                throw .readerUnavailable("virtual reader busy")
            }
            s.isOpen = true
            s.openCount += 1
        }
        return info
    }

    public func close() async {
        state.withLock { $0.isOpen = false }
    }

    public func poll(modulations: [Modulation], timeout: Duration) async throws -> [any TagTransport] {
        let deadline = ContinuousClock.now + timeout
        let (aborts, polled) = state.withLock { s in
            s.pollCount += 1
            let polled = s.pollWaiters.filter { $0.value.after < s.pollCount }
            for id in polled.keys { s.pollWaiters[id] = nil }
            return (s.aborts, polled.values.map(\.continuation))
        }
        for waiter in polled { waiter.resume() }
        while true {
            try Task.checkCancellation()
            let (found, generation, aborted) = try state.withLock { s throws(NFCError) -> ([any VirtualTag], Int, Bool) in
                guard s.aborts == aborts else { return ([], s.generation, true) }
                guard s.plugged else { throw .readerUnavailable("virtual reader unplugged") }
                guard s.isOpen else { throw .readerUnavailable("virtual reader not open") }
                return (s.field.filter { modulations.contains($0.target.modulation) }, s.generation, false)
            }
            if aborted { return [] }
            if !found.isEmpty {
                return found.map { tag in
                    tag.powerOff()  // a fresh select, as after a real poll
                    let transport = VirtualTagTransport(tag: tag)
                    state.withLock { s in
                        // Keep the recent transports only: older ones are no longer used by anyone.
                        var list = s.transports[ObjectIdentifier(tag), default: []].suffix(7)
                        list.append(transport)
                        s.transports[ObjectIdentifier(tag)] = Array(list)
                    }
                    return transport
                }
            }
            let now = ContinuousClock.now
            if now >= deadline { return [] }
            await waitForChange(after: generation, timeout: deadline - now)
        }
    }

    public func isPresent(_ transport: any TagTransport) async throws -> Bool {
        try state.withLock { s throws(NFCError) -> Bool in
            guard s.plugged, s.isOpen else { throw .readerUnavailable("virtual reader unplugged") }
            guard let virtual = transport as? VirtualTagTransport,
                s.field.contains(where: { $0 === virtual.tag })
            else { return false }
            let key = ObjectIdentifier(virtual.tag)
            if let left = s.flakyChecks[key], left > 0 {
                s.flakyChecks[key] = left - 1
                return false
            }
            return true
        }
    }

    public func abort() {
        wake { $0.aborts += 1 }
    }

    // MARK: - Waiting

    /// Applies `change`, bumps the generation and wakes every waiting poll.
    private func wake(_ change: (inout State) -> Void) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            change(&s)
            s.generation += 1
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when the generation moved past `generation`, after `timeout`, or on cancellation.
    private func waitForChange(after generation: Int, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForGeneration(after: generation) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForGeneration(after generation: Int) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.generation != generation || Task.isCancelled { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
