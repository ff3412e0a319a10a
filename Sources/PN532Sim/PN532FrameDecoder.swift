/// Why a candidate frame was thrown away.
public enum PN532FrameError: Error, Sendable, Equatable {
    /// LEN + LCS (or LENM + LENL + LCS) is not 0 modulo 256 (UM0701 §6.2.1.1).
    case lengthChecksum
    /// TFI + data + DCS is not 0 modulo 256.
    case dataChecksum
    /// LEN is larger than the PN532's 265-byte buffer.
    case tooLong(Int)
}

/// What the decoder found in the byte stream.
public enum PN532DecodedItem: Sendable, Equatable {
    /// A whole, checked frame.
    case frame(PN532Frame)
    /// A frame whose checksums did not match; the decoder resynchronises after its start code.
    case malformed(PN532FrameError)
}

/// Incremental decoder of PN532 host-interface frames from a byte stream (UM0701-02 §6.2.1).
///
/// Bytes before a start code `00 FF` are skipped: that covers the preamble, the postamble of the
/// previous frame and the HSU wake-up sequence `55 55 00 00 …` libnfc sends after power-down.
/// Feed it whatever `read(2)` returned — a byte, a frame, or several — and take the frames out;
/// the result does not depend on how the stream was split.
public struct PN532FrameDecoder: Sendable {
    private var buffer: [UInt8] = []

    /// Creates an empty decoder.
    public init() {}

    /// Bytes received but not yet part of a decoded frame.
    public var bufferedByteCount: Int { buffer.count }

    /// Forgets buffered bytes (a new client session starts from scratch).
    public mutating func reset() { buffer.removeAll() }

    /// Appends `bytes` and returns every frame (or malformed frame) that is now complete.
    public mutating func decode(_ bytes: [UInt8]) -> [PN532DecodedItem] {
        buffer += bytes
        var items: [PN532DecodedItem] = []
        while let item = next() { items.append(item) }
        return items
    }

    /// Takes one item off the front of the buffer, or nil when more bytes are needed.
    private mutating func next() -> PN532DecodedItem? {
        guard let start = startCodeIndex() else {
            // Keep a trailing 00: it may be the first half of the next start code.
            if buffer.last == 0x00 { buffer = [0x00] } else { buffer.removeAll() }
            return nil
        }
        if start > 0 { buffer.removeFirst(start) }
        // buffer[0...1] == 00 FF
        guard buffer.count >= 4 else { return nil }
        let first = buffer[2], second = buffer[3]
        switch (first, second) {
        case (0x00, 0xFF):
            buffer.removeFirst(4)
            return .frame(.ack)
        case (0xFF, 0x00):
            buffer.removeFirst(4)
            return .frame(.nack)
        case (0xFF, 0xFF):
            // Extended frame: 00 FF FF FF LENM LENL LCS TFI data DCS.
            guard buffer.count >= 7 else { return nil }
            let high = buffer[4], low = buffer[5], lcs = buffer[6]
            guard high &+ low &+ lcs == 0 else { return dropStartCode(.lengthChecksum) }
            return body(length: Int(high) << 8 | Int(low), offset: 7)
        default:
            guard first &+ second == 0 else { return dropStartCode(.lengthChecksum) }
            return body(length: Int(first), offset: 4)
        }
    }

    /// Decodes TFI + data + DCS starting at `offset`, once they are all buffered.
    private mutating func body(length: Int, offset: Int) -> PN532DecodedItem? {
        guard length <= PN532Frame.maximumLength else { return dropStartCode(.tooLong(length)) }
        guard length >= 1 else { return dropStartCode(.lengthChecksum) }
        guard buffer.count >= offset + length + 1 else { return nil }
        let payload = Array(buffer[offset..<offset + length])
        let dcs = buffer[offset + length]
        guard payload.reduce(dcs, &+) == 0 else { return dropStartCode(.dataChecksum) }
        buffer.removeFirst(offset + length + 1)
        return .frame(.information(tfi: payload[0], data: Array(payload.dropFirst())))
    }

    /// Skips a start code that led nowhere and reports why.
    private mutating func dropStartCode(_ error: PN532FrameError) -> PN532DecodedItem {
        buffer.removeFirst(2)
        return .malformed(error)
    }

    private func startCodeIndex() -> Int? {
        guard buffer.count >= 2 else { return nil }
        for i in 0..<(buffer.count - 1) where buffer[i] == 0x00 && buffer[i + 1] == 0xFF {
            return i
        }
        return nil
    }
}
