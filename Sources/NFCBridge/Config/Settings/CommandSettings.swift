extension AgentConfiguration {
    /// Remote commands. ``lockEnabled``, the signature settings and ``idempotencyWindowSeconds``
    /// are configuration keys; the limits are fixed (and documented in docs/mqtt.md, "Commands") but
    /// live here so they have one source.
    public struct CommandSettings: Sendable, Equatable {
        /// Allow the irreversible `lock` command (off by default).
        public var lockEnabled = false
        /// `commands.require_signature`: every request must be signed (``signatureKey``). With a key
        /// and without this, only `lock` must be signed.
        public var requireSignature = false
        /// `commands.signature_key_file`: the file holding the HMAC key (its first line).
        public var signatureKeyFile: String?
        /// The HMAC-SHA256 key: the bytes of the first line of ``signatureKeyFile``. Never published.
        public var signatureKey: Secret?
        /// `commands.signature_window_s`: how far a signed request's `ts` may be from the agent's clock.
        public var signatureWindowSeconds = 300
        /// `commands.idempotency_window_s`: how long a final result is kept for a repeated `id`.
        public var idempotencyWindowSeconds = 86_400
        /// `wait_for_tag_s` when a request does not say.
        public var defaultWaitForTagSeconds: Double = 30
        /// The largest `wait_for_tag_s` accepted.
        public var maximumWaitForTagSeconds: Double = 3600
        /// Requests larger than this are refused (`invalid_request`).
        public var maximumPayloadBytes = 256 * 1024
        /// Requests that may wait behind the running one.
        public var queueCapacity = 8
        /// Final results remembered for repeated ids.
        public var resultCacheCapacity = 256
        public init() {}

        /// Every default (``CommandPolicy``'s arguments start from these).
        public static let defaults = CommandSettings()

        /// The shortest signing key accepted (bytes). `openssl rand -hex 32` makes a 64-byte one.
        public static let minimumSignatureKeyBytes = 16

        /// The `commands` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("commands.lock.enabled", \.commands.lockEnabled, .bool),
            ConfigurationKey("commands.require_signature", \.commands.requireSignature, .bool),
            .secretFile(
                "commands.signature_key_file", file: \.commands.signatureKeyFile, secret: \.commands.signatureKey,
                minimumBytes: minimumSignatureKeyBytes),
            ConfigurationKey("commands.signature_window_s", \.commands.signatureWindowSeconds, .int(in: 10...3600)),
            ConfigurationKey("commands.idempotency_window_s", \.commands.idempotencyWindowSeconds, .int(in: 60...2_592_000)),
        ]
    }
}
