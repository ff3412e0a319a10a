import Foundation
import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// What an encode job reports and keeps when a tag's first attempt fails, a tag is torn mid-lock,
/// or a job is cancelled or paused (docs/tagging-station.md); on the benches of ``EncodeJobTests``.
@Suite(.timeLimit(.minutes(1))) struct EncodeJobOutcomeTests {
    typealias Bench = EncodeJobTests.Bench

    @Test func aTagThatSucceedsOnItsRetryReportsOkWithoutTheFirstAttemptsError() async throws {
        let bench = try await Bench()
        let job = bench.run(try EncodeJobTests.spec(count: 1))
        var results = bench.results.makeAsyncIterator()
        let flaky = VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid(1))
        flaky.corruptNextWrite()
        let retried = await bench.show(flaky, &results)
        #expect(retried?.result == .ok && retried?.attempts == 2)
        #expect(retried?.code == nil && retried?.message == nil, "\(String(describing: retried))")
        #expect(try await job.value.done == 1)
    }
}
