import MQTTClient

extension AgentConfiguration {
    /// The MQTT protocol version spoken to the broker.
    package enum MQTTProtocolVersion: String, Sendable, Equatable, CaseIterable, Encodable {
        /// MQTT 3.1.1.
        case v311 = "3.1.1"
        /// MQTT 5.
        case v5 = "5"
    }

    /// The broker connection.
    package struct MQTTSettings: Sendable, Equatable {
        /// The broker URL (`mqtt://host:1883`, `mqtts://host:8883`), checked with `MQTTBrokerAddress`.
        package var url = "mqtt://localhost:1883"
        /// True for an `mqtts://` URL.
        package var usesTLS = false
        /// The base topic (`nfc`): no wildcards, no leading or trailing slash.
        package var baseTopic = "nfc"
        /// User name, if the broker wants one.
        package var username: String?
        /// File holding the password (first line). Never published; the password itself is in ``password``.
        package var passwordFile: String?
        /// The password, from ``passwordFile`` or `NFCBRIDGE_MQTT_PASSWORD`. Never logged or published.
        package var password: Secret?
        /// PEM CA bundle for TLS.
        package var caFile: String?
        /// PEM client certificate for TLS client authentication.
        package var certFile: String?
        /// PEM client key for TLS client authentication.
        package var keyFile: String?
        /// Protocol version.
        package var protocolVersion: MQTTProtocolVersion = .v5
        /// `mqtt.tls_insecure`: do not verify the broker at all (neither its certificate chain nor its
        /// host name). Lab use only: logged as a warning at every connect and shown in `info`.
        package var tlsInsecure = false
        /// `mqtt.stall_after_s`: a publish the broker has not acknowledged for this long marks it as
        /// stalled (a warning in the log, `health.mqtt.stalled`).
        package var stallAfterSeconds = 10
        /// `mqtt.recycle_after_s`: a publish still unacknowledged after this long drops the
        /// connection, which is then made again (`health.mqtt.recycles`); at least ``stallAfterSeconds``.
        package var recycleAfterSeconds = 60
        /// `mqtt.live_window_s`: an event that reaches the broker more than this long after the tap
        /// goes out `buffered: true`, and Home Assistant's templates drop a scan whose `ts` is older
        /// than this when it arrives: a late tap never opens a door (docs/home-assistant.md).
        package var liveWindowSeconds = 2
        /// `mqtt.max_packet_size`: the largest packet the agent sends (the broker's
        /// `max_packet_size`). An event beyond it becomes a `payload_too_large` error event instead of
        /// being sent. Under MQTT 5 the broker says its own limit in CONNACK; under 3.1.1 it cannot,
        /// and it disconnects a client that sends more, so set this there. `nil`: MQTT's own limit.
        package var maxPacketSize: Int?
        package init() {}

        /// The `mqtt` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("mqtt.url", \.mqtt.url, .brokerURL),
            ConfigurationKey("mqtt.base_topic", \.mqtt.baseTopic, .topicPrefix),
            ConfigurationKey("mqtt.username", \.mqtt.username, .text),
            .secretFile("mqtt.password_file", file: \.mqtt.passwordFile, secret: \.mqtt.password),
            ConfigurationKey("mqtt.ca_file", \.mqtt.caFile, .file),
            ConfigurationKey("mqtt.cert_file", \.mqtt.certFile, .file),
            ConfigurationKey("mqtt.key_file", \.mqtt.keyFile, .file),
            ConfigurationKey("mqtt.tls_insecure", \.mqtt.tlsInsecure, .bool),
            ConfigurationKey("mqtt.protocol", \.mqtt.protocolVersion, .choice),
            ConfigurationKey("mqtt.stall_after_s", \.mqtt.stallAfterSeconds, .int(in: 1...3600)),
            ConfigurationKey("mqtt.recycle_after_s", \.mqtt.recycleAfterSeconds, .int(in: 1...86_400)),
            ConfigurationKey("mqtt.live_window_s", \.mqtt.liveWindowSeconds, .int(in: 1...300)),
            // 1 KiB holds any error event; MQTT's largest packet is 268,435,455 bytes and its header.
            ConfigurationKey("mqtt.max_packet_size", \.mqtt.maxPacketSize, .int(in: 1024...268_435_460)),
        ]
    }
}

extension ConfigurationRule where Value == String {
    /// A broker URL `MQTTBrokerAddress` takes; sets ``AgentConfiguration/MQTTSettings/usesTLS``.
    static var brokerURL: Self {
        Self { value, config throws(ConfigurationError) in
            let url = try value.nonEmptyString()
            do throws(MQTTClientError) {
                config.mqtt.usesTLS = try MQTTBrokerAddress(url: url).usesTLS
            } catch {
                throw value.failure(ConfigurationLoader.brokerURLProblem(error))
            }
            return url
        }
    }
}
