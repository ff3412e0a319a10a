import Foundation
import LibNFCReader
import NFCCore
import Testing
import TestSupport

/// What the libnfc-backend and reader-CLI tests share: one `nfcbridge-sim` per test, the device on
/// it, and control requests that must succeed.
extension SimulatorProcess {
    /// The simulator's connstring.
    var connstring: String { "pn532_uart:\(linkPath)" }

    /// Sends a control request and fails the test (with the reply) unless it is `ok`.
    @discardableResult
    func expectOK(_ request: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let reply = try control(request)
        #expect(reply["ok"] as? Bool == true, "\(request) → \(reply)", sourceLocation: sourceLocation)
        return reply
    }

    /// Puts the tag `id` into the field.
    func place(_ id: String) throws { try expectOK(["cmd": "place", "id": id]) }

    /// Takes the tag `id` out of the field.
    func remove(_ id: String) throws { try expectOK(["cmd": "remove", "id": id]) }

    /// Waits until the chip has received `count` commands `code` in total (e.g. "4A", "40").
    func waitForCommand(_ code: String, count: Int = 1) throws {
        try expectOK(["cmd": "wait_command", "code": code, "count": count, "timeout_ms": 60000])
    }

    /// ``waitForCommand(_:count:)`` for async tests, on a thread of its own: a test that waits for
    /// the commands of its own polling task must leave Swift's cooperative threads to that task (on
    /// a two-core machine, two such waits at once would starve every test until they time out).
    func waitForCommand(_ code: String, count: Int = 1) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                continuation.resume(with: Result { try self.waitForCommand(code, count: count) as Void })
            }.start()
        }
    }

    /// How many commands `code` the chip has received so far.
    func commandCount(_ code: String) throws -> Int {
        let reply = try expectOK(["cmd": "list"])
        return (reply["commands"] as? [String: Any])?[code] as? Int ?? 0
    }

    /// The virtual tag's memory, as the simulator holds it.
    func memory(of id: String) throws -> [UInt8] {
        let reply = try expectOK(["cmd": "dump", "id": id])
        return [UInt8](hex: reply["memory"] as? String ?? "") ?? []
    }
}

/// Runs `body` with an open ``LibNFCDevice`` on a fresh simulator holding `scenario`; closes both.
func withSimulatedReader<T>(
    scenario: String, _ body: (SimulatorProcess, LibNFCDevice) async throws -> T
) async throws -> T {
    let simulator = try SimulatorProcess(scenario: scenario)
    defer { simulator.stop() }
    let device = LibNFCDevice(connstring: simulator.connstring)
    _ = try await device.open()
    do {
        let result = try await body(simulator, device)
        await device.close()
        return result
    } catch {
        await device.close()
        throw error
    }
}

/// Polls until exactly the tags with `uids` are found (at most 10 s).
func pollTags(_ device: LibNFCDevice, count: Int = 1) async throws -> [any TagTransport] {
    let tags = try await device.poll(modulations: [.iso14443a, .iso14443b, .felica212, .felica424], timeout: .seconds(10))
    #expect(tags.count == count, "found \(tags.map { $0.target.uid.hexString })")
    return tags
}

/// Runs the built `nfcbridge` to completion with libnfc's USB autoscan off.
func runNFCBridge(_ arguments: [String]) throws -> ProcessResult {
    try runProcess(Binaries.path("nfcbridge"), arguments, environment: ["LIBNFC_AUTO_SCAN": "false"])
}

/// Starts the built `nfcbridge` beside the test (for commands that keep running, like `scan`).
func startNFCBridge(_ arguments: [String]) throws -> ChildProcess {
    try ChildProcess(Binaries.path("nfcbridge"), arguments, environment: ["LIBNFC_AUTO_SCAN": "false"])
}

extension ChildProcess {
    /// Waits until standard output holds `count` lines containing `text`; false after `timeout`
    /// or when the process ended without them.
    func waitForLines(containing text: String, count: Int, timeout: Duration = .seconds(30)) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if lines(containing: text) >= count { return true }
            if terminationStatus != nil { return lines(containing: text) >= count }
            // Output arrives on reader threads; check again shortly.
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// How many lines of standard output contain `text`.
    func lines(containing text: String) -> Int {
        output.split(separator: "\n").filter { $0.contains(text) }.count
    }
}

/// One line of JSON as a dictionary (nil when it is not a JSON object).
func jsonObject(_ line: some StringProtocol) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}
