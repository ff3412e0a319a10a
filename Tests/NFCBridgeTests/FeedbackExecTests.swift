import Foundation
import NFCCore
import Testing
@testable import NFCBridge

/// `feedback.exec` (issue 22, item 3): the program gets the feedback in its environment, is killed when
/// it outlives its time, and a second run while one is going is skipped.
@Suite(.timeLimit(.minutes(1))) struct FeedbackExecTests {
    @Test func theProgramGetsTheFeedbackInItsEnvironment() async {
        let exec = FeedbackExec(
            argv: ["/bin/sh", "-c", #"test "$NFCBRIDGE_FEEDBACK $NFCBRIDGE_LIGHT $NFCBRIDGE_BEEPS $NFCBRIDGE_UID $NFCBRIDGE_AGENT_ID" = "scan red 2 04A1B2 door""#],
            timeoutMilliseconds: 5000)
        let environment = FeedbackExec.environment(
            for: .scan, signal: IndicatorSignal(light: .red, beeps: 2), uid: [0x04, 0xA1, 0xB2], agentID: "door")
        #expect(await exec.run(environment: environment) == .exited(0))
        let wrong = FeedbackExec.environment(for: .request, signal: IndicatorSignal(light: .green), uid: nil, agentID: "door")
        #expect(await exec.run(environment: wrong) == .exited(1))
    }

    @Test func aProgramThatOutlivesItsTimeIsKilled() async {
        let exec = FeedbackExec(argv: ["/bin/sleep", "30"], timeoutMilliseconds: 50)
        #expect(await exec.run(environment: []) == .killed)
    }

    @Test func aRunWhileOneIsGoingIsSkipped() async throws {
        // The first run lasts until the test creates `release` (its timeout is only a backstop): a
        // run that ended by itself (a short timeout) could end before the second starts, on a
        // loaded machine, and the wait for it to be going would never end.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedback-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let release = directory.appendingPathComponent("release").path
        let exec = FeedbackExec(
            argv: ["/bin/sh", "-c", #"while [ ! -e "$1" ]; do /bin/sleep 0.01; done"#, "sh", release], timeoutMilliseconds: 30_000)
        async let first = exec.run(environment: [])
        // The first run holds the exec until it is released; wait until it does before the second.
        while !exec.isRunning { await Task.yield() }
        #expect(await exec.run(environment: []) == .skipped)
        try Data().write(to: URL(fileURLWithPath: release))
        #expect(await first == .exited(0))
        // Once it ended, the next run goes ahead.
        #expect(await exec.run(environment: []) == .exited(0))
    }

    @Test func aMissingProgramIsAFailureNotACrash() async {
        let exec = FeedbackExec(argv: ["/nonexistent/feedback"], timeoutMilliseconds: 100)
        guard case .failed = await exec.run(environment: []) else {
            Issue.record("a missing program must be .failed")
            return
        }
    }

    @Test func beepsAreBounded() {
        #expect(IndicatorSignal(light: .red, beeps: 99).beeps == IndicatorSignal.maximumBeeps)
        #expect(IndicatorSignal(light: .red, beeps: -1).beeps == 0)
    }
}

extension FeedbackExecTests {
    /// A program ended by a signal failed: it is not an exit status 0 — whether it was killed
    /// outright, or sent a SIGTERM the agent's own threads may block.
    @Test func aProgramEndedByASignalFailsAndNamesIt() async {
        for signal in [SIGKILL, SIGTERM] {
            let exec = FeedbackExec(argv: ["/bin/sh", "-c", "kill -\(signal) $$"], timeoutMilliseconds: 30_000)
            let outcome = await exec.run(environment: [])
            #expect(outcome == .signaled(signal), "\(outcome)")
        }
        #expect(FeedbackExec.name(ofSignal: SIGTERM) == "SIGTERM")
    }
}
