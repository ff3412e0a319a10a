/// The bit stream the host sees when it turns the CIU's parity handling off (CIU_ManualRCV bit 4):
/// each byte travels LSB first followed by its odd parity bit, and the whole stream is packed LSB
/// first into bytes (ISO/IEC 14443-3 §6.2.3.2; libnfc's `pn53x_wrap_frame` / `pn53x_unwrap_frame`).
/// Frames shorter than 9 bits carry no parity and pass unchanged.
enum ISO14443AParityFraming {
    /// Data bytes from a host frame of `bitCount` bits; nil when a parity bit is wrong.
    static func unwrap(_ frame: [UInt8], bitCount: Int) -> [UInt8]? {
        guard bitCount >= 9 else { return frame }
        var bytes: [UInt8] = []
        var position = 0
        while position + 9 <= bitCount {
            var byte: UInt8 = 0
            for bit in 0..<8 where bitAt(frame, position + bit) { byte |= 1 << bit }
            guard bitAt(frame, position + 8) == oddParity(byte) else { return nil }
            bytes.append(byte)
            position += 9
        }
        return bytes
    }

    /// The host's view of `bytes` with parity bits inserted, and how many bits are valid in the
    /// last byte (0 = all 8), which the CIU reports as RxLastBits.
    static func wrap(_ bytes: [UInt8]) -> (frame: [UInt8], lastBits: UInt8) {
        var frame: [UInt8] = []
        var bitCount = 0
        func append(_ bit: Bool) {
            if bitCount % 8 == 0 { frame.append(0) }
            if bit { frame[frame.count - 1] |= 1 << (bitCount % 8) }
            bitCount += 1
        }
        for byte in bytes {
            for bit in 0..<8 { append(byte & (1 << bit) != 0) }
            append(oddParity(byte))
        }
        return (frame, UInt8(bitCount % 8))
    }

    private static func bitAt(_ frame: [UInt8], _ index: Int) -> Bool {
        frame[index / 8] & (1 << (index % 8)) != 0
    }

    /// The parity bit that makes the number of ones in byte + bit odd.
    private static func oddParity(_ byte: UInt8) -> Bool {
        byte.nonzeroBitCount % 2 == 0
    }
}
