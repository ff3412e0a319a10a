import Foundation
import NFCCore
import Testing

@testable import NFCBridge

/// One writer per job journal: an agent and `nfcbridge encode` (or two of either) on the same state
/// directory must not both issue serials from it (docs/tagging-station.md).
@Suite(.timeLimit(.minutes(1))) struct JobJournalLockTests {
    @Test func aJournalOpenElsewhereIsBusyUntilItIsClosed() async throws {
        let directory = EncodeJobTests.stateDirectory()
        let spec = try EncodeJobTests.spec(count: 3)
        do {
            let first = try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: spec)
            do {
                for second in [spec, nil] {
                    let error = await #expect(throws: CommandError.self) {
                        _ = try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: second)
                    }
                    #expect(error?.code == .busy, "\(String(describing: error))")
                    #expect(error?.message.contains(first.journal.path) == true && error?.message.contains("nfcbridge encode") == true)
                }
                // The holder's journal is untouched by the refused opens.
                try await first.journal.append(.issue(index: 0, uid: EncodeJobTests.uid(1)))
            }
            // Closed at once, not whenever its last reference goes (which a test cannot wait for).
            await first.journal.close()
            await #expect(throws: CommandError.self) { try await first.journal.append(.issue(index: 1, uid: EncodeJobTests.uid(2))) }
        }
        // Closed: the next open takes it, and finds what the first one wrote.
        let reopened = try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: nil)
        #expect(reopened.interrupted == [0])
    }
}
