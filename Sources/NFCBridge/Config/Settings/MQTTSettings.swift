import MQTTClient

extension AgentConfiguration {
    /// The MQTT protocol version spoken to the broker.
    package enum MQTTProtocolVersion: String, Sendable, Equatable, CaseIterable, Encodable {
        /// MQTT 3.1.1.
        case v311 = "3.1.1"
        /// MQTT 5.
        case v5 = "5"
    }

    /// `mqtt.url`: one broker URL, or the nodes of a cluster (1…16, one scheme), tried in order:
    /// after a node fails, the next one. In `info.config` one URL stays a string, a list a list.
    package struct BrokerURLs: Sendable, Equatable, Encodable {
        /// The first node: the one the agent tries first.
        package var first: String
        /// The other nodes, in order.
        package var others: [String] = []

        /// One broker.
        package init(_ url: String) { first = url }

        /// Every node, in order.
        package var all: [String] { [first] + others }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if others.isEmpty { try container.encode(first) } else { try container.encode(all) }
        }
    }

    /// The broker connection.
    package struct MQTTSettings: Sendable, Equatable {
        /// The broker URL(s) (`mqtt://host:1883`, `mqtts://host:8883`), checked with `MQTTBrokerAddress`.
        package var brokers = BrokerURLs("mqtt://localhost:1883")
        /// The first broker URL; setting it sets the only one.
        package var url: String {
            get { brokers.first }
            set { brokers = BrokerURLs(newValue) }
        }
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
            ConfigurationKey("mqtt.url", \.mqtt.brokers, .brokerURLs),
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

extension ConfigurationRule where Value == AgentConfiguration.BrokerURLs {
    /// The most broker URLs `mqtt.url` takes (a cluster's nodes; MQTTClient's limit).
    static let maximumBrokers = 16

    /// A broker URL `MQTTBrokerAddress` takes, or a list of 1…16 of them (no repeats, all `mqtt://`
    /// or all `mqtts://`); sets ``AgentConfiguration/MQTTSettings/usesTLS``.
    static var brokerURLs: Self {
        Self { value, config throws(ConfigurationError) in
            let items: [ConfigurationValue]
            if case let .sequence(nodes, _) = value.node {
                items = nodes.map { ConfigurationValue(node: $0, key: value.key, source: value.source) }
                guard (1...maximumBrokers).contains(items.count) else {
                    throw value.failure("must list 1 to \(maximumBrokers) broker URLs, got \(items.count)")
                }
            } else {
                items = [value]
            }
            var urls: [String] = []
            var schemes: Set<Bool> = []
            for item in items {
                let url = try item.nonEmptyString()
                do throws(MQTTClientError) {
                    schemes.insert(try MQTTBrokerAddress(url: url).usesTLS)
                } catch {
                    throw item.failure(ConfigurationLoader.brokerURLProblem(error))
                }
                guard !urls.contains(url) else { throw item.failure("\(ConfigurationError.quoted(url)) is listed twice") }
                guard schemes.count == 1 else {
                    throw item.failure("mixes mqtt:// and mqtts://: every node of the list must use the same scheme")
                }
                urls.append(url)
            }
            guard let first = urls.first else { throw value.failure("must list at least one broker URL") }
            config.mqtt.usesTLS = schemes.contains(true)
            var brokers = AgentConfiguration.BrokerURLs(first)
            brokers.others = Array(urls.dropFirst())
            return brokers
        }
    }
}
