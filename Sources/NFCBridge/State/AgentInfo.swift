import FoundationEssentials
import Glibc
import NFCCore

/// The retained `<base>/<id>/info` payload (docs/mqtt.md, "info"): who the agent is, its reader,
/// its broker connection, the commands it takes and its configuration without secrets.
package struct AgentInfo: Sendable, Encodable {
    /// The agent id.
    package var id: String
    /// The agent version.
    package var version: String
    /// When the agent started.
    package var startedAt: Date
    /// The reader, once opened (`null` before).
    package var reader: ReaderInfo?
    /// The broker connection.
    package var mqtt: AgentConfiguration.MQTTSettings
    /// The commands the agent answers.
    package var commands: [String]
    /// The configuration without secrets.
    package var config: PublicConfiguration
    /// The names and kinds of the keys `auth.keys_file` holds (never a key); `auth` is left out without any.
    package var authKeys: [AuthKeyName] = []

    enum CodingKeys: String, CodingKey { case agent, reader, mqtt, commands, config, auth }
    enum AuthKeys: String, CodingKey { case keys }
    enum AgentKeys: String, CodingKey { case id, version, startedAt = "started_at" }
    enum ReaderKeys: String, CodingKey { case connstring, name, firmware }
    enum MQTTKeys: String, CodingKey { case `protocol`, url, urls, tls, tlsInsecure = "tls_insecure" }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var agent = container.nestedContainer(keyedBy: AgentKeys.self, forKey: .agent)
        try agent.encode(id, forKey: .id)
        try agent.encode(version, forKey: .version)
        try agent.encode(Timestamp.string(startedAt), forKey: .startedAt)
        if let reader {
            var fields = container.nestedContainer(keyedBy: ReaderKeys.self, forKey: .reader)
            try fields.encode(reader.connstring, forKey: .connstring)
            try fields.encode(reader.name, forKey: .name)
            try fields.encode(reader.firmware, forKey: .firmware)
        } else {
            try container.encodeNil(forKey: .reader)
        }
        var broker = container.nestedContainer(keyedBy: MQTTKeys.self, forKey: .mqtt)
        try broker.encode(mqtt.protocolVersion.rawValue, forKey: .protocol)
        try broker.encode(mqtt.url, forKey: .url)
        // Every node of mqtt.url, in order (broker URLs carry no credentials: MQTTBrokerAddress refuses user info).
        try broker.encode(mqtt.brokers.all, forKey: .urls)
        try broker.encode(mqtt.usesTLS, forKey: .tls)
        // True when the broker is not verified (mqtt.tls_insecure): visible to whoever watches `info`.
        try broker.encode(mqtt.tlsInsecure, forKey: .tlsInsecure)
        try container.encode(commands, forKey: .commands)
        try container.encode(config, forKey: .config)
        if !authKeys.isEmpty {
            var auth = container.nestedContainer(keyedBy: AuthKeys.self, forKey: .auth)
            try auth.encode(authKeys, forKey: .keys)
        }
    }
}
