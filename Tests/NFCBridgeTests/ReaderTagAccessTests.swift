import Foundation
import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

@Suite struct ReaderTagAccessTests {
    func transport(_ uid: [UInt8] = CommandHarness.tagUID) -> VirtualTagTransport {
        VirtualTagTransport(tag: VirtualType2Tag(model: .ntag215, uid: uid))
    }

    @Test func presentAndNextTagFollowTheLoop() async throws {
        let access = ReaderTagAccess()
        #expect(try await access.presentTags().isEmpty)
        let waiting = Task { try await access.nextTag().uid }
        access.tagArrived(transport())
        #expect(try await waiting.value == CommandHarness.tagUID)
        #expect(try await access.presentTags().first?.uid == CommandHarness.tagUID)
        // Present now: nextTag does not wait.
        #expect(try await access.nextTag().uid == CommandHarness.tagUID)
        access.tagRemoved(uid: CommandHarness.tagUID)
        #expect(try await access.presentTags().isEmpty)
        access.tagArrived(transport(CommandHarness.otherUID))
        access.readerLost()
        #expect(try await access.presentTags().isEmpty)
    }

    /// Every tag in the field, in arrival order: a command picks among them; the next tag for an
    /// encode job is the one that came first.
    @Test func presentTagsListsEveryTagInArrivalOrder() async throws {
        let access = ReaderTagAccess()
        access.tagArrived(transport(CommandHarness.otherUID))
        access.tagArrived(transport())
        #expect(try await access.presentTags().map(\.uid) == [CommandHarness.otherUID, CommandHarness.tagUID])
        #expect(try await access.nextTag().uid == CommandHarness.otherUID)
        access.tagRemoved(uid: CommandHarness.otherUID)
        #expect(try await access.presentTags().map(\.uid) == [CommandHarness.tagUID])
    }

    @Test func waitingForATagCanBeCanceled() async throws {
        let access = ReaderTagAccess()
        let waiting = Task { try await access.nextTag() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test func commandsActOnlyWhileTheLoopLendsTheReader() async throws {
        let access = ReaderTagAccess()
        access.tagArrived(transport())
        let tag = try #require(try await access.presentTags().first)
        let steps = Mutex<[String]>([])
        let command = Task {
            try await access.withExclusiveAccess(to: tag) { transport in
                steps.withLock { $0.append("command") }
                return transport.target.uid
            }
        }
        // The command waits for the loop's turn.
        while !access.hasBorrowers { await Task.yield() }
        #expect(steps.withLock { $0 }.isEmpty)
        await access.lendReader()
        steps.withLock { $0.append("loop resumed") }
        #expect(try await command.value == CommandHarness.tagUID)
        #expect(steps.withLock { $0 } == ["command", "loop resumed"])
        // Nobody waiting: lending returns at once.
        await access.lendReader()
    }

    /// The loop's long poll on an empty field ends when a command asks for the reader: at once when
    /// one waits already, else when it comes; once per poll, and not after the poll returned.
    @Test func aCommandEndsTheLoopsIdlePoll() async throws {
        let access = ReaderTagAccess()
        let aborts = Atomic<Int>(0)
        let abort: @Sendable () -> Void = { aborts.add(1, ordering: .relaxed) }
        access.beginIdlePoll(abort: abort)
        #expect(aborts.load(ordering: .relaxed) == 0)
        access.tagArrived(transport())
        let tag = try #require(try await access.presentTags().first)
        let first = Task { try await access.withExclusiveAccess(to: tag) { $0.target.uid } }
        while !access.hasBorrowers { await Task.yield() }
        #expect(aborts.load(ordering: .relaxed) == 1)
        let second = Task { try await access.withExclusiveAccess(to: tag) { $0.target.uid } }
        // Both wait before the reader is lent: a `second` that registered after `lendReader` below
        // would wait for a next turn that never comes (this test once held a CI run idle).
        while access.borrowerCount < 2 { await Task.yield() }
        access.endIdlePoll()
        // A second borrower during the same poll: the poll is ending already.
        #expect(aborts.load(ordering: .relaxed) == 1)
        // A poll that starts with a borrower waiting is ended at once.
        access.beginIdlePoll(abort: abort)
        #expect(aborts.load(ordering: .relaxed) == 2)
        access.endIdlePoll()
        await access.lendReader()
        #expect(try await first.value == CommandHarness.tagUID)
        #expect(try await second.value == CommandHarness.tagUID)
        // Between polls a borrower aborts nothing.
        let third = Task { try await access.withExclusiveAccess(to: tag) { $0.target.uid } }
        while !access.hasBorrowers { await Task.yield() }
        await access.lendReader()
        #expect(try await third.value == CommandHarness.tagUID)
        #expect(aborts.load(ordering: .relaxed) == 2)
    }

    @Test func aBorrowerCanGiveUpBeforeItsTurn() async throws {
        let access = ReaderTagAccess()
        access.tagArrived(transport())
        let tag = try #require(try await access.presentTags().first)
        let command = Task { try await access.withExclusiveAccess(to: tag) { _ in true } }
        while !access.hasBorrowers { await Task.yield() }
        command.cancel()
        await #expect(throws: CancellationError.self) { try await command.value }
        #expect(!access.hasBorrowers)
        await access.lendReader()
    }

    @Test func borrowersFailWhenTheReaderGoesAway() async throws {
        let access = ReaderTagAccess()
        access.tagArrived(transport())
        let tag = try #require(try await access.presentTags().first)
        let command = Task { try await access.withExclusiveAccess(to: tag) { _ in true } }
        while !access.hasBorrowers { await Task.yield() }
        access.readerLost()
        await #expect(throws: NFCError.readerUnavailable("the reader went away before the command could act")) {
            try await command.value
        }
    }
}
