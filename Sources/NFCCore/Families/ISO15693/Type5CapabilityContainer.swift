/// The capability container of an NFC Forum Type 5 Tag (NFC Forum Type 5 Tag Technical Specification,
/// "Capability Container"): the first 4 or 8 bytes of the memory, block 0 on.
///
/// - Byte 0, magic number: E1h (the memory is reached with one-byte block addresses) or E2h (two-byte
///   addresses: the EXTENDED commands).
/// - Byte 1: version (bits 7–6 major, 5–4 minor; NFCCore reads and writes 1.0), read access (bits 3–2,
///   00b = always), write access (bits 1–0: 00b always, 10b proprietary, 11b never).
/// - Byte 2, MLEN: the size of the T5T area (the TLVs, right after the CC) in multiples of 8 bytes. 00h
///   means an 8-byte CC whose bytes 6–7 hold MLEN big-endian (bytes 4–5 RFU, 00h): the MLEN rule — a 4-byte
///   CC when the area is 2040 bytes (FFh × 8) or less, the 8-byte one for larger memories.
/// - Byte 3, additional features: bit 0 MBREAD (READ MULTIPLE BLOCKS), bit 3 LOCK BLOCK, bit 4 special
///   frame.
public struct Type5CapabilityContainer: Sendable, Hashable, CustomStringConvertible {
    /// The CC bytes (4 or 8).
    public var bytes: [UInt8]

    /// The magic number of a tag reached with one-byte block addresses.
    public static let magicOneByteAddress: UInt8 = 0xE1
    /// The magic number of a tag that needs two-byte block addresses (EXTENDED commands).
    public static let magicTwoByteAddress: UInt8 = 0xE2
    /// Version 1.0, read and write access always.
    static let version10: UInt8 = 0x40
    /// Byte 3 bit 3: the tag supports LOCK BLOCK.
    public static let lockBlockFeature: UInt8 = 0x08
    /// The largest MLEN of a 4-byte CC.
    static let maximumShortMLEN = 0xFF

    /// Reads a CC from the start of the memory (at least 4 bytes; 8 when byte 2 is 00h). Nil when too
    /// short.
    public init?(memory: [UInt8]) {
        guard memory.count >= 4 else { return nil }
        let length = memory[2] == 0 ? 8 : 4
        guard memory.count >= length else { return nil }
        bytes = Array(memory.prefix(length))
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// 4 or 8.
    public var length: Int { bytes.count }
    /// True for the NDEF magic numbers E1h and E2h.
    public var isNDEF: Bool { bytes[0] == Self.magicOneByteAddress || bytes[0] == Self.magicTwoByteAddress }
    /// Major version (1 for the mapping NFCCore speaks).
    public var majorVersion: Int { Int(bytes[1] >> 6) }
    /// Minor version.
    public var minorVersion: Int { Int((bytes[1] >> 4) & 0x03) }
    /// Read access bits (00b: always).
    public var readAccess: UInt8 { (bytes[1] >> 2) & 0x03 }
    /// Write access bits (00b always, 11b never).
    public var writeAccess: UInt8 { bytes[1] & 0x03 }
    /// True when the write access is 00b.
    public var isWritable: Bool { writeAccess == 0 }
    /// MLEN: byte 2, or bytes 6–7 of an 8-byte CC.
    public var mlen: Int { length == 8 ? Int(bytes[6]) << 8 | Int(bytes[7]) : Int(bytes[2]) }
    /// The T5T area's size in bytes (MLEN × 8).
    public var dataAreaSize: Int { mlen * 8 }
    /// True when byte 3 says LOCK BLOCK is supported.
    public var supportsLockBlock: Bool { bytes[3] & Self.lockBlockFeature != 0 }

    /// This CC with write access 11b (never): the NFC Forum read-only state.
    public var readOnly: Type5CapabilityContainer {
        var copy = self
        copy.bytes[1] |= 0x03
        return copy
    }

    /// The CC for a memory of `memoryBytes` in `blockCount` blocks by the MLEN rule: a 4-byte CC with
    /// MLEN = (memory − 4) / 8 while that is FFh or less, else an 8-byte CC with MLEN = (memory − 8) / 8
    /// (at most FFFFh) in bytes 6–7. Magic E2h when blocks past 255 exist (they need the EXTENDED
    /// commands), E1h otherwise; version 1.0, access always; `features` in byte 3.
    public static func make(memoryBytes: Int, blockCount: Int, features: UInt8 = 0) -> Type5CapabilityContainer {
        let magic = blockCount > ISO15693Command.lastSingleByteBlock + 1 ? magicTwoByteAddress : magicOneByteAddress
        let shortMLEN = max(0, memoryBytes - 4) / 8
        if shortMLEN <= maximumShortMLEN {
            return Type5CapabilityContainer(bytes: [magic, version10, UInt8(shortMLEN), features])
        }
        let mlen = min(max(0, memoryBytes - 8) / 8, 0xFFFF)
        return Type5CapabilityContainer(bytes: [magic, version10, 0x00, features, 0x00, 0x00, UInt8(mlen >> 8),
                                                UInt8(mlen & 0xFF)])
    }

    /// Where the T5T area ends in a memory of `memoryBytes`: after the CC and MLEN × 8 bytes, never past
    /// the memory (some vendors count the CC in MLEN — ST writes `E2 40 00 01 00 00 04 00`, MLEN 400h, on
    /// an 8192-byte ST25DV64K — so the end is clamped rather than refused).
    public func dataAreaEnd(memoryBytes: Int?) -> Int {
        let end = length + dataAreaSize
        return memoryBytes.map { min(end, $0) } ?? end
    }

    /// Hex, e.g. `E1400200`.
    public var description: String { bytes.hexString }
}
