/// A refinement step a reader could not take, and why: the tag is still identified, read and written,
/// but less exactly than the step would have made it (a PC/SC reader without a way to send GET_VERSION
/// gives the type from its ATR and the CC's size instead of the exact product).
public struct RefinementGap: Sendable, Hashable, Codable {
    /// The step, with its command: "GET_VERSION (60h)".
    public var step: String
    /// Why it was not taken, and what stands in for it.
    public var reason: String

    public init(step: String, reason: String) {
        self.step = step
        self.reason = reason
    }
}
