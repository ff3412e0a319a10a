/// One block-list element of READ / WRITE WITHOUT ENCRYPTION (JIS X 6319-4 §7.5.4; FeliCa Lite-S
/// user's manual §4.4.2).
///
/// Two-byte form (block ≤ FFh): `1 ooo iiii` + block, three-byte form: `0 ooo iiii` + block LSB + block
/// MSB — little-endian like every FeliCa number (nfcpy `BlockCode.pack` agrees; upstream and
/// libnfc's nfc-read-forum-tag3 write it big-endian, which only matters above block FFh).
/// `ooo` is the access mode (000 for plain reads/writes), `iiii` the index into the service-code list.
public struct FeliCaBlockListElement: Sendable, Hashable {
    /// Index into the command's service-code list (0–15).
    public var serviceIndex: Int
    /// Block number (0–FFFFh).
    public var block: Int
    /// Access mode bits (0–7).
    public var accessMode: UInt8

    public init(block: Int, serviceIndex: Int = 0, accessMode: UInt8 = 0) {
        self.block = block
        self.serviceIndex = serviceIndex
        self.accessMode = accessMode
    }

    /// The encoded element. Throws ``NFCError/invalidArgument(_:)`` for a block outside 0…FFFFh or a
    /// service index outside 0…15.
    public func bytes() throws(NFCError) -> [UInt8] {
        guard (0...0xFFFF).contains(block) else { throw .invalidArgument("FeliCa block \(block) is outside 0…FFFFh") }
        guard (0...15).contains(serviceIndex) else { throw .invalidArgument("FeliCa service index \(serviceIndex) is outside 0…15") }
        let head = (accessMode & 0x07) << 4 | UInt8(serviceIndex)
        if block <= 0xFF { return [0x80 | head, UInt8(block)] }
        return [head, UInt8(block & 0xFF), UInt8(block >> 8)]
    }
}
