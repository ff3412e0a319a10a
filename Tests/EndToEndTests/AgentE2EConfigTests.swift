import Foundation
import Testing
import TestSupport

/// `nfcbridge run` with a bad configuration: exit 2 with ONE message naming the file, the line and
/// the key — before anything connects to the broker or the reader, and before the state directory
/// is made.
@Suite(.serialized, .timeLimit(.minutes(2))) struct AgentE2EConfigTests {
    struct BadFile: Sendable, CustomTestStringConvertible {
        var name: String
        /// The file's text; `BROKER`, `DEVICE` and `STATE` are replaced by the test's.
        var text: String
        var code = "invalid_config"
        /// What the message says after `<file>:`.
        var message: String
        var testDescription: String { name }
    }

    static let files: [BadFile] = [
        BadFile(
            name: "unknown key",
            text: "id: e2e\nreader:\n  device: DEVICE\nmqtt:\n  url: BROKER\n  protocl: 5\nstate_dir: STATE\n",
            message: "6: mqtt.protocl: unknown key (did you mean 'mqtt.protocol'?)"),
        BadFile(
            name: "unknown section",
            text: "id: e2e\nreader:\n  device: DEVICE\nmqtt:\n  url: BROKER\nstate_dir: STATE\npresense:\n  mode: repeat\n",
            message: "7: presense: unknown key (did you mean 'presence'?)"),
        BadFile(
            name: "wrong type",
            text: "id: e2e\nreader:\n  device: DEVICE\n  polling:\n    interval_ms: fast\nmqtt:\n  url: BROKER\nstate_dir: STATE\n",
            message: "5: reader.polling.interval_ms: "),
        BadFile(
            name: "missing file",
            text: "id: e2e\nreader:\n  device: DEVICE\nmqtt:\n  url: BROKER\n  password_file: STATE/../no-such-password\nstate_dir: STATE\n",
            message: "6: mqtt.password_file: "),
    ]

    @Test(arguments: files) func aBadFileExitsTwoNamingKeyAndLineAndConnectsNothing(_ bad: BadFile) async throws {
        // No watcher, no agent: only the run's broker, simulator and folder.
        try await withAgentRun(.init(watcherFilters: nil, startsAgent: false)) { run in
            let (broker, simulator, folder) = (run.broker!, run.simulator, run.folder!)
            let state = folder.path + "/state"
            let text = bad.text.replacingOccurrences(of: "BROKER", with: broker.url)
                .replacingOccurrences(of: "DEVICE", with: simulator.connstring).replacingOccurrences(of: "STATE", with: state)
            let config = try folder.write("config.yaml", text)

            let result = try runProcess(
                Binaries.path("nfcbridge"), ["run", "--config", config], environment: ["LIBNFC_AUTO_SCAN": "false"])
            #expect(result.status == 2)
            #expect(result.out.isEmpty)
            let lines = result.err.split(separator: "\n")
            #expect(lines.count == 1, "one message: \(result.err)")
            let error = (try? JSONSerialization.jsonObject(with: Data(result.err.utf8))) as? [String: [String: String]]
            #expect(error?["error"]?["code"] == bad.code, "\(result.err)")
            #expect(error?["error"]?["message"]?.hasPrefix("\(config):\(bad.message)") == true, "\(result.err)")

            // Nothing was touched: no MQTT client, no reader session, no state directory.
            #expect(!broker.log.contains("nfcbridge-e2e"), "\(broker.log)")
            let reader = try simulator.expectOK(["cmd": "list"])
            #expect(reader["sessions"] as? Int == 0, "\(reader)")
            #expect(!FileManager.default.fileExists(atPath: state))
        }
    }
}
