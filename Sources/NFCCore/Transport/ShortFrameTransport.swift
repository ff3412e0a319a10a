/// Readers that can send ISO/IEC 14443-A frames of any bit length without adding a CRC (short frames
/// such as the 7-bit REQA/WUPA, and the Gen1a unlock). libnfc: `nfc_initiator_transceive_bits`.
public protocol ShortFrameTransport: TagTransport {
    /// Sends the first `bitCount` bits of `frame` as they are (no CRC added; parity by the reader) and
    /// returns the answer as received (a 4-bit ACK as one byte, `0A`). Throws ``NFCError/timeout``
    /// when the tag stays silent.
    func transceiveBits(_ frame: [UInt8], bitCount: Int) async throws -> [UInt8]
}
