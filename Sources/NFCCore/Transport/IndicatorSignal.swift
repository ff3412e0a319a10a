/// What a reader shows and sounds for the person at it: a light and a number of beeps.
public struct IndicatorSignal: Sendable, Hashable {
    /// The reader's LEDs after the signal (two-colour readers: both on reads as orange on an ACR122U).
    public enum Light: String, Sendable, Hashable, CaseIterable, Codable {
        case off, green, red, both
        var red: Bool { self == .red || self == .both }
        var green: Bool { self == .green || self == .both }
    }

    /// The most beeps one signal may ask for.
    public static let maximumBeeps = 5

    public var light: Light
    /// 0 … ``maximumBeeps``.
    public var beeps: Int

    /// A signal; `beeps` is clamped to 0 … ``maximumBeeps``.
    public init(light: Light, beeps: Int = 0) {
        self.light = light
        self.beeps = min(max(beeps, 0), Self.maximumBeeps)
    }

    /// True when the red LED is on.
    public var isRed: Bool { light.red }
    /// True when the green LED is on.
    public var isGreen: Bool { light.green }
}

/// A reader with an LED and a buzzer of its own that NFCBridge can drive (PC/SC ACR122U, ACR1252U,
/// ACR1552U). Not libnfc's devices: libnfc 1.8's API has no call that reaches the reader rather than the
/// tag (its acr122 drivers keep their LED command internal), so an ACR122U under libnfc has none here.
public protocol IndicatorDriving: ReaderDevice {
    /// Shows `signal`. Throws ``NFCError/unsupportedOperation(_:)`` when this reader (or its driver)
    /// has no LED or buzzer NFCBridge can reach.
    func indicate(_ signal: IndicatorSignal) async throws
}
