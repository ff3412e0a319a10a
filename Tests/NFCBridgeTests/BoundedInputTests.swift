import Foundation
import Glibc
import Testing

@testable import NFCBridge

/// Every file from outside is bounded where it enters (issue 20): a FIFO named as a secret file
/// blocked start-up in open(); the config file, a 1 GB keys file and a 1 M-entry
/// command-results.json were read whole.
@Suite struct BoundedInputTests {
    typealias TempDir = ConfigurationTests.TempDir

    func error(_ yaml: String) -> ConfigurationError? {
        do {
            _ = try ConfigurationLoader.parse(yaml: yaml, source: "config.yaml", hostName: "host")
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: ["mqtt.password_file", "commands.signature_key_file", "mqtt.ca_file", "mqtt.cert_file"])
    func aFIFONamedAsAFileIsRefusedWithoutBlocking(key: String) throws {
        let dir = try TempDir()
        let fifo = dir.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let (section, name) = (key.split(separator: ".")[0], key.split(separator: ".")[1])
        let extra = section == "mqtt" ? "  username: agent\n" : ""
        let failure = try #require(error("\(section):\n\(extra)  \(name): \(fifo)\n"))
        #expect(failure.message.contains("is a FIFO, not a regular file"), "\(failure.message)")
    }

    @Test func aConfigurationFileOverTheLimitIsRefusedUnread() throws {
        let dir = try TempDir()
        let big = try dir.file("config.yaml", "# " + String(repeating: "x", count: ConfigurationLoader.fileLimit) + "\n")
        #expect {
            _ = try ConfigurationLoader.load(path: big)
        } throws: { error in
            (error as? ConfigurationError)?.message.contains("at most \(ConfigurationLoader.fileLimit) are read") == true
        }
        let fifo = dir.path + "/fifo.yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect { _ = try ConfigurationLoader.load(path: fifo) } throws: { error in
            (error as? ConfigurationError)?.message.contains("is a FIFO") == true
        }
    }

    @Test func aKeysFileOverTheLimitIsRefusedUnread() throws {
        let dir = try TempDir()
        let line = "FFFFFFFFFFFF\n"
        let keys = try dir.file("keys", String(repeating: line, count: ClassicKeysFile.fileLimit / line.utf8.count + 1))
        let failure = try #require(error("dump:\n  keys_file: \(keys)\n"))
        #expect(failure.message.contains("at most \(ClassicKeysFile.fileLimit) are read"), "\(failure.message)")
    }

    @Test func aCommandResultsFileOverTheLimitStartsEmptyAndSaysSo() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let file = dir.path + "/" + CommandResultCache.fileName
        let entry = #"{"key":"k","response":{},"stored_at":1},"#
        let body = String(repeating: entry, count: CommandResultCache.fileLimit / entry.utf8.count + 1)
        try ("[" + body.dropLast() + "]").write(toFile: file, atomically: true, encoding: .utf8)
        let logs = LogRecorder()
        let cache = try CommandResultCache(
            capacity: 10, directory: dir.path, logger: AgentLogger(level: .debug, journald: false, sink: logs.sink))
        #expect(cache.response(for: "k") == nil)
        #expect(logs.recorded.contains { $0.contains("starting with no command results") }, "\(logs.recorded)")
    }

    @Test func aStateFileThatIsNotRegularIsRefusedWithItsKind() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        #expect(mkfifo(dir.path + "/sequence", 0o600) == 0)
        #expect { _ = try SequenceStore(directory: dir.path) } throws: { error in
            (error as? StorageError)?.message.contains("is a FIFO") == true
        }
    }
}
