import Foundation
import Glibc
import NFCCore
import PN532Sim
import Synchronization
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

    /// A job's tag whose feedback program cannot run (the previous tag's still runs) is logged
    /// (review stop 40: it was dropped without a word, and the operator heard the previous tag's).
    @Test func aJobFeedbackSkippedWhileTheProgramRunsIsLogged() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedback-rule-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (started, release) = (directory.appendingPathComponent("started").path, directory.appendingPathComponent("release").path)
        let script = directory.appendingPathComponent("light.sh").path
        try Data("#!/bin/sh\n: > \(started)\nwhile [ ! -e \(release) ]; do /bin/sleep 0.01; done\n".utf8)
            .write(to: URL(fileURLWithPath: script))
        #expect(chmod(script, 0o755) == 0)
        let lines = Mutex<[String]>([])
        let yaml = "id: test\nfeedback: {on_job: {ok: {light: green, beeps: 1}, refused: {light: red, beeps: 2}}, "
            + "exec: [\(script)], exec_timeout_ms: 30000}\n"
        let configuration = try ConfigurationLoader.parse(yaml: yaml, source: "config.yaml", hostName: "test")
        let feedback = FeedbackDriver(
            settings: configuration.feedback, device: VirtualReaderDevice(), agentID: "test",
            logger: AgentLogger(level: .debug, journald: false, sink: { line in lines.withLock { $0.append(line) } }))
        async let first: Void = feedback.jobTag(EncodeTagResult.Result.ok.feedback, uid: [0x04])
        while !FileManager.default.fileExists(atPath: started) { await Task.yield() }
        await feedback.jobTag(EncodeTagResult.Result.refused.feedback, uid: [0x05])
        #expect(lines.withLock { $0 }.contains { $0.contains("this tag's (light red, 2 beep(s)) was not run") }, "\(lines.withLock { $0 })")
        try Data().write(to: URL(fileURLWithPath: release))
        await first
        #expect(!lines.withLock { $0 }.contains { $0.contains("light green") })
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
