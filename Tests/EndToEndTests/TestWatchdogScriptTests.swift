import Foundation
import Testing
import TestSupport

/// scripts/test-watchdog.sh, which `make test` runs beside the test run (scripts/test-swift.sh): a run
/// whose whole process tree uses no CPU and prints nothing for IDLE seconds is hung and stopped with
/// its evidence (the tests that never ended, the tree, gdb backtraces); one whose tree works, even in
/// a grandchild only, never is. Here with fake runs and a 3 s window sampled each second.
@Suite(.serialized, .timeLimit(.minutes(2))) struct TestWatchdogScriptTests {
    static let script = Binaries.packageRoot.appendingPathComponent("scripts/test-watchdog.sh").path

    /// A log as Swift Testing writes it: `hangs()` started and never ended, `done()` ended.
    static func log() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nfcbridge-watchdog-\(UUID().uuidString).log").path
        try "◇ Test hangs() started.\n◇ Test done() started.\n✔ Test done() passed after 0.100 seconds.\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func watch(_ run: ChildProcess, bound: Int, log: String, backtrace: String = "*/.build/*") throws -> ChildProcess {
        try ChildProcess(
            "/bin/bash", [script, String(run.pid), String(bound), "3", log],
            environment: ["TEST_WATCHDOG_SAMPLE": "1", "TEST_WATCHDOG_GDB": backtrace])
    }

    @Test func anIdleTreeIsStoppedWithTheTestsThatNeverEndedTheTreeAndBacktraces() throws {
        let log = try Self.log()
        defer { try? FileManager.default.removeItem(atPath: log) }
        // The run waits for a child that waits: nothing in the tree uses CPU.
        let run = try ChildProcess("/bin/bash", ["-c", "sleep 600 & wait"])
        let watchdog = try Self.watch(run, bound: 100, log: log, backtrace: "*/sleep")
        #expect(watchdog.waitForExit(timeout: .seconds(90)) == 125, "\(watchdog.output)\(watchdog.errorOutput)")
        let report = watchdog.output
        #expect(report.contains("and printed nothing in "), "\(report)")
        #expect(report.contains(" s: hung, stopped; tests started but never ended"), "\(report)")
        let unfinished = report.components(separatedBy: "tests started but never ended: ===\n").last ?? ""
        #expect(unfinished.hasPrefix("  hangs()\n"), "\(report)")
        #expect(!report.contains("  done()"), "\(report)")
        let tree = report.split(separator: "\n").filter { $0.hasSuffix("sleep 600 & wait ") || $0.hasSuffix(" sleep 600 ") }
        #expect(tree.count == 2 && tree[0].hasPrefix("\(run.pid) ") && tree[1].hasPrefix("  "), "the run and its child, indented: \(report)")
        // gdb attached to the sleeping grandchild (make deps installs gdb).
        #expect(report.contains("=== gdb: every thread of"), "\(report)")
        #expect(report.contains("Thread 1 "), "\(report)")
        #expect(report.contains("nanosleep"), "\(report)")
        // The run was killed, not left behind.
        #expect(run.waitForExit(timeout: .seconds(10)) == SIGKILL)
    }

    @Test func aTreeWhoseGrandchildWorksIsOnlyStoppedByTheBound() throws {
        let log = try Self.log()
        defer { try? FileManager.default.removeItem(atPath: log) }
        // The run itself waits; its grandchild counts to 20,000 every half second (a few % of a core).
        let busy = "while :; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 0.5; done"
        let run = try ChildProcess("/bin/bash", ["-c", "bash -c '\(busy)' & wait"])
        let watchdog = try Self.watch(run, bound: 9, log: log)
        #expect(watchdog.waitForExit(timeout: .seconds(90)) == 124, "\(watchdog.output)\(watchdog.errorOutput)")
        #expect(watchdog.output.contains("still going after 9 s and was stopped"), "\(watchdog.output)")
        #expect(!watchdog.output.contains("hung"), "\(watchdog.output)")
        #expect(run.waitForExit(timeout: .seconds(10)) == SIGKILL)
    }

    @Test func aRunThatEndsByItselfIsLeftAlone() throws {
        let log = try Self.log()
        defer { try? FileManager.default.removeItem(atPath: log) }
        let run = try ChildProcess("/bin/bash", ["-c", "exec sleep 1"])
        let watchdog = try Self.watch(run, bound: 100, log: log)
        #expect(watchdog.waitForExit(timeout: .seconds(90)) == 0, "\(watchdog.output)\(watchdog.errorOutput)")
        #expect(watchdog.output.isEmpty, "\(watchdog.output)")
        #expect(run.waitForExit(timeout: .seconds(10)) == 0)
    }
}
