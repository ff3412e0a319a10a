import NFCCore
import PN532Sim
import Testing

@testable import NFCBridge

/// `feedback.on_job` and `feedback.on_trust` (issue 22, item 3): parsed like `feedback.on_scan`, and
/// which rule a job's tag result and a tap's trust verdict pick.
@Suite struct FeedbackRuleTests {
    func driver(_ yaml: String) throws -> FeedbackDriver {
        let configuration = try ConfigurationLoader.parse(yaml: yaml, source: "config.yaml", hostName: "test")
        return FeedbackDriver(
            settings: configuration.feedback, device: VirtualReaderDevice(), agentID: "test",
            logger: AgentLogger(level: .debug, journald: false, sink: { _ in }))
    }

    @Test func eachJobResultPicksItsRule() throws {
        let feedback = try driver("""
            id: test
            feedback:
              on_job: {ok: {light: green, beeps: 1}, failed: {light: red, beeps: 3}, refused: {beeps: 2}}
            """)
        #expect(feedback.signal(forJob: EncodeTagResult.Result.ok.feedback) == IndicatorSignal(light: .green, beeps: 1))
        #expect(feedback.signal(forJob: EncodeTagResult.Result.failed.feedback) == IndicatorSignal(light: .red, beeps: 3))
        #expect(feedback.signal(forJob: EncodeTagResult.Result.torn.feedback) == IndicatorSignal(light: .red, beeps: 3), "a torn tag is a failure at the reader")
        #expect(feedback.signal(forJob: EncodeTagResult.Result.refused.feedback) == IndicatorSignal(light: .off, beeps: 2))
        #expect(feedback.signal(forJob: EncodeTagResult.Result.duplicate.feedback) == IndicatorSignal(light: .off, beeps: 2), "nothing was written")
        #expect(try driver("id: test\n").signal(forJob: EncodeTagResult.Result.ok.feedback) == nil)
    }

    @Test func theTrustVerdictTakesThePlaceOfOnScan() throws {
        let feedback = try driver("""
            id: test
            feedback: {on_scan: {light: both}, on_trust: {untrusted: {light: red, beeps: 2}}}
            """)
        #expect(feedback.signal(forScanWith: .untrusted)?.0 == IndicatorSignal(light: .red, beeps: 2))
        #expect(feedback.signal(forScanWith: .untrusted)?.1 == .trust)
        // No rule for this verdict, or no verdict at all: on_scan.
        #expect(feedback.signal(forScanWith: .trusted)?.0 == IndicatorSignal(light: .both))
        #expect(feedback.signal(forScanWith: nil)?.1 == .scan)
        #expect(try driver("id: test\n").signal(forScanWith: .trusted) == nil)
    }

    @Test func aRuleIsCheckedLikeOnScan() {
        for (yaml, key) in [
            ("feedback: {on_job: {ok: {light: purple}}}", "feedback.on_job.ok.light"),
            ("feedback: {on_trust: {untrusted: {beeps: 6}}}", "feedback.on_trust.untrusted.beeps"),
            ("feedback: {on_trust: {maybe: {beeps: 1}}}", "feedback.on_trust.maybe"),
        ] {
            do {
                _ = try ConfigurationLoader.parse(yaml: "id: test\n" + yaml, source: "config.yaml", hostName: "test")
                Issue.record("\(yaml) was accepted")
            } catch {
                #expect("\(error)".contains(key), "\(yaml): \(error)")
            }
        }
    }
}
