/// A value that is written as `null` when absent (the synthesised `Encodable` leaves a nil optional
/// out; `info.config` shows every key).
package struct OrNull<Wrapped: Encodable & Sendable>: Encodable, Sendable {
    /// The value, if any.
    package var value: Wrapped?

    /// Wraps `value`.
    package init(_ value: Wrapped?) { self.value = value }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
