/// How long things take in the emulated PN532: the serial line and the chip's RF time-outs.
///
/// The chip delays follow the model that libnfc's timeouts were checked against
/// (docs/simulator.md, "Timing"): a silent tag costs RetryTimeout × (MaxRtyCOM + 1); an empty
/// InListPassiveTarget 5 ms × (MxRtyPassiveActivation + 1); an InAutoPoll gives up after
/// PollNr × types × Period × 150 ms. Real PN532 timings for these cases are not verified.
public struct PN532Timing: Sendable, Equatable {
    /// Baud rate of the modelled serial line, or nil for an instant line.
    public var baudRate: Int?
    /// Factor applied to chip delays (not to line time): 1 = real scale, 0.05 = twenty times faster.
    public var timeScale: Double

    /// Creates a timing model.
    public init(baudRate: Int? = nil, timeScale: Double = 1) {
        self.baudRate = baudRate
        self.timeScale = timeScale
    }

    /// Time `count` bytes take on the line: 10 bit times each (start, 8 data, stop), ≈ 87 µs at 115200.
    public func lineTime(bytes count: Int) -> Duration {
        guard let baudRate, baudRate > 0 else { return .zero }
        return .nanoseconds(Int64(count) * 10 * 1_000_000_000 / Int64(baudRate))
    }

    /// A chip delay after scaling.
    public func chip(_ delay: Duration) -> Duration {
        delay * timeScale
    }

    /// RFConfiguration item 02 RetryTimeout / ATR_RES timeout code n → 100 µs × 2^(n−1)
    /// (UM0701-02 §7.3.1; 0x0A = 51.2 ms, 0x10 = 3.28 s, 0 = no wait).
    public static func retryTimeout(code: UInt8) -> Duration {
        guard code > 0 else { return .zero }
        return .microseconds(100 << Int(min(code, 0x10) - 1))
    }

    /// One InListPassiveTarget activation attempt in an empty field.
    public static let passiveActivationAttempt: Duration = .milliseconds(5)
    /// One InAutoPoll period unit (UM0701-02 §7.3.13: Period × 150 ms per type).
    public static let autoPollPeriodUnit: Duration = .milliseconds(150)
}
