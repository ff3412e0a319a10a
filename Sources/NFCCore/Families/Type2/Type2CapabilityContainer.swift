/// The capability container of a Type 2 tag: page 3, four one-time-programmable bytes.
///
/// Byte 0 is the NDEF magic number E1h, byte 1 the mapping version (major in the high nibble, 1 for
/// version 1.x), byte 2 the data area size divided by 8, byte 3 the access conditions (read access in
/// the high nibble, write access in the low nibble: 0h = free, Fh = never). Sources: NFC Forum T2T
/// (capability container), NTAG213/215/216 §8.5.4, MF0ICU1 §8.5.3 (page 3 is OTP: a WRITE ORs the new
/// bits into it, bits once set stay set).
public struct Type2CapabilityContainer: Sendable, Hashable, CustomStringConvertible {
    /// NDEF magic number.
    public static let ndefMagic: UInt8 = 0xE1
    /// Mapping version 1.0.
    public static let version10: UInt8 = 0x10

    /// The four bytes.
    public let bytes: [UInt8]

    /// Wraps page 3; nil unless exactly 4 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 else { return nil }
        self.bytes = bytes
    }

    /// A version 1.0 CC for a data area of `dataAreaSize` bytes (rounded down to 8, at most 2040),
    /// read and write access free: `E1 10 size/8 00`.
    public init(dataAreaSize: Int) {
        bytes = [Self.ndefMagic, Self.version10, UInt8(max(0, min(dataAreaSize / 8, 255))), 0x00]
    }

    /// True when byte 0 is the NDEF magic number.
    public var isNDEF: Bool { bytes[0] == Self.ndefMagic }
    /// Major mapping version.
    public var majorVersion: Int { Int(bytes[1] >> 4) }
    /// Size of the data area in bytes (byte 2 × 8).
    public var dataAreaSize: Int { Int(bytes[2]) * 8 }
    /// Read access nibble (0h = free).
    public var readAccess: UInt8 { bytes[3] >> 4 }
    /// Write access nibble (0h = free, Fh = no write access).
    public var writeAccess: UInt8 { bytes[3] & 0x0F }
    /// True when the CC grants write access (nibble 0h).
    public var isWritable: Bool { writeAccess == 0 }

    /// True for an NDEF CC of mapping version 1.x with free read and write access and a data area of
    /// `1…maxDataAreaSize` bytes — one a format can keep.
    public func isUsableNDEF(maxDataAreaSize: Int) -> Bool {
        isNDEF && majorVersion == 1 && bytes[3] == 0 && dataAreaSize > 0 && dataAreaSize <= maxDataAreaSize
    }

    /// True when writing `other` (which the tag ORs in) turns this CC into exactly `other`: every bit set
    /// here is set there too.
    public func canBecome(_ other: Type2CapabilityContainer) -> Bool {
        zip(bytes, other.bytes).allSatisfy { current, wanted in current & ~wanted == 0 }
    }

    public var description: String { bytes.hexString }
}
