import Foundation

/// Where the broker is: host, port and whether TLS is used, parsed from a `mqtt://` / `mqtts://` URL.
public struct MQTTEndpoint: Sendable, Equatable {
    /// Host name or address.
    public var host: String
    /// TCP port.
    public var port: Int
    /// True for `mqtts://` (and `ssl://`).
    public var usesTLS: Bool
    /// User name given in the URL (`mqtt://user@host`), if any.
    public var username: String?

    /// Creates an endpoint.
    public init(host: String, port: Int, usesTLS: Bool, username: String? = nil) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.username = username
    }

    /// The URL schemes accepted, whether each means TLS, and its default port.
    static let schemes: [String: (tls: Bool, port: Int)] = [
        "mqtt": (false, 1883), "tcp": (false, 1883), "mqtts": (true, 8883), "ssl": (true, 8883),
    ]

    /// Parses a broker URL. Returns a message saying what is wrong otherwise. A password inside the
    /// URL is refused: it would end up in logs and in `info`; use `mqtt.password_file` or
    /// `NFCBRIDGE_MQTT_PASSWORD`.
    public static func parse(_ text: String) -> Result<MQTTEndpoint, ParseFailure> {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return .failure(ParseFailure("'\(text)' is not a URL such as mqtt://host:1883"))
        }
        guard let kind = schemes[scheme] else {
            return .failure(ParseFailure("unsupported scheme '\(scheme)' (use mqtt:// or mqtts://)"))
        }
        guard let host = components.host, !host.isEmpty else {
            return .failure(ParseFailure("the URL '\(text)' has no host"))
        }
        if components.password != nil {
            return .failure(
                ParseFailure("do not put the password in the URL; use mqtt.password_file or NFCBRIDGE_MQTT_PASSWORD"))
        }
        if !(components.path.isEmpty || components.path == "/") || components.query != nil {
            return .failure(ParseFailure("the broker URL takes no path or query"))
        }
        let port = components.port ?? kind.port
        guard (1...65535).contains(port) else { return .failure(ParseFailure("port \(port) is out of range")) }
        return .success(MQTTEndpoint(host: host, port: port, usesTLS: kind.tls, username: components.user))
    }

    /// Why a URL was refused.
    public struct ParseFailure: Error, Sendable {
        /// The reason.
        public var message: String
        init(_ message: String) { self.message = message }
    }
}
