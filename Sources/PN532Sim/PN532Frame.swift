/// One frame of the PN532 host interface (UM0701-02 §6.2.1), in either direction.
///
/// Information frames carry a frame identifier (TFI: `D4` host → PN532, `D5` PN532 → host) and the
/// command or response code followed by its parameters. The application-level error frame
/// (`00 00 FF 01 FF 7F 81 00`, §6.2.1.5) is the information frame with TFI `7F` and no data.
public enum PN532Frame: Sendable, Equatable, CustomStringConvertible {
    /// ACK frame `00 00 FF 00 FF 00` (§6.2.1.3). From the host it aborts the running command.
    case ack
    /// NACK frame `00 00 FF FF 00 00` (§6.2.1.4): the host asks for the last answer again.
    case nack
    /// A normal or extended information frame (§6.2.1.1, §6.2.1.2).
    case information(tfi: UInt8, data: [UInt8])

    /// TFI of frames from the host controller to the PN532.
    public static let hostToChip: UInt8 = 0xD4
    /// TFI of frames from the PN532 to the host controller.
    public static let chipToHost: UInt8 = 0xD5
    /// TFI of the application-level error frame.
    public static let errorTFI: UInt8 = 0x7F
    /// Largest LEN (TFI + data) the PN532 accepts: 265 bytes (UM0701 §6.2.1.2, extended frame).
    public static let maximumLength = 265
    /// Largest LEN a normal frame can carry; longer ones go out as extended frames.
    public static let maximumNormalLength = 255

    /// The application-level error frame (UM0701 §6.2.1.5): syntax error in the last command.
    public static let syntaxError = PN532Frame.information(tfi: errorTFI, data: [])

    /// A command frame from the host: `D4 code params…` (nfcpy's `CMD`).
    public static func command(_ code: UInt8, _ parameters: [UInt8] = []) -> PN532Frame {
        .information(tfi: hostToChip, data: [code] + parameters)
    }

    /// A response frame from the PN532: `D5 code+1 data…` (nfcpy's `RSP`).
    public static func response(to code: UInt8, _ data: [UInt8] = []) -> PN532Frame {
        .information(tfi: chipToHost, data: [code &+ 1] + data)
    }

    /// The frame as it travels on the wire: preamble `00`, start code `00 FF`, …, postamble `00`.
    /// The PN532 answers with exactly this layout; libnfc needs the first five bytes to begin
    /// `00 00 FF` (an extra leading `00`, allowed by UM0701, breaks its reader).
    public var bytes: [UInt8] {
        switch self {
        case .ack: return [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00]
        case .nack: return [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00]
        case let .information(tfi, data):
            let length = data.count + 1
            var out: [UInt8] = [0x00, 0x00, 0xFF]
            if length <= Self.maximumNormalLength {
                out += [UInt8(length), UInt8(truncatingIfNeeded: 0x100 - length)]
            } else {
                let high = UInt8(truncatingIfNeeded: length >> 8), low = UInt8(truncatingIfNeeded: length)
                out += [0xFF, 0xFF, high, low, 0 &- (high &+ low)]
            }
            out.append(tfi)
            out += data
            out.append(0 &- data.reduce(tfi, &+))
            out.append(0x00)
            return out
        }
    }

    /// `ACK`, `NACK`, or TFI and data in hex.
    public var description: String {
        switch self {
        case .ack: "ACK"
        case .nack: "NACK"
        case let .information(tfi, data): "\(tfi.hexString) \(data.spacedHexString)"
        }
    }
}
