/// Key or password bytes (a DESFire AES key, an Ultralight C 3DES key, an NTAG21x password) that never
/// show: `description`, `debugDescription`, a `Mirror` (`dump(_:)`, `print`), string interpolation and
/// `Encodable` all give `<redacted>`, so a key cannot reach a log line, an event, a dump, an export,
/// `info`, `health` or an error message by being printed or encoded. Only the protocol step that
/// needs the bytes reads ``revealed``.
public struct SecretBytes: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable, Encodable
{
    /// The bytes: hand them to a cipher and nowhere else.
    public let revealed: [UInt8]

    /// Wraps `bytes`.
    public init(_ bytes: [UInt8]) {
        revealed = bytes
    }

    /// The number of bytes (safe to show: it names the key type, not the key).
    public var count: Int { revealed.count }

    /// What every textual form of a secret shows.
    public static let redacted = "<redacted>"

    public var description: String { Self.redacted }
    public var debugDescription: String { Self.redacted }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Encodes ``redacted``, never the bytes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Self.redacted)
    }
}
