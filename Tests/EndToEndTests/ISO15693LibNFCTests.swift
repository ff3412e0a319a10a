import Foundation
import LibNFCReader
import NFCCore
import Testing
import TestSupport

/// libnfc has no ISO 15693 modulation: the libnfc backend says so with `unsupported`, and `nfcbridge
/// run` refuses a configuration that polls `iso15693` before anything connects.
@Suite(.timeLimit(.minutes(2))) struct ISO15693LibNFCTests {
    @Test func theLibNFCBackendRefusesToPollISO15693() async throws {
        #expect(LibNFCDevice.unsupportedPolling(of: [.iso14443a, .iso14443b, .felica212, .felica424]) == nil)
        let problem = try #require(LibNFCDevice.unsupportedPolling(of: [.iso14443a, .iso15693]))
        #expect(problem.code == "unsupported")
        #expect(problem.message.contains("cannot poll iso15693"))
        // Refused before the (never opened) device is touched.
        let device = LibNFCDevice(connstring: "pn532_uart:/nonexistent/tty")
        await #expect(throws: problem) { try await device.poll(modulations: [.iso14443a, .iso15693], timeout: .zero) }
    }

    @Test func runRefusesAConfigurationThatPollsISO15693() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "iso15693.yaml",
            "id: e2e\nstate_dir: \(folder.path)/state\nmqtt:\n  url: mqtt://127.0.0.1:1\n"
                + "reader:\n  polling:\n    modulations: [iso14443a, iso15693]\n")
        let result = try runProcess(Binaries.path("nfcbridge"), ["run", "--config", config])
        #expect(result.status == 2)
        let error = (try? JSONSerialization.jsonObject(with: Data(result.err.utf8))) as? [String: [String: String]]
        #expect(error?["error"]?["code"] == "unsupported", "\(result.err)")
        #expect(error?["error"]?["message"]?.hasPrefix("\(config): reader.polling.modulations: the libnfc backend cannot poll iso15693") == true,
                "\(result.err)")
        // Nothing started: no state directory was made.
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state"))
    }
}
