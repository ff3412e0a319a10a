/// How the client's own reconnect loop backs off between connection attempts.
///
/// Delay before retry *n* (n ≥ 1) = `min(maximumDelay, initialDelay × 2^(n−1))`, then spread by
/// ±`jitter` (a fraction) so a fleet of readers that lost the same broker does not reconnect in step.
/// The attempt counter goes back to zero after every successful CONNACK.
public struct MQTTReconnectPolicy: Sendable, Hashable {
    /// Delay before the first retry.
    public var initialDelay: Duration
    /// Upper bound of the delay (before jitter).
    public var maximumDelay: Duration
    /// Random spread as a fraction of the delay, 0…1 (0.2 = ±20 %).
    public var jitter: Double

    /// Creates a policy; defaults: 0.5 s doubling up to 30 s, ±20 % jitter.
    public init(initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30),
                jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
    }
}
