import struct NFCCore.ISO15693Request
import protocol NFCCore.ISO15693Transport

/// The in-process transport speaks ISO/IEC 15693-3 to the simulator's ISO 15693 tags, so NFCCore's
/// ISO 15693 family can identify and dump them without a reader: the request goes to the tag as its
/// air frame, the answer (flags byte first) comes back; silence is `NFCError.timeout`.
extension VirtualTagTransport: ISO15693Transport {
    public func send(_ request: ISO15693Request) async throws -> [UInt8] {
        try await transceive(request.frame, framing: .raw)
    }
}
