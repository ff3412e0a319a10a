/// The MIFARE Application Directory (NXP AN10787): which application owns which sector of a MIFARE
/// Classic. MAD1 sits in blocks 1–2 of sector 0 and covers sectors 1–15; on cards with more than 16
/// sectors MAD2 sits in blocks 64–66 (sector 16) and covers sectors 17–39.
///
/// Layout (AN10787, MAD1 and MAD2 structure): byte 0 = CRC-8, byte 1 = info byte (card publisher sector), then one
/// 2-byte AID per sector, application code first, function cluster code second — the NFC Forum NDEF
/// AID E103h is stored `03 E1`. The CRC covers every byte after it (polynomial
/// x⁸+x⁴+x³+x²+1, preset C7h). Whether a MAD exists, and which, says the general-purpose byte of the
/// sector 0 trailer (DA bit 7 = MAD available, ADV bits 1–0 = 01 MAD1, 10 MAD2). Both MAD sectors
/// answer the public key A A0A1A2A3A4A5h.
public struct ClassicMAD: Sendable, Hashable {
    /// Public key A of the MAD sectors 0 and 16 (AN10787).
    public static let publicKeyA: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
    /// NFC Forum public key A of NDEF sectors (AN1304, NDEF sectors).
    public static let ndefKeyA: [UInt8] = [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7]
    /// AID of NFC Forum NDEF sectors (AN1304): function cluster E1h, application 03h.
    public static let ndefAID: UInt16 = 0xE103
    /// Sector holding MAD2 (AN10787); its data blocks are not application data.
    public static let mad2Sector = 16

    /// MAD version: 1 or 2.
    public var version: Int
    /// The AID of every sector the directory covers (sectors 1–15, and 17–39 with MAD2).
    public var applications: [Int: UInt16]

    /// The MAD version the sector 0 general-purpose byte announces; nil when the DA bit is clear or the
    /// ADV bits name no known version.
    public static func version(generalPurposeByte gpb: UInt8) -> Int? {
        guard gpb & 0x80 != 0 else { return nil }
        switch gpb & 0x03 {
        case 0x01: return 1
        case 0x02: return 2
        default: return nil
        }
    }

    /// Parses MAD1 from the 32 bytes of blocks 1 and 2 (`version` 2 when a MAD2 follows). Throws
    /// ``NFCError/invalidResponse(_:)`` for a wrong length and ``NFCError/crcMismatch`` for a bad CRC.
    public init(sector0 bytes: [UInt8], version: Int = 1) throws(NFCError) {
        self.version = version
        applications = try Self.entries(bytes, count: 15, firstSector: 1)
    }

    /// Adds MAD2 from the 48 bytes of blocks 64–66. Same errors as ``init(sector0:version:)``.
    public mutating func addMAD2(sector16 bytes: [UInt8]) throws(NFCError) {
        applications.merge(try Self.entries(bytes, count: 23, firstSector: 17)) { _, new in new }
        version = 2
    }

    /// The sectors `aid` owns, in ascending order.
    public func sectors(of aid: UInt16) -> [Int] {
        applications.filter { $0.value == aid }.keys.sorted()
    }

    /// The MAD CRC-8 over `bytes` (AN10787): MSB first, polynomial 1Dh, preset C7h.
    public static func crc(_ bytes: [UInt8]) -> UInt8 {
        var crc: UInt8 = 0xC7
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x1D : crc << 1 }
        }
        return crc
    }

    /// A MAD1 (15 AIDs: 32 bytes, blocks 1–2) or MAD2 (23 AIDs: 48 bytes, blocks 64–66) directory: CRC,
    /// `info` byte, then each AID stored application code first, function cluster code second
    /// (AN10787, MAD1 and MAD2 structure). Missing AIDs are 0000h (free sector).
    public static func encode(aids: [UInt16], count: Int, info: UInt8) -> [UInt8] {
        var body: [UInt8] = [info]
        for index in 0..<count {
            let aid = index < aids.count ? aids[index] : 0
            body += [UInt8(aid & 0xFF), UInt8(aid >> 8)]
        }
        return [crc(body)] + body
    }

    private static func entries(_ bytes: [UInt8], count: Int, firstSector: Int) throws(NFCError) -> [Int: UInt16] {
        guard bytes.count == 2 + count * 2 else { throw .invalidResponse(bytes) }
        guard crc(Array(bytes.dropFirst())) == bytes[0] else { throw .crcMismatch }
        var entries: [Int: UInt16] = [:]
        for index in 0..<count {
            let application = bytes[2 + index * 2], cluster = bytes[3 + index * 2]
            entries[firstSector + index] = UInt16(cluster) << 8 | UInt16(application)
        }
        return entries
    }
}
