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

    /// Creates a policy.
    public init(
        lockEnabled: Bool = false, defaultWaitForTagSeconds: Double = 30, maximumWaitForTagSeconds: Double = 3600,
        maximumPayloadBytes: Int = 256 * 1024, queueCapacity: Int = 8, resultCacheCapacity: Int = 256
    ) {
        self.lockEnabled = lockEnabled
        self.defaultWaitForTagSeconds = defaultWaitForTagSeconds
        self.maximumWaitForTagSeconds = maximumWaitForTagSeconds
        self.maximumPayloadBytes = maximumPayloadBytes
        self.queueCapacity = queueCapacity
        self.resultCacheCapacity = resultCacheCapacity
    }

    /// The policy of a configuration (`commands.lock.enabled`; the rest are the defaults).
    public init(_ configuration: AgentConfiguration) {
        self.init(lockEnabled: configuration.commands.lockEnabled)
    }
}
