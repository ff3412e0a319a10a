import Foundation
import Testing
import YAMLDocument

@testable import NFCBridge

/// The table of configuration keys (``ConfigurationSchema``): one row per key, and what is made
/// from the rows — `info.config`, the defaults, the secrets kept out of `info`.
@Suite struct ConfigurationSchemaTests {
    /// The dotted paths of every leaf of `value` (an array or a scalar is a leaf).
    func leaves(of value: JSONValue, _ prefix: String = "") -> [String: JSONValue] {
        guard case let .object(members) = value else { return [prefix: value] }
        return members.reduce(into: [:]) { found, member in
            found.merge(leaves(of: member.value, prefix.isEmpty ? member.key : "\(prefix).\(member.key)")) { first, _ in first }
        }
    }

    /// A YAML scalar applied to `key` as if line 1 of `config.yaml` held it.
    func apply(_ key: ConfigurationKey, _ text: String, to config: inout AgentConfiguration) throws(ConfigurationError) {
        try key.apply(&config, ConfigurationValue(node: .scalar(text, line: 1, plain: true), key: key.path, source: "config.yaml"))
    }

    @Test func everyKeyIsOneRow() {
        let paths = ConfigurationSchema.keys.map(\.path)
        #expect(Set(paths).count == paths.count, "a path is listed twice")
        for path in paths {
            #expect(!ConfigurationSchema.isSection(path), "\(path) is both a key and a section")
        }
    }

    /// `info.config` is the rows: every row at its path, nothing that is not a row (review stop 40:
    /// `reader.backend` and `reader.pcsc_share_mode` were left out, though docs/mqtt.md says `info`
    /// shows the whole configuration).
    @Test func infoShowsEveryRowAndNothingElse() throws {
        let shown = leaves(of: try AgentConfiguration(id: "a").publicJSON)
        #expect(Set(shown.keys) == Set(ConfigurationSchema.keys.map(\.path)))
        #expect(shown.keys.contains("reader.backend") && shown.keys.contains("reader.pcsc_share_mode"))
    }

    /// The default configuration in `info`, byte for byte as the `PublicConfiguration` mirror wrote it
    /// before the rows (WireGoldenTests holds the same with the agent around it).
    @Test func infoOfTheDefaultsIsUnchanged() throws {
        var config = AgentConfiguration(id: "test")
        config.stateDirectory = "/state"
        #expect(
            try config.publicText
                == #"{"access":{"credential":"uid","credential_hash":false,"originality_keys_file":null,"probes":{"gen1a_backdoor":false,"gen4_gtu":false,"uid_structure":true,"version_signature_mismatch":true},"signature":"check"},"auth":{"keys_file":null},"commands":{"idempotency_window_s":86400,"lock":{"enabled":false},"require_signature":false,"signature_key_file":null,"signature_window_s":300},"dump":{"keys_file":null,"on_scan":false},"feedback":{"exec":null,"exec_timeout_ms":2000,"on_job":{"failed":{"beeps":0,"light":null},"ok":{"beeps":0,"light":null},"refused":{"beeps":0,"light":null}},"on_scan":{"beeps":0,"light":null},"on_trust":{"trusted":{"beeps":0,"light":null},"untrusted":{"beeps":0,"light":null}}},"health_interval_s":60,"homeassistant":{"enabled":true,"prefix":"homeassistant","trusted_only":false},"id":"test","log":{"level":"info"},"mqtt":{"base_topic":"nfc","ca_file":null,"cert_file":null,"key_file":null,"live_window_s":2,"max_packet_size":null,"password_file":null,"protocol":"5","recycle_after_s":60,"stall_after_s":10,"tls_insecure":false,"url":"mqtt://localhost:1883","username":null},"presence":{"min_interval_ms":1000,"mode":"presence","rearm_ms":2000,"removal_grace_ms":600},"reader":{"backend":"auto","device":null,"pcsc_share_mode":"exclusive","polling":{"interval_ms":250,"modulations":["iso14443a","felica212"]}},"spool":{"max_age_s":604800,"max_bytes":16777216,"max_events":10000},"state_dir":"/state"}"#
        )
    }

    /// Set values show as set: an optional as its value, an enumeration as its raw value.
    @Test func infoShowsSetValues() throws {
        var config = AgentConfiguration(id: "a")
        for (path, text) in [("mqtt.max_packet_size", "4096"), ("mqtt.protocol", "3.1.1"), ("reader.device", "pn532_uart:/dev/x")] {
            let key = try #require(ConfigurationSchema.byPath[path])
            try apply(key, text, to: &config)
        }
        let shown = leaves(of: try config.publicJSON)
        #expect(shown["mqtt.max_packet_size"] == 4096)
        #expect(shown["mqtt.protocol"] == "3.1.1")
        #expect(shown["reader.device"] == "pn532_uart:/dev/x")
    }

    /// A secret row shows the path of its file in `info`; the secret it read is nowhere in `info`.
    @Test func secretRowsShowTheirFileNeverTheSecret() throws {
        let dir = try ConfigurationTests.TempDir()
        let rows = ConfigurationSchema.keys.filter { $0.publication == .secretFile }
        #expect(rows.map(\.path) == ["mqtt.password_file", "commands.signature_key_file"])
        for row in rows {
            let secret = "secret-of-\(row.path)-0123456789abcdef"
            let file = try dir.file(row.path, secret + "\n")
            var config = AgentConfiguration(id: "a")
            try apply(row, file, to: &config)
            #expect(!row.isDefault(config))
            #expect(leaves(of: try config.publicJSON)[row.path] == .string(file))
            #expect(try !config.publicText.contains(secret), "\(row.path) shows its secret")
            #expect(!"\(config)".contains(secret), "\(row.path) keeps its secret as plain text")
        }
    }

    /// A row knows its default; setting a key leaves every other row at its default.
    @Test func aRowSetsItsOwnFieldOnly() throws {
        var config = AgentConfiguration(id: "a")
        let key = try #require(ConfigurationSchema.byPath["spool.max_events"])
        #expect(key.isDefault(config))
        try apply(key, "5", to: &config)
        #expect(config.spool.maxEvents == 5)
        #expect(ConfigurationSchema.keys.filter { !$0.isDefault(config) }.map(\.path) == ["spool.max_events"])
    }

    /// The table refuses what it always refused, with the same message and line.
    @Test func rowsCheckTheirValues() throws {
        var config = AgentConfiguration(id: "a")
        let interval = try #require(ConfigurationSchema.byPath["reader.polling.interval_ms"])
        #expect(throws: ConfigurationError(source: "config.yaml", line: 1, key: "reader.polling.interval_ms", detail: "must be between 10 and 10000, got 5")) {
            try apply(interval, "5", to: &config)
        }
        let prefix = try #require(ConfigurationSchema.byPath["homeassistant.prefix"])
        #expect(throws: ConfigurationError(source: "config.yaml", line: 1, key: "homeassistant.prefix", detail: "must not contain the MQTT wildcards + or #")) {
            try apply(prefix, "ha/#", to: &config)
        }
        #expect(config == AgentConfiguration(id: "a"))
    }
}

extension AgentConfiguration {
    /// `info.config` as JSON text, as `info` and the start-up log line write it.
    var publicText: String {
        get throws { String(decoding: try JSONWire.bytes(publicConfiguration), as: UTF8.self) }
    }

    /// `info.config` as a JSON value, for the tests that read its leaves.
    var publicJSON: JSONValue {
        get throws { try JSONValueEncoder().encode(publicConfiguration) }
    }
}
