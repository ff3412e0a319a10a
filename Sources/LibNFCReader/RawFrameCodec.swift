import NFCCore

/// Framing the backend does in software when the reader's help is switched off.
///
/// * Raw ISO/IEC 14443-A frames (PN53x `InCommunicateThru` with the CRC bits of TxMode/RxMode
///   cleared): CRC_A is appended to commands and checked and stripped on answers; a 4-bit
///   ACK/NAK (ISO/IEC 14443-3 §6.4, NTAG21x datasheet §9.3) arrives as a single byte.
/// * FeliCa (JIS X 6319-4): every frame starts with its LEN byte, which counts itself.
enum RawFrameCodec {
    /// The 4-bit ACK (Ah); every other 4-bit value is a NAK.
    static let ack: UInt8 = 0x0A

    /// What a raw ISO/IEC 14443-A answer turned out to be.
    enum Answer: Equatable {
        /// A full frame whose CRC_A was right; the CRC is stripped.
        case data([UInt8])
        /// A 4-bit ACK.
        case ack
        /// A 4-bit NAK with its value (0h, 1h, 4h, 5h on NXP tags).
        case nak(UInt8)
    }

    /// `command` followed by its CRC_A, low byte first.
    static func appendingCRCA(_ command: [UInt8]) -> [UInt8] {
        command + ISO14443.crcA(command)
    }

    /// Decodes the bytes libnfc returned for a raw exchange. A byte frame has at least one data
    /// byte plus two CRC bytes, so a single byte can only be a 4-bit reply (libnfc returns it in
    /// the low nibble, RxLastBits = 4).
    static func decodeRawAnswer(_ bytes: [UInt8]) throws(NFCError) -> Answer {
        if bytes.count == 1 {
            let nibble = bytes[0] & 0x0F
            return nibble == ack ? .ack : .nak(nibble)
        }
        guard bytes.count >= 3 else { throw .invalidResponse(bytes) }
        guard ISO14443.hasValidCRCA(bytes) else { throw .crcMismatch }
        return .data(Array(bytes.dropLast(2)))
    }

    /// A FeliCa command with its LEN byte in front. Throws when it cannot fit in one frame.
    static func feliCaFrame(_ command: [UInt8]) throws(NFCError) -> [UInt8] {
        guard !command.isEmpty, command.count < 255 else {
            throw .invalidArgument("A FeliCa command must be 1 to 254 bytes, got \(command.count)")
        }
        return [UInt8(command.count + 1)] + command
    }

    /// A FeliCa answer without its LEN byte, after checking that LEN matches what arrived.
    static func feliCaPayload(_ frame: [UInt8]) throws(NFCError) -> [UInt8] {
        guard let length = frame.first, Int(length) == frame.count, frame.count >= 2 else {
            throw .invalidResponse(frame)
        }
        return Array(frame.dropFirst())
    }
}
