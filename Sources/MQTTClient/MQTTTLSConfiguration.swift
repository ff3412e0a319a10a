/// TLS settings for an `mqtts://` connection (wraps `mosquitto_tls_set`, `mosquitto_tls_opts_set`,
/// `mosquitto_tls_insecure_set` and `MOSQ_OPT_TLS_USE_OS_CERTS`).
public struct MQTTTLSConfiguration: Sendable, Hashable {
    /// PEM file with the CA certificate(s) that signed the broker's certificate. When neither this nor
    /// `caDirectory` is set, the operating system's trust store is used.
    public var caFile: String?
    /// Directory of hashed CA certificates (`c_rehash` layout).
    public var caDirectory: String?
    /// PEM client certificate, for brokers that `require_certificate`. Needs `keyFile`.
    public var certificateFile: String?
    /// PEM private key of `certificateFile` (unencrypted).
    public var keyFile: String?
    /// Check that the broker certificate names the host in the URL. ON by default; switching it off
    /// (libmosquitto's "tls_insecure") lets anyone with a certificate from the same CA impersonate the
    /// broker — only ever for a lab set-up, and only when asked for explicitly.
    public var verifyHostname: Bool
    /// Check that the broker certificate chains to a trusted CA (`mosquitto_tls_opts_set` cert_reqs
    /// `SSL_VERIFY_PEER`). ON by default; off (`SSL_VERIFY_NONE`) the broker is not verified in any
    /// way — the link is encrypted but anyone in the path can pose as the broker. Lab use only.
    public var verifyCertificate: Bool
    /// Minimum TLS version as libmosquitto spells it: `tlsv1.2` (default) or `tlsv1.3`.
    /// (Debian 12's libmosquitto 2.0.11 still allows TLS 1.1 unless told otherwise.)
    public var minimumVersion: String

    /// Creates TLS settings; certificate and hostname verification are on.
    public init(caFile: String? = nil, caDirectory: String? = nil, certificateFile: String? = nil,
                keyFile: String? = nil, verifyHostname: Bool = true, verifyCertificate: Bool = true,
                minimumVersion: String = "tlsv1.2") {
        self.caFile = caFile
        self.caDirectory = caDirectory
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.verifyHostname = verifyHostname
        self.verifyCertificate = verifyCertificate
        self.minimumVersion = minimumVersion
    }
}
