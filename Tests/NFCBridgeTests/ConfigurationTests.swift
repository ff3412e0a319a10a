import Foundation
import MQTTClient
import NFCCore
import TestSupport
import Testing

@testable import NFCBridge
import YAMLDocument

@Suite struct ConfigurationTests {
    /// A temporary directory removed at the end of the test.
    final class TempDir {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "nfcbridge-config-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func file(_ name: String, _ content: String) throws -> String {
            let file = path + "/" + name
            try content.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
    }

    func parse(_ yaml: String) throws(ConfigurationError) -> AgentConfiguration {
        try ConfigurationLoader.parse(yaml: yaml, source: "config.yaml", hostName: "Test-Host.example.org")
    }

    func error(_ yaml: String) -> ConfigurationError? {
        do {
            _ = try parse(yaml)
            return nil
        } catch {
            return error
        }
    }

    /// A 10 MB `id` was echoed whole in a 10 MB error line (issue 20): an error quotes at most the
    /// value's first 64 characters and its size.
    @Test func aHugeValueIsQuotedByItsPrefixOnly() throws {
        let id = String(repeating: "X", count: 10_000_000)
        let problem = try #require(error("id: \(id)\n"))
        #expect(problem.detail == "must be 1-64 characters of a-z, 0-9, '_' and '-', got '\(id.prefix(64))…' (10000000 bytes)")
        let flag = try #require(error("dump:\n  on_scan: \(String(repeating: "y", count: 1000))\n"))
        #expect(flag.message.utf8.count < 200, "\(flag.message.prefix(300))")
    }

    @Test func emptyFileGivesEveryDefault() throws {
        let config = try parse("")
        #expect(config.id == "test-host")
        #expect(config.mqtt.url == "mqtt://localhost:1883")
        #expect(config.mqtt.usesTLS == false)
        #expect(config.mqtt.baseTopic == "nfc")
        #expect(config.mqtt.protocolVersion == .v5)
        #expect(config.presence.mode == .presence)
        #expect(config.presence.removalGraceMilliseconds == 600)
        #expect(config.homeAssistant.enabled)
        #expect(config.homeAssistant.prefix == "homeassistant")
        #expect(config.reader.device == nil)
        #expect(config.commands.lockEnabled == false)
        #expect(config.stateDirectory == "/var/lib/nfcbridge")
    }

    @Test func readsNestedKeys() throws {
        let config = try parse(
            """
            id: door_1
            reader:
              device: pn532_uart:/dev/ttyS0
              polling:
                modulations: [iso14443a, iso14443b]
                interval_ms: 100
            mqtt:
              url: mqtts://broker.lan
              base_topic: site/nfc
              protocol: 3.1.1
            presence: {mode: repeat, rearm_ms: 500, min_interval_ms: 0, removal_grace_ms: 0}
            dump:
              on_scan: yes
            log:
              level: debug
            health_interval_s: 30
            commands:
              lock:
                enabled: true
            """)
        #expect(config.id == "door_1")
        #expect(config.reader.device == "pn532_uart:/dev/ttyS0")
        #expect(config.reader.modulations == [.iso14443a, .iso14443b])
        #expect(config.reader.intervalMilliseconds == 100)
        #expect(config.mqtt.url == "mqtts://broker.lan")
        #expect(config.mqtt.usesTLS)
        #expect(config.mqtt.baseTopic == "site/nfc")
        #expect(config.mqtt.protocolVersion == .v311)
        #expect(config.presence.mode == .repeat)
        #expect(config.presence.rearmMilliseconds == 500)
        #expect(config.presence.minIntervalMilliseconds == 0)
        #expect(config.dump.onScan)
        #expect(config.log.level == .debug)
        #expect(config.healthIntervalSeconds == 30)
        #expect(config.commands.lockEnabled)
        #expect(config.enabledCommands == ["write", "format", "lock", "dump", "cancel", "write_blocks", "job", "feedback"])
    }

    @Test func unknownKeyNamesKeyLineAndSuggestion() throws {
        let problem = try #require(error("mqtt:\n  url: mqtt://h\n  pasword_file: /x\n"))
        #expect(problem.line == 3)
        #expect(problem.key == "mqtt.pasword_file")
        #expect(problem.message == "config.yaml:3: mqtt.pasword_file: unknown key (did you mean 'mqtt.password_file'?)")
    }

