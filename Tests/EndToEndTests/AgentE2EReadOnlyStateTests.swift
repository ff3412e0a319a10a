import Foundation
import NFCBridge
import Testing
import TestSupport

/// Issue 20, "a state filesystem remounted read-only mid-run: 0 taps lost": the agent's state_dir is
/// a tmpfs of its own, remounted read-only while the agent runs (real libnfc, nfcbridge-sim,
/// mosquitto). The taps made meanwhile are all published (kept in memory, `durable: false`), one
/// `event/error` `spool_write_failed` says so, `health` shows it; once the filesystem is writable
/// again the agent says so and goes on. Needs root (mount); fails, never skips, without it.
@Suite(.serialized, .timeLimit(.minutes(4))) struct AgentE2EReadOnlyStateTests {
    static let uid = "04A1B2C3D4E5F6"
    static let scenario = """
        tags:
          - {id: first, type: ntag215, uid: \(uid)}
        """

    /// Runs `/usr/bin/<tool> arguments` to its end: nil when it worked, else what went wrong.
    static func run(_ tool: String, _ arguments: [String]) -> String? {
        do {
            let process = try ChildProcess("/usr/bin/" + tool, arguments)
            let status = process.waitForExit()
            if status == 0 { return nil }
            return "\(tool) \(arguments.joined(separator: " ")): exit \(status.map { String($0) } ?? "-"): \(process.errorOutput)"
        } catch {
            return "\(tool) could not be started: \(error)"
        }
    }

    /// Remounts `path` `mode` (`ro`/`rw`). mount refuses (busy) while a file on it is open for
    /// writing, which the agent's threads do for a moment at a time: tried again at once, boundedly.
    static func remount(_ path: String, _ mode: String) -> String? {
        var failure: String?
        for _ in 1...200 {
            failure = run("mount", ["-o", "remount,\(mode)", path])
            if failure == nil { return nil }
        }
        return failure
    }

    /// Unmounts `path` (lazily when it is still busy).
    static func unmount(_ path: String) {
        if run("umount", [path]) != nil { _ = run("umount", ["-l", path]) }
    }

    /// One tap: the tag in, its `scanned`, the tag out, its `removed`. Returns both events and the
    /// watcher's position after the `removed`.
    func tap(on simulator: SimulatorProcess, watcher: Watcher, after index: Int) async throws
        -> (scanned: [String: Any], removed: [String: Any], index: Int)
    {
        try simulator.place("first")
        let (at, scanned, _) = await watcher.next("event/scanned", after: index) { $0["uid"] as? String == Self.uid }
        try simulator.remove("first")
        let (end, removed, _) = await watcher.next("event/removed", after: at) { $0["uid"] as? String == Self.uid }
        return (scanned, removed, end)
    }

    /// `health.spool.write_failed`, asked for now (Home Assistant's birth message makes the agent
    /// publish all its state).
    func writeFailed(_ watcher: Watcher) async throws -> Bool? {
        let (_, health, _) = await watcher.next("health", after: try await watcher.homeAssistantBirth())
        return (health["spool"] as? [String: Any])?["write_failed"] as? Bool
    }

    @Test func aStateFilesystemRemountedReadOnlyMidRunLosesNoTap() async throws {
        try #require(
            geteuid() == 0,
            "this test mounts a tmpfs as the agent's state_dir and remounts it read-only: it needs root (CI runs as root)")
        // The tmpfs is unmounted once the run stopped the agent (and also when the run throws).
        var mountedState: String?
        defer {
            if let state = mountedState {
                Self.unmount(state)
                // The run removed the folder's files but not the mount point, nor so the folder.
                rmdir(state)
                rmdir((state as NSString).deletingLastPathComponent)
            }
        }
        try await withAgentRun(.init(scenario: Self.scenario, startsAgent: false)) { run in
            let state = run.folder.path + "/state"
            try #require(mkdir(state, 0o700) == 0, "cannot create \(state)")
            let mounted = Self.run("mount", ["-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", state])
            try #require(mounted == nil, "\(mounted ?? "")")
            mountedState = state
            let (simulator, watcher) = (run.simulator, run.watcher)
            let agent = try run.startAgent()
            _ = await watcher.status("online")
            // (`reader` goes out before `status` online: ok already then, or ok after it.)
            var index = await watcher.next("reader") { $0["state"] as? String == "ok" }.index

            var taps: [(scanned: [String: Any], removed: [String: Any])] = []
            for _ in 1...2 {
                let made = try await tap(on: simulator, watcher: watcher, after: index)
                taps.append((made.scanned, made.removed))
                index = made.index
            }
            let readOnly = Self.remount(state, "ro")
            try #require(readOnly == nil, "\(readOnly ?? "")")
            let remountedAt = index
            // The first event after the remount may go out before the spool's writer found the
            // filesystem read-only; from the spool_write_failed on, events say they are not on disk.
            for n in 1...3 {
                let made = try await tap(on: simulator, watcher: watcher, after: index)
                taps.append((made.scanned, made.removed))
                index = made.index
                if n > 1 { #expect(made.scanned["durable"] as? Bool == false, "not on disk, and says so: \(made.scanned)") }
                if n == 1 {
                    let error = await watcher.next("event/error", after: remountedAt) {
                        ($0["error"] as? [String: Any])?["code"] as? String == "spool_write_failed"
                    }
                    index = max(index, error.index)
                }
            }
            let failure = watcher.events.first { ($0["error"] as? [String: Any])?["code"] as? String == "spool_write_failed" } ?? [:]
            #expect(failure["op"] as? String == "spool", "\(failure)")
            #expect(try await writeFailed(watcher) == true, "health.spool.write_failed during the outage")

            let writable = Self.remount(state, "rw")
            try #require(writable == nil, "\(writable ?? "")")
            #expect(agent.waitForErrorOutput("the state directory takes writes again"), "\(agent.errorOutput.suffix(3000))")
            let after = try await tap(on: simulator, watcher: watcher, after: watcher.lastIndex)
            taps.append((after.scanned, after.removed))
            #expect(after.scanned["durable"] == nil, "on disk again: \(after.scanned)")
            #expect(try await writeFailed(watcher) == false, "health.spool.write_failed once the disk is back")

            // Every tap's `scanned` and `removed` once, one spool_write_failed, no gap in seq.
            #expect(taps.count == 6)
            var copies: [String: Int] = [:]
            for message in watcher.seen.received where message.topic.hasPrefix("\(e2eRoot)/event/") {
                copies[message.json["event_id"] as? String ?? "?", default: 0] += 1
            }
            for tap in taps {
                for event in [tap.scanned, tap.removed] {
                    #expect(copies[event["event_id"] as? String ?? "-"] == 1, "\(event)")
                }
            }
            let errors = watcher.events.filter { ($0["error"] as? [String: Any])?["code"] as? String == "spool_write_failed" }
            #expect(errors.count == 1, "once per outage: \(errors)")
            #expect(copies.values.allSatisfy { $0 == 1 }, "no event twice: \(copies.filter { $0.value > 1 })")
            #expect(sequenceNumbers(watcher.events) == Array(1...watcher.events.count), "no gap in seq")
            agent.expectCleanStop()
        }
    }
}
