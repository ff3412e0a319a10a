/// ISO/IEC 14443 checksums and the UID check byte.
public enum ISO14443 {
    /// CRC_A of ISO/IEC 14443-3 §6.2.4 (initial value 0x6363, polynomial x^16+x^12+x^5+1, LSB first).
    /// Returned in transmission order: low byte first. `crcA([0x30, 0x04]) == [0x26, 0xEE]`.
    public static func crcA(_ data: [UInt8]) -> [UInt8] {
        crc(data, initial: 0x6363, invert: false)
    }

    /// CRC_B of ISO/IEC 14443-3 Annex B (initial value 0xFFFF, result inverted), low byte first.
    /// `crcB([0x05, 0x00]) == [0xFF, 0x71]`.
    public static func crcB(_ data: [UInt8]) -> [UInt8] {
        crc(data, initial: 0xFFFF, invert: true)
    }

    /// Block check character: XOR of the bytes (ISO/IEC 14443-3 §6.5.3.3). For cascade level 1 of a
    /// 7-byte UID the cascade tag 0x88 is included: `bcc([0x88] + uid[0..<3])`.
    public static func bcc(_ data: [UInt8]) -> UInt8 {
        data.reduce(0, ^)
    }

    /// True when `frame` ends with a correct CRC_A over the bytes before it.
    public static func hasValidCRCA(_ frame: [UInt8]) -> Bool {
        guard frame.count >= 2 else { return false }
        return crcA(Array(frame.dropLast(2))) == Array(frame.suffix(2))
    }

    private static func crc(_ data: [UInt8], initial: UInt16, invert: Bool) -> [UInt8] {
        var crc = initial
        for byte in data {
            var b = byte ^ UInt8(truncatingIfNeeded: crc)
            b ^= b << 4
            let b16 = UInt16(b)
            crc = (crc >> 8) ^ (b16 << 8) ^ (b16 << 3) ^ (b16 >> 4)
        }
        if invert { crc = ~crc }
        return [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)]
    }
}
