/// Everything needed to connect to one broker. A `Sendable` value: build it once (from the agent's
/// configuration file, a CLI, a test) and hand it to `MQTTClient`.
///
/// ```swift
/// var configuration = MQTTConfiguration(url: "mqtts://broker.lan:8883", clientID: "reader-1")
/// configuration.username = "reader-1"
/// configuration.password = try String(contentsOfFile: "/etc/nfcbridge/mqtt.pw")
/// configuration.tls = .enabled(MQTTTLSConfiguration(caFile: "/etc/nfcbridge/ca.pem"))
/// configuration.will = MQTTWill(topic: "nfc/reader-1/availability", text: "offline")
/// ```
public struct MQTTConfiguration: Sendable, Hashable {
    /// Broker URL: `mqtt://host[:port]` (default port 1883) or `mqtts://host[:port]` (8883, TLS).
    /// Checked by `MQTTClient.init`, which throws `invalid_url`.
    public var url: String
    /// More nodes of the same broker cluster (same scheme as `url`, at most 15): when a connection
    /// attempt fails or a connection ends, the next attempt goes to the next node in the list
    /// (`url` first, then these, round and round), with the same back-off. Empty: `url` only.
    public var failoverURLs: [String]
    /// Protocol version; `.v5` by default. v5 CONNECT properties travel inside the case.
    public var protocolVersion: MQTTProtocolVersion
    /// Under `.v5`: a node that refuses an MQTT 5 CONNECT as a broker that speaks only MQTT 3.1.1
    /// does — CONNACK 0x84 Unsupported Protocol Version (a 3.1.1 CONNACK with return code 1 reads the
    /// same), or the connection closed after the CONNECT without any CONNACK twice in a row (RabbitMQ
    /// 3.10; after one close the node gets MQTT 5 once more, after `reconnect.initialDelay`, as an
    /// MQTT 5 broker that was restarting must keep it) — is tried again at once with MQTT 3.1.1; once that connects, the node is remembered as 3.1.1 for
    /// the client's life (`.fellBackToV311` on `MQTTClient.events`, once per node). On such a node
    /// publishes go without their v5 properties and subscriptions without their v5 options
    /// (`MQTTClient.speaksV5` says which protocol the connection has). `false`: the refusal is a
    /// connection failure like any other. Default `true`.
    public var fallsBackToV311: Bool
    /// Client identifier. `nil` lets libmosquitto pick a random one, which needs `cleanStart`.
    public var clientID: String?
    /// Keepalive interval: the broker drops the connection (and publishes the will) after 1.5 × this
    /// without traffic. libmosquitto accepts 5 s … 65535 s.
    public var keepAlive: Duration
    /// User name for the broker's password file / auth plugin.
    public var username: String?
    /// Password. Read a password file yourself and put its contents here; never log it.
    public var password: String?
    /// TLS settings (see `MQTTTLS` for how they combine with the URL scheme).
    public var tls: MQTTTLS
    /// The will message, registered with every CONNECT.
    public var will: MQTTWill?
    /// Clean Start (v5) / Clean Session (v3.1.1): `true` starts without any stored session state.
    public var cleanStart: Bool
    /// Back-off of the client's own reconnect loop.
    public var reconnect: MQTTReconnectPolicy
    /// How long one connection attempt may wait for the TCP handshake, and then again for the
    /// broker's CONNACK (the TLS handshake included). A node that drops the SYNs (listen backlog full,
    /// firewall DROP) or accepts TCP and never answers the CONNECT fails the attempt after this, with
    /// `broker_unreachable` "no TCP connection within … s" / "no CONNACK within … s" (a timeout, never
    /// a refusal of MQTT 5), and the next attempt goes to the next node. A stop interrupts the wait.
    /// Default 5 s; at least 100 ms. (The host name lookup before it is not bounded by this.)
    public var connectTimeout: Duration
    /// How many received messages `MQTTClient.messages` buffers when nobody reads them; beyond that the
    /// oldest are dropped (and counted in `MQTTClient.droppedMessageCount`).
    public var messageBufferSize: Int
    /// The largest incoming payload handed on, in bytes; larger messages are dropped before they are
    /// copied out of libmosquitto (counted in `MQTTClient.oversizedMessageCount`). Under v5 pair it
    /// with `MQTTConnectProperties.maximumPacketSize`, so the broker does not send them at all;
    /// v3.1.1 has no way to tell the broker. `nil`: no limit.
    public var maximumIncomingPayload: Int?
    /// The largest PUBLISH packet sent, in bytes (the whole packet, as a broker's `max_packet_size`
    /// counts it: ``MQTTPacketSize``); a larger publish fails with `payload_too_large` before anything
    /// is sent. Under v5 the broker's own Maximum Packet Size from CONNACK applies as well; v3.1.1
    /// has no way for the broker to say it (it disconnects instead), so set this to its limit.
    /// `nil`: MQTT's own limit only.
    public var maximumOutgoingPacket: Int?

    /// Creates a configuration; only the URL is required.
    public init(url: String, failoverURLs: [String] = [], protocolVersion: MQTTProtocolVersion = .v5, clientID: String? = nil,
                keepAlive: Duration = .seconds(60), username: String? = nil, password: String? = nil,
                tls: MQTTTLS = .disabled, will: MQTTWill? = nil, cleanStart: Bool = true,
                reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy(), messageBufferSize: Int = 1024,
                maximumIncomingPayload: Int? = nil, maximumOutgoingPacket: Int? = nil) {
        self.url = url
        self.failoverURLs = failoverURLs
        self.protocolVersion = protocolVersion
        self.fallsBackToV311 = true
        self.connectTimeout = .seconds(5)
        self.clientID = clientID
        self.keepAlive = keepAlive
        self.username = username
        self.password = password
        self.tls = tls
        self.will = will
        self.cleanStart = cleanStart
        self.reconnect = reconnect
        self.messageBufferSize = messageBufferSize
        self.maximumIncomingPayload = maximumIncomingPayload
        self.maximumOutgoingPacket = maximumOutgoingPacket
    }
}

extension MQTTConfiguration: CustomStringConvertible, CustomReflectable {
    /// A one-line summary for logs. The password is never included.
    public var description: String {
        let tlsText: String =
            switch tls {
            case .disabled: url.lowercased().hasPrefix("mqtts:") ? "on (CA: system, verify hostname: true)" : "off"
            case .enabled(let settings): "on (CA: \(settings.caFile ?? settings.caDirectory ?? "system"), "
                + "verify certificate: \(settings.verifyCertificate), verify hostname: \(settings.verifyHostname))"
            }
        let nodes = failoverURLs.isEmpty ? "" : ", failover: \(failoverURLs.joined(separator: " "))"
        return "MQTTConfiguration(url: \(url)\(nodes), protocol: \(protocolVersion.isV5 ? "5.0" : "3.1.1"), "
            + "clientID: \(clientID ?? "<random>"), username: \(username ?? "-"), "
            + "password: \(password == nil ? "-" : "<redacted>"), tls: \(tlsText), will: \(will?.topic ?? "-"), "
            + "cleanStart: \(cleanStart))"
    }

    /// Mirrors only `description`, so `dump()` cannot print the password either.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description])
    }
}
