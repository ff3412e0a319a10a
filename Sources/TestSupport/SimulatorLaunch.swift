import Foundation

/// Starting `nfcbridge-sim` for a test, shared by ``SimulatorProcess`` (PN532 on a pty) and
/// ``VPCDCardProcess`` (the vpcd card): a fresh temporary folder for its socket and scenario, the
/// process, and the wait for its readiness line; on failure nothing is left behind.
enum SimulatorLaunch {
    /// Makes the folder (`prefix-XXXXXX` in the temporary directory), writes `scenario` there, starts
    /// `nfcbridge-sim` with `arguments(folder)` + `--scenario` + `extra`, and waits for `ready` on stdout.
    static func start(
        prefix: String, scenario: String?, extra: [String], ready: String, readyTimeout: Duration,
        arguments: (String) -> [String]
    ) throws -> (directory: String, process: ChildProcess) {
        var template = Array((FileManager.default.temporaryDirectory.path + "/\(prefix)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw SimulatorProcess.Failure(description: "mkdtemp failed") }
        let directory = String(cString: made)
        var all = arguments(directory)
        let process: ChildProcess
        do {
            if let scenario {
                let path = directory + "/scenario.yaml"
                try scenario.write(toFile: path, atomically: true, encoding: .utf8)
                all += ["--scenario", path]
            }
            process = try ChildProcess(Binaries.path("nfcbridge-sim"), all + extra)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        guard process.waitForOutput(ready, timeout: readyTimeout) else {
            process.terminate()
            try? FileManager.default.removeItem(atPath: directory)
            throw SimulatorProcess.Failure(description: "nfcbridge-sim \(all.first ?? "") did not become ready: \(process.errorOutput)")
        }
        return (directory, process)
    }
}
