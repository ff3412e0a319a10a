/// The NFC Forum Type 3 Tag attribute information block, block 0 of the NDEF area (T3T §7.1, Table 7).
///
/// Layout: Ver(0) · Nbr(1) · Nbw(2) · Nmaxb(3–4, BE) · RFU(5–8) · WriteFlag(9: 00 done, 0F writing) ·
/// RWFlag(10: 00 read-only, 01 read/write) · Ln(11–13, BE) · checksum(14–15, BE, sum of bytes 0–13).
public struct FeliCaAttributeInfo: Sendable, Hashable {
    public var version: UInt8
    /// Blocks one READ may ask for.
    public var nbr: Int
    /// Blocks one WRITE may carry.
    public var nbw: Int
    /// NDEF data blocks available.
    public var nmaxb: Int
    /// 00h when the last write finished, 0Fh while one is in progress (T3T §7.1.1).
    public var writeFlag: UInt8
    /// 00h read-only, 01h read/write.
    public var rwFlag: UInt8
    /// NDEF message length in bytes.
    public var length: Int

    public init(version: UInt8 = 0x10, nbr: Int, nbw: Int, nmaxb: Int, writeFlag: UInt8 = 0x00, rwFlag: UInt8 = 0x01,
                length: Int) {
        self.version = version
        self.nbr = nbr
        self.nbw = nbw
        self.nmaxb = nmaxb
        self.writeFlag = writeFlag
        self.rwFlag = rwFlag
        self.length = length
    }

    /// Parses block 0. Throws ``NFCError/invalidResponse(_:)`` when it is not 16 bytes and
    /// ``NFCError/crcMismatch`` when the checksum does not match.
    public init(bytes: [UInt8]) throws(NFCError) {
        guard bytes.count == 16 else { throw .invalidResponse(bytes) }
        guard Self.checksum(bytes) == Int(bytes[14]) << 8 | Int(bytes[15]) else { throw .crcMismatch }
        version = bytes[0]
        nbr = Int(bytes[1])
        nbw = Int(bytes[2])
        nmaxb = Int(bytes[3]) << 8 | Int(bytes[4])
        writeFlag = bytes[9]
        rwFlag = bytes[10]
        length = Int(bytes[11]) << 16 | Int(bytes[12]) << 8 | Int(bytes[13])
    }

    static func checksum(_ bytes: [UInt8]) -> Int { bytes.prefix(14).reduce(0) { $0 + Int($1) } }

    /// The 16 bytes, checksum computed.
    public var bytes: [UInt8] {
        var block: [UInt8] = [version, UInt8(nbr & 0xFF), UInt8(nbw & 0xFF), UInt8((nmaxb >> 8) & 0xFF),
                              UInt8(nmaxb & 0xFF), 0, 0, 0, 0, writeFlag, rwFlag, UInt8((length >> 16) & 0xFF),
                              UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        let sum = Self.checksum(block)
        block += [UInt8((sum >> 8) & 0xFF), UInt8(sum & 0xFF)]
        return block
    }

    /// True when RWFlag allows writing.
    public var isWritable: Bool { rwFlag == 0x01 }

    /// NDEF capacity in bytes (Nmaxb × 16).
    public var capacity: Int { nmaxb * 16 }
}
