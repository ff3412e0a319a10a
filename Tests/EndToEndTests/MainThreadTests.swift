import Foundation
import Testing
import TestSupport

/// Issue 25 (RSS): `nfcbridge`'s main thread waits on a condition (`MainThread.park`) while the
/// command runs in a task. With a top-level `await` it entered dispatch_main(), whose pthread_exit
/// unwinds the thread (libgcc reads the executable's unwind tables: 0.9 MB that stayed in the agent's
/// RSS) and then leaves it in libdispatch's sigsuspend. The kernel names where a thread sleeps in
/// /proc/PID/task/TID/wchan.
@Suite struct MainThreadTests {
    /// Where the main thread of `pid` sleeps once it sleeps in a futex (polled, bounded by `timeout`);
    /// the last value read otherwise.
    static func mainThreadWaitChannel(of pid: pid_t, timeout: Duration = .seconds(10)) async -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var channel = ""
        while ContinuousClock.now < deadline {
            channel = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/wchan", encoding: .utf8)) ?? ""
            if channel.contains("futex") { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return channel
    }

    @Test func theAgentsMainThreadIsParkedNotUnwound() async throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml", "id: e2e\nmqtt: {url: \"mqtt://127.0.0.1:1\"}\nstate_dir: \(folder.path)/state\nlog: {level: info}\n")
        let agent = try ChildProcess(
            Binaries.path("nfcbridge"), ["run", "--config", config, "--device", "pn532_uart:\(folder.path)/tty"],
            environment: ["LIBNFC_AUTO_SCAN": "false"])
        defer { agent.terminate() }
        #expect(agent.waitForErrorOutput("starting as 'e2e'"), "\(agent.errorOutput)")
        let channel = await Self.mainThreadWaitChannel(of: agent.pid)
        #expect(channel.contains("futex"), "the main thread sleeps in '\(channel)', not on its condition")
        #expect(!channel.contains("sigsuspend"), "the main thread went through dispatch_main()'s pthread_exit")
        agent.expectCleanStop()
    }
}
