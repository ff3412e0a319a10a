import NFCCore
import Synchronization

/// ``TagAccess`` for the agent, whose reader belongs to the ``ReaderLoop``: the loop reports the
/// tags that arrive and leave, and once per turn lends the reader to the commands that asked for
/// it (``lendReader()``), waiting until they are done — so no presence check or poll runs in the
/// middle of a write.
///
/// Loop side: ``tagArrived(_:cardInfo:)``, ``tagReselected(_:)``, ``tagRemoved(uid:)``, ``readerLost()``,
/// ``lendReader()``.
/// Command side: the ``TagAccess`` methods.
package final class ReaderTagAccess: TagAccess {
    private struct State {
        var borrowers: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        /// The loop, waiting while a command holds the reader.
        var lender: CheckedContinuation<Void, Never>?
        var nextID: UInt64 = 0
        /// Ends the loop's poll on an empty field (``beginIdlePoll(abort:)``), nil when none runs.
        var idleAbort: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    /// Tags in the field, in arrival order (commands wait on it for the next tag).
    private let present = Watched<[PresentTag]>([])

    /// Creates the access point (no tag present).
    package init() {}

    // MARK: - Reader loop side

    /// A tag arrived (after its scan): it is the tag present now, and waiting commands get it, with
    /// what the scan's identification found (`cardInfo`, nil when it failed).
    package func tagArrived(_ transport: any TagTransport, cardInfo: CardInfo? = nil) {
        let tag = PresentTag(transport: transport, cardInfo: cardInfo)
        present.update { present in
            present.removeAll { $0.uid == tag.uid }
            present.append(tag)
        }
    }

    /// A present tag was selected again (a new poll): commands use the new transport, and the
    /// identification of its arrival (the same UID). Tags not present yet are left to
    /// ``tagArrived(_:cardInfo:)``, which comes after their scan.
    package func tagReselected(_ transport: any TagTransport) {
        let uid = transport.target.uid
        present.update { present in
            guard let index = present.firstIndex(where: { $0.uid == uid }) else { return }
            present[index] = PresentTag(transport: transport, cardInfo: present[index].cardInfo)
        }
    }

    /// A tag left the field.
    package func tagRemoved(uid: [UInt8]) {
        present.update { $0.removeAll { $0.uid == uid } }
    }

    /// The reader went away: no tag is present any more, and the commands waiting to borrow the
    /// reader fail with ``NFCError/readerUnavailable(_:)`` instead of waiting for it to come back.
    package func readerLost() {
        present.update { $0 = [] }
        let borrowers = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            defer { s.borrowers = [] }
            return s.borrowers.map(\.continuation)
        }
        for borrower in borrowers {
            borrower.resume(throwing: NFCError.readerUnavailable("the reader went away before the command could act"))
        }
    }

    /// Lends the reader to each command waiting for it, one after the other, and returns when the
    /// last one is done. The loop calls it once per turn; it returns at once when nobody waits.
    package func lendReader() async {
        while let borrower = state.withLock({ s in s.borrowers.isEmpty ? nil : s.borrowers.removeFirst() }) {
            await withCheckedContinuation { (returned: CheckedContinuation<Void, Never>) in
                // Set before the borrower runs: it hands the reader back through `lender`.
                state.withLock { $0.lender = returned }
                borrower.continuation.resume()
            }
        }
    }

    /// The loop starts a poll on an empty field, which may last a second or more: a command that
    /// asks for the reader meanwhile ends it with `abort` (at once when one waits already).
    package func beginIdlePoll(abort: @escaping @Sendable () -> Void) {
        let waiting = state.withLock { s -> Bool in
            s.idleAbort = s.borrowers.isEmpty ? abort : nil
            return !s.borrowers.isEmpty
        }
        if waiting { abort() }
    }

    /// The poll that ``beginIdlePoll(abort:)`` announced has returned.
    package func endIdlePoll() {
        state.withLock { $0.idleAbort = nil }
    }

    /// True while commands wait for the reader (tests).
    package var hasBorrowers: Bool { state.withLock { !$0.borrowers.isEmpty } }

    /// How many commands wait for the reader (tests: a test that starts two must see both waiting
    /// before it lends the reader, or the late one waits for a turn that never comes).
    package var borrowerCount: Int { state.withLock { $0.borrowers.count } }

    // MARK: - TagAccess

    package func presentTags() async throws -> [PresentTag] {
        present.value
    }

    package func nextTag() async throws -> PresentTag {
        let tags = await present.wait { !$0.isEmpty }
        try Task.checkCancellation()
        guard let tag = tags.first else { throw CancellationError() }
        return tag
    }

    package func waitForRemoval(of tag: PresentTag) async throws {
        let uid = tag.uid
        await present.wait { !$0.contains { $0.uid == uid } }
        try Task.checkCancellation()
    }

    package func withExclusiveAccess<Result: Sendable>(
        to tag: PresentTag, _ body: @Sendable (any TagTransport) async throws -> Result
    ) async throws -> Result {
        try await borrowReader()
        defer { giveBack() }
        return try await body(tag.transport)
    }

    /// Waits until the loop lends the reader.
    private func borrowReader() async throws {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (canceled, idleAbort) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
                    if Task.isCancelled { return (true, nil) }
                    s.borrowers.append((id, continuation))
                    defer { s.idleAbort = nil }
                    return (false, s.idleAbort)
                }
                if canceled { continuation.resume(throwing: CancellationError()) }
                // The loop is waiting for a tag to arrive: it lends the reader once that poll ends.
                idleAbort?()
            }
        } onCancel: {
            let waiting = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                guard let index = s.borrowers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.borrowers.remove(at: index).continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    private func giveBack() {
        state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.lender = nil }
            return s.lender
        }?.resume()
    }
}
