/// The limits and permissions the command layer enforces.
package struct CommandPolicy: Sendable, Equatable {
    /// Allow `lock` (irreversible). Off by default: `commands.lock.enabled: true` turns it on.
    package var lockEnabled: Bool
    /// `wait_for_tag_s` when a request does not say.
    package var defaultWaitForTagSeconds: Double
    /// The largest `wait_for_tag_s` accepted.
    package var maximumWaitForTagSeconds: Double
    /// Requests larger than this are refused (`invalid_request`).
    package var maximumPayloadBytes: Int
    /// Requests that may wait behind the running one; one more is refused with `busy`.
    package var queueCapacity: Int
    /// Final results remembered for repeated ids (least recently used dropped first).
    package var resultCacheCapacity: Int
    /// How long a final result is remembered for a repeated id, in seconds.
    package var idempotencyWindowSeconds: Int
    /// Every request must be signed (`commands.require_signature`). With a verifier and without
    /// this, only `lock` must be (see ``requiresSignature(_:hasKey:)``).
    package var requireSignature: Bool

    /// Creates a policy; what is not given is the configuration's default
    /// (``AgentConfiguration/CommandSettings``).
    package init(
        lockEnabled: Bool = AgentConfiguration.CommandSettings.defaults.lockEnabled, defaultWaitForTagSeconds: Double = AgentConfiguration.CommandSettings.defaults.defaultWaitForTagSeconds,
        maximumWaitForTagSeconds: Double = AgentConfiguration.CommandSettings.defaults.maximumWaitForTagSeconds,
        maximumPayloadBytes: Int = AgentConfiguration.CommandSettings.defaults.maximumPayloadBytes, queueCapacity: Int = AgentConfiguration.CommandSettings.defaults.queueCapacity,
        resultCacheCapacity: Int = AgentConfiguration.CommandSettings.defaults.resultCacheCapacity,
        idempotencyWindowSeconds: Int = AgentConfiguration.CommandSettings.defaults.idempotencyWindowSeconds,
        requireSignature: Bool = AgentConfiguration.CommandSettings.defaults.requireSignature
    ) {
        self.lockEnabled = lockEnabled
        self.defaultWaitForTagSeconds = defaultWaitForTagSeconds
        self.maximumWaitForTagSeconds = maximumWaitForTagSeconds
        self.maximumPayloadBytes = maximumPayloadBytes
        self.queueCapacity = queueCapacity
        self.resultCacheCapacity = resultCacheCapacity
        self.idempotencyWindowSeconds = idempotencyWindowSeconds
        self.requireSignature = requireSignature
    }

    /// Whether `command` must come signed: every command with ``requireSignature``; otherwise `lock`
    /// whenever a signature key is configured (`hasKey`) — the one command that cannot be undone.
    package func requiresSignature(_ command: String, hasKey: Bool) -> Bool {
        guard hasKey else { return false }
        return requireSignature || command == CommandName.lock.rawValue
    }

    /// Why an encode job's `lock` step may not run whoever asks (``lockEnabled`` is off), or nil: what
    /// a job the agent resumes at start is held to (its start was checked for a signature).
    package var lockDisabledRefusal: CommandError? {
        lockEnabled ? nil : CommandError(.notPermitted, "the job's step lock is disabled: set commands.lock.enabled: true in the configuration")
    }

    /// Why an encode job's `lock` step may not run, or nil when it may: the rules of `request/lock`
    /// (``lockEnabled``, and a signed request when a signature key is configured, `hasKey`). `signed`:
    /// the request that starts or resumes the job was signed (a job the agent resumes at start was
    /// checked when it started: ``lockDisabledRefusal``).
    package func jobLockRefusal(signed: Bool, hasKey: Bool) -> CommandError? {
        if let lockDisabledRefusal { return lockDisabledRefusal }
        guard signed || !hasKey else {
            return CommandError(
                .notPermitted,
                "a job with the step lock needs a signed request when commands.signature_key_file is set; see docs/mqtt.md, \"Signed requests\"")
        }
        return nil
    }

    /// The policy of a configuration.
    package init(_ configuration: AgentConfiguration) {
        let commands = configuration.commands
        self.init(
            lockEnabled: commands.lockEnabled, defaultWaitForTagSeconds: commands.defaultWaitForTagSeconds,
            maximumWaitForTagSeconds: commands.maximumWaitForTagSeconds, maximumPayloadBytes: commands.maximumPayloadBytes,
            queueCapacity: commands.queueCapacity, resultCacheCapacity: commands.resultCacheCapacity,
            idempotencyWindowSeconds: commands.idempotencyWindowSeconds, requireSignature: commands.requireSignature)
    }
}
