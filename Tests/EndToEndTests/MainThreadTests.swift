import Foundation
import Testing
import TestSupport

/// Issue 25 (RSS), two ways the agent's process is laid out.
///
/// One malloc arena: with glibc's default each thread got its own (13 in a soak) and the heaps grew
/// for good; `MallocArenas.useOne()` runs before any thread starts.
///
/// The main thread: `nfcbridge`'s main thread waits on a condition (`MainThread.park`) while the
/// command runs in a task. With a top-level `await` it entered dispatch_main(), whose pthread_exit
/// unwinds the thread (libgcc reads the executable's unwind tables: 0.9 MB that stayed in the agent's
/// RSS) and then leaves it in libdispatch's sigsuspend. The kernel names where a thread sleeps in
/// /proc/PID/task/TID/wchan.
@Suite struct MainThreadTests {
    /// An agent with no reader and no broker (port 1), once it said it is starting; its folder holds
    /// its configuration and state, so it lives as long as the agent.
    static func startedAgent() throws -> (TemporaryFolder, ChildProcess) {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml", "id: e2e\nmqtt: {url: \"mqtt://127.0.0.1:1\"}\nstate_dir: \(folder.path)/state\nlog: {level: info}\n")
        let agent = try ChildProcess(
            Binaries.path("nfcbridge"), ["run", "--config", config, "--device", "pn532_uart:\(folder.path)/tty"],
            environment: ["LIBNFC_AUTO_SCAN": "false"])
        #expect(agent.waitForErrorOutput("starting as 'e2e'"), "\(agent.errorOutput)")
        return (folder, agent)
    }

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
        let (folder, agent) = try Self.startedAgent()
        defer { agent.terminate(); withExtendedLifetime(folder) {} }
        let channel = await Self.mainThreadWaitChannel(of: agent.pid)
        #expect(channel.contains("futex"), "the main thread sleeps in '\(channel)', not on its condition")
        #expect(!channel.contains("sigsuspend"), "the main thread went through dispatch_main()'s pthread_exit")
        agent.expectCleanStop()
    }

    /// glibc's arenas besides the main one in process `pid`: anonymous read-write mappings aligned to
    /// 64 MB (HEAP_MAX_SIZE) followed by their PROT_NONE reserve up to 64 MB (malloc/arena.c).
    static func mallocArenas(of pid: pid_t) throws -> Int {
        let size: UInt64 = 64 << 20
        let rows = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8).split(separator: "\n").map { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            return (start: range.first ?? 0, end: range.last ?? 0, perms: String(fields[1]), anonymous: fields.count < 6)
        }
        return zip(rows, rows.dropFirst()).count { first, next in
            first.anonymous && first.perms.hasPrefix("rw") && first.start % size == 0
                && next.start == first.end && next.perms.hasPrefix("---") && next.end - first.start == size
        }
    }

    @Test func theAgentsThreadsShareOneMallocArena() async throws {
        let (folder, agent) = try Self.startedAgent()
        defer { agent.terminate(); withExtendedLifetime(folder) {} }
        // The MQTT thread runs (it and the others have allocated by the time it is named).
        #expect(await CLIFrontEndTests.waitForThread("mqtt-network", of: agent.pid))
        #expect(try Self.mallocArenas(of: agent.pid) == 0, "threads have malloc arenas of their own")
        agent.expectCleanStop()
    }
}
