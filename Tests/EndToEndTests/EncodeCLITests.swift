import Foundation
import NFCCore
import Testing
import TestSupport

/// `nfcbridge encode` end to end: the real libnfc (`pn532_uart`) against `nfcbridge-sim`, a roll of
/// serials over twelve NTAG213s — one pulled away mid-write, one shown twice, the process SIGKILLed
/// mid-tag and started again — and every serial issued once (docs/tagging-station.md).
@Suite(.serialized) struct EncodeCLITests {
    static let count = 12

    static func uid(_ n: Int) -> String { String(format: "04000000000A%02X", n) }

    /// Twelve factory-fresh NTAG213s, none in the field.
    static var scenario: String {
        "tags:\n" + (1...count).map { "  - {id: t\($0), type: ntag213, uid: \(uid($0))}\n" }.joined() + "timeline: []\n"
    }

    static func message(serial: Int) throws -> [UInt8] {
        try NDEFMessage(records: [.uri(String(format: "https://ex.com/t/%06d", serial))]).bytes
    }

    /// The result lines (JSON objects with `result`) printed so far.
    static func results(_ process: ChildProcess) -> [[String: Any]] {
        process.output.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0["result"] != nil }
    }

    /// Waits until `process` printed `count` result lines (or ended); the lines.
    static func waitForResults(_ process: ChildProcess, count: Int, timeout: Duration = .seconds(60)) -> [[String: Any]] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let lines = results(process)
            if lines.count >= count || !process.isRunning { return lines }
            usleep(2000)
        }
        return results(process)
    }

    /// Places tag `n`, waits for its result line, takes it away; the line.
    static func show(_ n: Int, on simulator: SimulatorProcess, to process: ChildProcess, arm: [String: Any]? = nil) throws -> [String: Any]? {
        let before = results(process).count
        #expect(try simulator.control(["cmd": "place", "id": "t\(n)"])["ok"] as? Bool == true)
        if let arm { #expect(try simulator.control(arm)["ok"] as? Bool == true) }
        let lines = waitForResults(process, count: before + 1)
        _ = try simulator.control(["cmd": "remove", "id": "t\(n)"])
        return lines.count > before ? lines[before] : nil
    }

    func encode(_ arguments: [String], simulator: SimulatorProcess, stateDirectory: String) throws -> ChildProcess {
        try ChildProcess(
            Binaries.path("nfcbridge"),
            ["encode", "--job", "roll", "--state-dir", stateDirectory, "--timeout", "60", "--device", "pn532_uart:\(simulator.linkPath)"]
                + arguments,
            environment: simulator.libnfcEnvironment)
    }

    @Test func aRollWithAPulledTagATagShownTwiceAndASIGKILLIssuesEverySerialOnce() throws {
        // 9600 baud: a tag's write takes long enough to SIGKILL the process in the middle of it.
        let simulator = try SimulatorProcess(scenario: Self.scenario, arguments: ["--baud", "9600"])
        defer { simulator.stop() }
        let state = simulator.directory + "/state"
        let journal = state + "/jobs/roll.journal"
        var first = try encode(
            ["--uri", "https://ex.com/t/{serial:06d}", "--serials", "1000:\(Self.count)"], simulator: simulator, stateDirectory: state)
        defer { first.terminate() }
        for n in 1...4 {
            let line = try Self.show(n, on: simulator, to: first)
            #expect(line?["result"] as? String == "ok" && line?["serial"] as? String == "\(999 + n)", "\(String(describing: line))")
        }
        // Tag 2 again: it already has its serial.
        let twice = try Self.show(2, on: simulator, to: first)
        #expect(twice?["result"] as? String == "duplicate" && twice?["serial"] as? String == "1001", "\(String(describing: twice))")
        // Tag 5 pulled away mid-write: selection, GET_VERSION, the blank check's READ and the write's four
        // FAST_READs come first, then six WRITEs.
        // (The fault is armed once the tag is in the field, so a process that got far before it was
        // armed may finish the write: then the tag shown again is a duplicate, as in EncodeMQTTTests.)
        let pulled = try Self.show(5, on: simulator, to: first, arm: ["cmd": "fault", "fault": "remove_after_commands", "id": "t5", "count": 10])
        #expect(pulled?["serial"] as? String == "1004", "\(String(describing: pulled))")
        let pulledInTime = pulled?["result"] as? String == "torn"
        if pulledInTime { #expect(pulled?["code"] as? String == "tag_removed", "\(String(describing: pulled))") }

        // Tag 6: SIGKILL once its serial is journalled as issued, before its write is done.
        #expect(try simulator.control(["cmd": "place", "id": "t6"])["ok"] as? Bool == true)
        let issued = "\"uid\":\"\(Self.uid(6))\""
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !((try? String(contentsOfFile: journal, encoding: .utf8))?.contains(issued) ?? false) {
            usleep(500)
        }
        first.send(SIGKILL)
        first.waitForExit()
        let killedJournal = try String(contentsOfFile: journal, encoding: .utf8)
        #expect(killedJournal.contains(issued))
        let lastLine = try #require(killedJournal.split(separator: "\n").last)
        let tornByKill = !lastLine.contains("done")

        // Started again with the job id alone: tag 6 (still in the field) is reported, then finished.
        first = try encode([], simulator: simulator, stateDirectory: state)
        let resumed = Self.waitForResults(first, count: tornByKill ? 2 : 1)
        if tornByKill {
            #expect(resumed.first?["result"] as? String == "torn" && resumed.first?["code"] as? String == "interrupted")
            #expect(resumed.first?["uid"] as? String == Self.uid(6))
        }
        let six = resumed.last
        #expect(six?["uid"] as? String == Self.uid(6) && six?["serial"] as? String == "1005", "\(resumed)")
        #expect(six?["result"] as? String == (tornByKill ? "ok" : "duplicate"))
        _ = try simulator.control(["cmd": "remove", "id": "t6"])

        let seven = try Self.show(7, on: simulator, to: first)
        #expect(seven?["serial"] as? String == "1006")
        // The torn tag comes back and gets its own serial.
        let back = try Self.show(5, on: simulator, to: first)
        #expect(
            back?["serial"] as? String == "1004" && back?["result"] as? String == (pulledInTime ? "ok" : "duplicate")
                && back?["resumed"] as? Bool == pulledInTime, "\(String(describing: back))")
        for n in 8...Self.count {
            #expect(try Self.show(n, on: simulator, to: first)?["result"] as? String == "ok")
        }
        #expect(first.waitForExit() == 0, "\(first.errorOutput)")
        let summary = first.output.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }.last
        #expect(summary?["state"] as? String == "finished" && summary?["done"] as? Int == Self.count && summary?["remaining"] as? Int == 0)

        // Every tag holds exactly its serial; every serial is on exactly one tag.
        var serials: [Int] = []
        for n in 1...Self.count {
            let memory = try LibNFCTools.memory(of: "t\(n)", on: simulator)
            let message = NFCForumTLV.extractMessage(fromMemory: memory)
            let serial = try (1000..<(1000 + Self.count)).first { try Self.message(serial: $0) == message }
            #expect(serial != nil, "t\(n) holds \(message?.hexString ?? "nothing")")
            if let serial { serials.append(serial) }
        }
        #expect(serials.sorted() == Array(1000..<(1000 + Self.count)))
    }
}

extension EncodeCLITests {
    /// One writer per journal: a second `nfcbridge encode` of the job another one runs is refused
    /// (`busy`, exit 1) before it opens the reader, and the first one goes on.
    @Test func aSecondEncodeOfARunningJobIsBusy() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let state = simulator.directory + "/state"
        let first = try encode(["--uri", "https://ex.com/t/{serial:06d}", "--serials", "1000:3"], simulator: simulator, stateDirectory: state)
        defer { first.terminate() }
        // The first one has written its job line: it holds the journal.
        let line = try Self.show(1, on: simulator, to: first)
        #expect(line?["result"] as? String == "ok", "\(String(describing: line))")
        let second = try ChildProcess(
            Binaries.path("nfcbridge"),
            ["encode", "--job", "roll", "--state-dir", state, "--timeout", "5", "--device", "pn532_uart:\(simulator.linkPath)"],
            environment: simulator.libnfcEnvironment)
        defer { second.terminate() }
        #expect(second.waitForExit() == 1, "\(second.errorOutput)")
        #expect(second.errorOutput.contains("busy") && second.errorOutput.contains("roll.journal"), "\(second.errorOutput)")
        #expect(first.isRunning)
    }
}