    @Test func aMisspeltSectionGetsTheSectionSuggested() throws {
        let problem = try #require(error("id: a\npresense:\n  mode: repeat\n"))
        #expect(problem.message == "config.yaml:2: presense: unknown key (did you mean 'presence'?)")
        let nested = try #require(error("reader:\n  poling:\n    interval_ms: 100\n"))
        #expect(nested.message == "config.yaml:2: reader.poling: unknown key (did you mean 'reader.polling'?)")
    }

    @Test func unknownTopLevelKey() throws {
        let problem = try #require(error("id: a\nfrobnicate: 3\n"))
        #expect(problem.line == 2)
        #expect(problem.key == "frobnicate")
    }

    @Test func wrongTypesNameKeyAndLine() throws {
        let cases: [(String, Int, String, String)] = [
            ("presence:\n  removal_grace_ms: soon\n", 2, "presence.removal_grace_ms", "expected a whole number, got 'soon'"),
            ("presence:\n  removal_grace_ms: 70000\n", 2, "presence.removal_grace_ms", "must be between 0 and 60000, got 70000"),
            ("dump:\n  on_scan: \"true\"\n", 2, "dump.on_scan", "expected true or false, got 'true'"),
            ("mqtt:\n  protocol: 6\n", 2, "mqtt.protocol", "must be one of 3.1.1, 5, got '6'"),
            ("presence:\n  mode: sometimes\n", 2, "presence.mode", "must be one of presence, repeat, got 'sometimes'"),
            ("id: Door 1\n", 1, "id", "must be 1-64 characters of a-z, 0-9, '_' and '-', got 'Door 1'"),
            ("mqtt: mqtt://h\n", 1, "mqtt", "expected a mapping of keys, found a single value"),
            ("mqtt:\n  url: {a: b}\n", 2, "mqtt.url", "expected a single value, found a mapping"),
            ("mqtt:\n  url: []\n", 2, "mqtt.url", "must list 1 to 16 broker URLs, got 0"),
            ("mqtt:\n  url:\n    - mqtt://a\n    - mqtt://a\n", 4, "mqtt.url", "'mqtt://a' is listed twice"),
            ("mqtt:\n  url:\n    - mqtt://a\n    - mqtts://b\n", 4, "mqtt.url",
             "mixes mqtt:// and mqtts://: every node of the list must use the same scheme"),
            ("mqtt:\n  url: [mqtt://a, ftp://b]\n", 2, "mqtt.url",
             "not a broker URL (mqtt://host[:port] or mqtts://host[:port]): unsupported scheme 'ftp'"),
            ("reader:\n  polling:\n    modulations: [iso14443a, nfc-z]\n", 3, "reader.polling.modulations",
             "must be one of iso14443a, iso14443b, felica212, felica424, iso15693, jewel, got 'nfc-z'"),
            ("mqtt:\n  base_topic: nfc/#\n", 2, "mqtt.base_topic", "must not contain the MQTT wildcards + or #"),
            ("mqtt:\n  url: http://h\n", 2, "mqtt.url",
             "not a broker URL (mqtt://host[:port] or mqtts://host[:port]): unsupported scheme 'http'"),
        ]
        for (yaml, line, key, detail) in cases {
            let problem = try #require(error(yaml), "no error for \(yaml)")
            #expect(problem.line == line, "\(yaml)")
            #expect(problem.key == key, "\(yaml)")
            #expect(problem.detail == detail, "\(yaml)")
            #expect(problem.code.rawValue == "invalid_config")
        }
    }

    @Test func aBrokerListIsTheNodesInOrderAndOneURLStaysAString() throws {
        let config = try parse("id: a\nmqtt:\n  url:\n    - mqtts://node-a:8883\n    - mqtts://node-b\n")
        #expect(config.mqtt.brokers.all == ["mqtts://node-a:8883", "mqtts://node-b"])
        #expect(config.mqtt.url == "mqtts://node-a:8883" && config.mqtt.usesTLS)
        #expect(config.mqttClientConfiguration.failoverURLs == ["mqtts://node-b"])
        #expect(JSONWire.text(config.mqtt.brokers) == #"["mqtts://node-a:8883","mqtts://node-b"]"#)
        #expect(JSONWire.text(AgentConfiguration.BrokerURLs("mqtt://h")) == #""mqtt://h""#)
    }

    @Test func yamlSyntaxErrorsCarryTheLine() throws {
        let problem = try #require(error("id: a\nmqtt:\n  url: [unclosed\n  base_topic: x\n"))
        #expect(problem.line != nil)
        #expect(problem.detail.hasPrefix("YAML syntax:"))
        let duplicate = try #require(error("id: a\nid: b\n"))
        #expect(duplicate.line == 2)
        #expect(duplicate.detail.contains("duplicate key 'id' (first on line 1)"))
    }

