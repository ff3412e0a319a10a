/// The limits and permissions the command layer enforces.
public struct CommandPolicy: Sendable, Equatable {
    /// Allow `lock` (irreversible). Off by default: `commands.lock.enabled: true` turns it on.
    public var lockEnabled: Bool
    /// `wait_for_tag_s` when a request does not say.
    public var defaultWaitForTagSeconds: Double
    /// The largest `wait_for_tag_s` accepted.
    public var maximumWaitForTagSeconds: Double
    /// Requests larger than this are refused (`invalid_request`).
    public var maximumPayloadBytes: Int
    /// Requests that may wait behind the running one; one more is refused with `busy`.
    public var queueCapacity: Int
    /// Final results remembered for repeated ids (least recently used dropped first).
    public var resultCacheCapacity: Int

    /// Creates a policy; what is not given is the configuration's default
    /// (``AgentConfiguration/CommandSettings``).
    public init(
        lockEnabled: Bool = AgentConfiguration.CommandSettings.defaults.lockEnabled, defaultWaitForTagSeconds: Double = AgentConfiguration.CommandSettings.defaults.defaultWaitForTagSeconds,
        maximumWaitForTagSeconds: Double = AgentConfiguration.CommandSettings.defaults.maximumWaitForTagSeconds,
        maximumPayloadBytes: Int = AgentConfiguration.CommandSettings.defaults.maximumPayloadBytes, queueCapacity: Int = AgentConfiguration.CommandSettings.defaults.queueCapacity,
        resultCacheCapacity: Int = AgentConfiguration.CommandSettings.defaults.resultCacheCapacity
    ) {
        self.lockEnabled = lockEnabled
        self.defaultWaitForTagSeconds = defaultWaitForTagSeconds
        self.maximumWaitForTagSeconds = maximumWaitForTagSeconds
        self.maximumPayloadBytes = maximumPayloadBytes
        self.queueCapacity = queueCapacity
        self.resultCacheCapacity = resultCacheCapacity
    }

    /// The policy of a configuration.
    public init(_ configuration: AgentConfiguration) {
        let commands = configuration.commands
        self.init(
            lockEnabled: commands.lockEnabled, defaultWaitForTagSeconds: commands.defaultWaitForTagSeconds,
            maximumWaitForTagSeconds: commands.maximumWaitForTagSeconds, maximumPayloadBytes: commands.maximumPayloadBytes,
            queueCapacity: commands.queueCapacity, resultCacheCapacity: commands.resultCacheCapacity)
    }
}
