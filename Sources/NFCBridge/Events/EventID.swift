import FoundationEssentials
import Glibc

/// Event ids: ULIDs (26 characters of Crockford base 32: 48 bits of milliseconds since 1970, then
/// 80 random bits). They sort by creation time and let consumers drop the duplicates QoS 1 and
/// spool replays can produce.
package enum EventID {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// A new id for an event created at `date`.
    package static func make(at date: Date) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(at: date, using: &generator)
    }

    /// A new id with the randomness from `generator` (tests pin it).
    package static func make(at date: Date, using generator: inout some RandomNumberGenerator) -> String {
        let milliseconds = UInt64(max(0, Timestamp.milliseconds(date)))
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - i))) }
        for i in 6..<16 { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        // 128 bits → 26 base-32 digits; the first digit carries only the top 3 bits.
        var text: [UInt8] = []
        text.reserveCapacity(26)
        var accumulator: UInt32 = 0
        var bits = 2  // pad 128 bits to 130 so they split into 26 groups of 5
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                text.append(alphabet[Int((accumulator >> UInt32(bits)) & 0x1F)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
