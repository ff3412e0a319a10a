import FoundationEssentials

extension Sequence where Element == UInt8 {
    /// Uppercase hex with no separators ("04A1B2"), the form used in JSON exports and MQTT payloads.
    public var hexString: String {
        var out = ""
        for byte in self {
            out += Self.hexDigits[Int(byte >> 4)]
            out += Self.hexDigits[Int(byte & 0x0F)]
        }
        return out
    }

    /// Uppercase hex with a space between bytes ("04 A1 B2"), the form of Flipper files and logs.
    public var spacedHexString: String {
        map { [Self.hexDigits[Int($0 >> 4)], Self.hexDigits[Int($0 & 0x0F)]].joined() }.joined(separator: " ")
    }

    private static var hexDigits: [String] {
        ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
    }
}

extension Array where Element == UInt8 {
    /// Parses hex text. Spaces, tabs, newlines, colons and dashes between digits are ignored; an
    /// optional `0x` prefix is accepted. Returns `nil` for an odd number of digits or a non-hex character.
    public init?(hex: String) {
        var text = Substring(hex)
        if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for scalar in text.utf8 {
            let nibble: UInt8
            switch scalar {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = scalar - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = scalar - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = scalar - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                UInt8(ascii: ":"), UInt8(ascii: "-"):
                continue
            default:
                return nil
            }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        if high != nil { return nil }
        self = bytes
    }
}

extension UInt8 {
    /// Two uppercase hex digits ("0A").
    public var hexString: String { [self].hexString }
}