    @Test func passwordComesFromFileAndIsNeverPublished() throws {
        let dir = try TempDir()
        let secret = try dir.file("password", "s3cr3t-Pa55\nignored second line\n")
        let config = try parse("mqtt:\n  username: agent\n  password_file: \(secret)\n")
        #expect(config.mqtt.password?.value == "s3cr3t-Pa55")
        #expect(config.mqtt.passwordFile == secret)
        #expect(try !config.publicText.contains("s3cr3t"))
        #expect(!"\(config)".contains("s3cr3t"))
        #expect("\(config.mqtt.password!)" == "<redacted>")
    }

    @Test func everySettingComesFromTheConfiguration() {
        var config = AgentConfiguration(id: "a")
        // The reader loop polls what the configuration says (it once polled only ISO 14443-A by default).
        #expect(ReaderLoop.Settings(config).modulations == [.iso14443a, .felica212])
        #expect(ReaderLoop.Settings(config).interval == .milliseconds(250))
        #expect(ReaderLoop.Settings(config).retryInitial == .seconds(1))
        #expect(ReaderLoop.Settings(config).retryMaximum == .seconds(30))
        config.reader.modulations = [.felica424]
        config.reader.intervalMilliseconds = 40
        config.dump.onScan = true
        let settings = ReaderLoop.Settings(config)
        #expect(settings.modulations == [.felica424])
        #expect(settings.interval == .milliseconds(40))
        #expect(settings.dumpOnScan)
        #expect(CommandPolicy(config) == CommandPolicy())
        #expect(CommandPolicy().defaultWaitForTagSeconds == 30)
        config.commands.lockEnabled = true
        config.commands.queueCapacity = 2
        #expect(CommandPolicy(config) == CommandPolicy(lockEnabled: true, queueCapacity: 2))
    }

    @Test func aPasswordFileIsReadToItsFirstLineOnly() throws {
        // /dev/zero has no end and no line break: it was read until memory ran out (the agent never started).
        let endless = try #require(error("mqtt:\n  username: agent\n  password_file: /dev/zero\n"))
        #expect(endless.code == .invalidConfig)
        #expect(endless.message == "config.yaml:3: mqtt.password_file: '/dev/zero' is a device, not a regular file: name a file")
        let dir = try TempDir()
        let unterminated = try dir.file("password", "no-line-break")
        #expect(try parse("mqtt:\n  username: agent\n  password_file: \(unterminated)\n").mqtt.password?.value == "no-line-break")
        // A file saved on Windows: no byte-order mark in the password, whose line ends at CR LF
        // (Swift's one Character), not at the next LF.
        let windows = try dir.file("windows", "\u{FEFF}s3cr3t-Pa55\r\nignored second line\r\n")
        #expect(try parse("mqtt:\n  username: agent\n  password_file: \(windows)\n").mqtt.password?.value == "s3cr3t-Pa55")
        let long = try dir.file("long", String(repeating: "p", count: 70_000) + "\n")
        #expect(error("mqtt:\n  username: agent\n  password_file: \(long)\n")?.message.contains("longer than 65536 bytes") == true)
    }

    @Test func aPasswordWithoutAUserNameIsInvalidConfig() throws {
        let dir = try TempDir()
        let secret = try dir.file("password", "s3cr3t\n")
        let problem = try #require(error("mqtt:\n  password_file: \(secret)\n"))
        #expect(problem.code == .invalidConfig)
        #expect(problem.code.rawValue == "invalid_config")
        #expect(problem.message == "config.yaml:2: mqtt.password_file: a password needs a user name: set mqtt.username as well")
    }

    @Test func missingFilesAreNamed() throws {
        let problem = try #require(error("mqtt:\n  url: mqtts://h\n  ca_file: /nonexistent/ca.pem\n"))
        #expect(problem.message == "config.yaml:3: mqtt.ca_file: file '/nonexistent/ca.pem' does not exist")
        let keys = try #require(error("dump:\n  keys_file: /nonexistent/keys\n"))
        #expect(keys.key == "dump.keys_file")
    }

