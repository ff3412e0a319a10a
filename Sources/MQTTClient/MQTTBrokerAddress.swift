/// Where the broker is, parsed from an `mqtt://host[:port]` or `mqtts://host[:port]` URL.
///
/// Accepted: a host name, an IPv4 address or a bracketed IPv6 address (`mqtt://[::1]:1883`), an
/// optional port 1…65535 (default 1883, or 8883 for `mqtts`) and an optional trailing `/`.
/// Refused with `invalid_url`: other schemes, user info (`user:pw@` — credentials belong in the
/// configuration), paths, queries and fragments.
public struct MQTTBrokerAddress: Sendable, Hashable {
    /// Host name or address, without IPv6 brackets.
    public var host: String
    /// TCP port.
    public var port: Int
    /// `true` for `mqtts://`.
    public var usesTLS: Bool

    /// The default port of each scheme (IANA registrations for MQTT).
    static let defaultPorts: [String: (port: Int, tls: Bool)] = ["mqtt": (1883, false), "mqtts": (8883, true)]

    /// Parses a broker URL.
    /// - Throws: `MQTTClientError.invalidURL` when the text is not a broker URL of the form above.
    public init(url: String) throws(MQTTClientError) {
        func invalid(_ why: String) -> MQTTClientError { .invalidURL(url: url, reason: why) }
        // The scheme ends at the first colon (RFC 3986 §3.1: a scheme holds none), and `//` follows it.
        // A search on the UTF-8 view, not `firstRange(of:)`: that one brings _StringProcessing's searcher
        // (and its 400 kB of code around it) into every agent's resident set (issue 25).
        guard let colon = url.utf8.firstIndex(of: UInt8(ascii: ":")), url.utf8[colon...].starts(with: "://".utf8)
        else {
            throw invalid("expected mqtt://host:port or mqtts://host:port")
        }
        let scheme = url[..<colon].lowercased()
        guard let defaults = Self.defaultPorts[scheme] else { throw invalid("unsupported scheme '\(scheme)'") }
        var authority = url[colon...].dropFirst(3)
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        if authority.contains(where: { "/?#".contains($0) }) { throw invalid("a broker URL has no path, query or fragment") }
        if authority.contains("@") { throw invalid("credentials go in username/password, not in the URL") }

        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw invalid("unterminated IPv6 address") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid("unexpected text after the IPv6 address") }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw invalid("missing host") }
        guard !host.contains(where: { $0.isWhitespace }) else { throw invalid("the host contains white space") }
        var port = defaults.port
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), portText.count <= 5,
                let value = Int(portText), (1...65535).contains(value)
            else { throw invalid("port must be a number from 1 to 65535") }
            port = value
        }
        self.host = String(host)
        self.port = port
        self.usesTLS = defaults.tls
    }
}
