extension AgentConfiguration {
    /// Remote commands. ``lockEnabled``, the signature settings and ``idempotencyWindowSeconds``
    /// are configuration keys; the limits are fixed (and documented in docs/mqtt.md, "Commands") but
    /// live here so they have one source.
    package struct CommandSettings: Sendable, Equatable {
        /// Allow the irreversible `lock` command (off by default).
        package var lockEnabled = false
        /// `commands.require_signature`: every request must be signed (``signatureKey``). With a key
        /// and without this, only `lock` must be signed.
        package var requireSignature = false
        /// `commands.signature_key_file`: the file holding the HMAC key (its first line).
        package var signatureKeyFile: String?
        /// The HMAC-SHA256 key: the bytes of the first line of ``signatureKeyFile``. Never published.
        package var signatureKey: Secret?
        /// `commands.signature_window_s`: how far a signed request's `ts` may be from the agent's clock.
        package var signatureWindowSeconds = 300
        /// `commands.idempotency_window_s`: how long a final result is kept for a repeated `id`.
        package var idempotencyWindowSeconds = 86_400
        /// `wait_for_tag_s` when a request does not say.
        package var defaultWaitForTagSeconds: Double = 30
        /// The largest `wait_for_tag_s` accepted.
        package var maximumWaitForTagSeconds: Double = 3600
        /// Requests larger than this are refused (`invalid_request`).
        package var maximumPayloadBytes = 256 * 1024
        /// Requests that may wait behind the running one.
        package var queueCapacity = 8
        /// Final results remembered for repeated ids.
        package var resultCacheCapacity = 256
        package init() {}

        /// Every default (``CommandPolicy``'s arguments start from these).
        package static let defaults = CommandSettings()

        /// The shortest signing key accepted (bytes). `openssl rand -hex 32` makes a 64-byte one.
        package static let minimumSignatureKeyBytes = 16

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