    @Test func classicKeysFileIsReadAndCheckedLineByLine() throws {
        let dir = try TempDir()
        let good = try dir.file("keys", "# site keys\nA0A1A2A3A4A5\n\nB0:B1:B2:B3:B4:B5  # door\n")
        let config = try parse("dump:\n  keys_file: \(good)\n")
        #expect(config.dump.families.classicKeys.keys.prefix(2) == [[0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5], [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]])
        #expect(config.dump.families.classicKeys.keys.contains([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]))
        // CR LF line ends and a byte-order mark first (a dictionary saved on Windows) read as LF
        // ones, line numbers included.
        let crlf = try dir.file("crlf", "\u{FEFF}A0A1A2A3A4A5\r\n# site keys\r\n\r\nB0B1B2B3B4B5\r\n")
        let fromWindows = try parse("dump:\n  keys_file: \(crlf)\n").dump.families.classicKeys.keys
        #expect(fromWindows.prefix(2) == [[0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5], [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]])
        let crlfBad = try dir.file("crlf-bad", "A0A1A2A3A4A5\r\n\r\nnot-a-key\r\n")
        #expect(try #require(error("dump:\n  keys_file: \(crlfBad)\n")).line == 3)
        let bad = try dir.file("bad", "A0A1A2A3A4A5\nnot-a-key\n")
        let problem = try #require(error("dump:\n  keys_file: \(bad)\n"))
        #expect(problem.source == bad)
        #expect(problem.line == 2)
        #expect(problem.key == "dump.keys_file")
    }

    @Test func tlsFilesNeedTLSAndComeInPairs() throws {
        let dir = try TempDir()
        let pem = try dir.file("c.pem", "x")
        let plain = try #require(error("mqtt:\n  url: mqtt://h\n  ca_file: \(pem)\n"))
        #expect(plain.key == "mqtt.ca_file")
        #expect(plain.line == 3)
        let half = try #require(error("mqtt:\n  url: mqtts://h\n  cert_file: \(pem)\n"))
        #expect(half.key == "mqtt.cert_file")
    }

    @Test func signatureAndIdempotencySettingsAreRead() throws {
        let dir = try TempDir()
        let keyFile = try dir.file("request.key", "0123456789abcdef0123456789abcdef\n")
        let config = try parse("""
            commands:
              signature_key_file: \(keyFile)
              require_signature: true
              signature_window_s: 120
              idempotency_window_s: 3600
            """)
        #expect(config.commands.signatureKey?.value == "0123456789abcdef0123456789abcdef")
        #expect(config.commands.requireSignature)
        #expect(config.commands.signatureWindowSeconds == 120)
        #expect(config.commands.idempotencyWindowSeconds == 3600)
        #expect(CommandPolicy(config).idempotencyWindowSeconds == 3600)
        // The key file's path is public, the key is not.
        let published = try config.publicText
        #expect(published.contains(keyFile))
        #expect(!published.contains("0123456789abcdef0123456789abcdef"))
        #expect(try parse("").commands.idempotencyWindowSeconds == 86_400)
    }

    @Test func signatureSettingsAreChecked() throws {
        let dir = try TempDir()
        let short = try dir.file("short.key", "tooshort\n")
        let tooShort = try #require(error("commands:\n  signature_key_file: \(short)\n"))
        #expect(tooShort.key == "commands.signature_key_file")
        #expect(tooShort.line == 2)
        #expect(tooShort.message.contains("at least 16"))
        let noKey = try #require(error("commands:\n  lock: {enabled: true}\n  require_signature: true\n"))
        #expect(noKey.code == .invalidConfig)
        #expect(noKey.message == "config.yaml:3: commands.require_signature: signed requests need a key: set commands.signature_key_file as well")
        let window = try #require(error("commands:\n  idempotency_window_s: 5\n"))
        #expect(window.key == "commands.idempotency_window_s")
    }

    @Test func brokerStallThresholdsAreKeysWithTheFormerConstantsAsDefaults() throws {
        let defaults = try parse("mqtt:\n  url: mqtt://h\n")
        #expect(defaults.mqtt.stallAfterSeconds == 10)
        #expect(defaults.mqtt.recycleAfterSeconds == 60)
        let set = try parse("mqtt:\n  url: mqtt://h\n  stall_after_s: 2\n  recycle_after_s: 5\n")
        #expect(set.mqtt.stallAfterSeconds == 2)
        #expect(set.mqtt.recycleAfterSeconds == 5)
        let inverted = try #require(error("mqtt:\n  url: mqtt://h\n  stall_after_s: 20\n  recycle_after_s: 5\n"))
        #expect(inverted.key == "mqtt.recycle_after_s")
        #expect(inverted.line == 4)
        #expect(inverted.message.contains("must not be shorter"), "\(inverted.message)")
        let zero = try #require(error("mqtt:\n  url: mqtt://h\n  stall_after_s: 0\n"))
        #expect(zero.key == "mqtt.stall_after_s")
    }

