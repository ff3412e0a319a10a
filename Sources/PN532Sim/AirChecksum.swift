/// The checks a type A or type B frame carries on the air, computed here from ISO/IEC 14443-3's own
/// definitions so the simulated chip never checks a frame with the code it is meant to test.
///
/// - CRC_A (§6.2.4 and Annex B): the CCITT polynomial x¹⁶ + x¹² + x⁵ + 1, bits taken least significant
///   first (so shifted right against 8408h), register preset to 6363h, no final inversion; the low
///   byte goes first on the air. Annex B's example: 00 00 → A0 1E, 12 34 → 26 CF.
/// - CRC_B (§7.2 and Annex B): the same polynomial, preset FFFFh, the register inverted at the end.
///   Annex B's example: 0F AA FF → FC D1 (it is CRC-16/X-25: "123456789" → 906Eh).
/// - BCC (§6.5.3.2): the exclusive or of the 4 UID bytes of a cascade level.
enum AirChecksum {
    /// CRC_A of `data`, low byte first.
    static func crcA(_ data: [UInt8]) -> [UInt8] {
        crc16(data, preset: 0x6363, invertAtEnd: false)
    }

    /// CRC_B of `data`, low byte first.
    static func crcB(_ data: [UInt8]) -> [UInt8] {
        crc16(data, preset: 0xFFFF, invertAtEnd: true)
    }

    /// BCC of a cascade level's 4 bytes (CT and 3 UID bytes, or 4 UID bytes).
    static func bcc(_ level: [UInt8]) -> UInt8 {
        var check: UInt8 = 0
        for byte in level { check ^= byte }
        return check
    }

    /// Whether the last 2 bytes of `frame` are the CRC_A of the bytes before them.
    static func endsWithCRCA(_ frame: [UInt8]) -> Bool {
        guard frame.count >= 3 else { return false }
        return crcA(Array(frame.dropLast(2))) == Array(frame.suffix(2))
    }

    /// Bit by bit, least significant bit of each byte first, as the frame goes out.
    private static func crc16(_ data: [UInt8], preset: UInt16, invertAtEnd: Bool) -> [UInt8] {
        var register = preset
        for byte in data {
            for bit in 0..<8 {
                let incoming = UInt16((byte >> UInt8(bit)) & 1)
                let feedback = (register ^ incoming) & 1
                register >>= 1
                if feedback == 1 { register ^= 0x8408 }
            }
        }
        if invertAtEnd { register = ~register }
        return [UInt8(register & 0xFF), UInt8(register >> 8)]
    }
}