    @Test func tlsInsecureNeedsTLSAndReachesTheClient() throws {
        let plain = try #require(error("mqtt:\n  url: mqtt://h\n  tls_insecure: true\n"))
        #expect(plain.key == "mqtt.tls_insecure")
        #expect(plain.line == 3)
        let config = try parse("mqtt:\n  url: mqtts://h\n  tls_insecure: true\n")
        #expect(config.mqtt.tlsInsecure)
        guard case let .enabled(tls) = config.mqttClientConfiguration.tls else {
            Issue.record("tls_insecure without TLS settings")
            return
        }
        #expect(!tls.verifyCertificate)
        #expect(!tls.verifyHostname)
        // By default the broker is verified.
        let dir = try TempDir()
        let ca = try dir.file("ca", "x")
        guard case let .enabled(verified) = try parse("mqtt:\n  url: mqtts://h\n  ca_file: \(ca)\n").mqttClientConfiguration.tls
        else {
            Issue.record("no TLS settings with a CA file")
            return
        }
        #expect(verified.verifyCertificate && verified.verifyHostname)
    }

    @Test func credentialsInTheURLAreRefusedWithoutEchoingThem() throws {
        let problem = try #require(error("mqtt:\n  url: mqtt://user:pw@h\n"))
        #expect(problem.key == "mqtt.url")
        #expect(!problem.message.contains("pw"))
    }

    @Test func overridesReplaceFileValues() throws {
        var config = try parse("reader:\n  device: pn532_uart:/dev/ttyS0\nmqtt:\n  url: mqtt://a\n")
        try ConfigurationLoader.apply(
            ConfigurationOverrides(
                device: "pn532_uart:/dev/ttyUSB0", broker: "mqtts://b:9999",
                environment: ["NFCBRIDGE_MQTT_PASSWORD": "from-env"]),
            to: &config)
        #expect(config.reader.device == "pn532_uart:/dev/ttyUSB0")
        #expect(config.mqtt.url == "mqtts://b:9999")
        #expect(config.mqtt.usesTLS)
        #expect(config.mqtt.password?.value == "from-env")
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.apply(ConfigurationOverrides(broker: "nonsense"), to: &config)
        }
    }

    @Test func explicitMissingConfigFileIsAnError() throws {
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(path: "/nonexistent/nfcbridge.yaml")
        }
        do {
            _ = try ConfigurationLoader.load(path: "/nonexistent/nfcbridge.yaml")
        } catch {
            #expect(error.code.rawValue == "config_not_found")
        }
    }

    @Test func hostNamesBecomeIDs() {
        #expect(AgentIdentifier.sanitize(hostName: "Pi-Reader.local") == "pi-reader")
        #expect(AgentIdentifier.sanitize(hostName: "my host!") == "my-host")
        #expect(AgentIdentifier.sanitize(hostName: "") == "nfcbridge")
        #expect(AgentIdentifier.isValid("door_1-a"))
        #expect(!AgentIdentifier.isValid("Door"))
    }

    /// The example file parses (with its file paths nulled) and documents every key of the schema.
    @Test func exampleFileDocumentsEveryKey() throws {
        let path = Binaries.packageRoot.appendingPathComponent("config/nfcbridge.example.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let config = try ConfigurationLoader.parse(yaml: text, source: path, hostName: "h")
        // "every key, with its default": the example sets nothing a configuration left empty would not.
        #expect(config == (try ConfigurationLoader.parse(yaml: "", source: path, hostName: "h")))
        #expect(config.id == "h")
        var documented: Set<String> = []
        func collect(_ node: YAMLNode, _ prefix: String) {
            guard case let .mapping(entries, _) = node else { return }
            for entry in entries {
                let key = prefix.isEmpty ? entry.key : "\(prefix).\(entry.key)"
                documented.insert(key)
                collect(entry.value, key)
            }
        }
        collect(try YAMLParser.parse(text), "")
        for key in ConfigurationSchema.keys {
            #expect(documented.contains(key.path), "config/nfcbridge.example.yaml lacks \(key.path)")
            #expect(key.isDefault(config), "config/nfcbridge.example.yaml sets \(key.path) to another value than its default")
        }
    }
}
