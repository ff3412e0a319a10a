/// The simulator's own MIFARE Classic tables, written from the NXP datasheets (not from NFCCore's
/// `ClassicLayout` / `AccessBits`; one test in PN532SimTests compares the two).

/// How a MIFARE Classic memory is cut into sectors: MF1S50yyX §8.6 (1K: 16 sectors × 4 blocks),
/// MF1S70yyX §8.6 (4K: 32 × 4, then 8 × 16), MF1S20yyX §8.6 (Mini: 5 × 4). The last block of each
/// sector is its trailer: key A (bytes 0–5), access bits (6–8), general-purpose byte (9), key B (10–15).
public struct VirtualClassicLayout: Sendable, Hashable {
    /// Blocks per sector, sector 0 first.
    public let sectorSizes: [Int]
    /// First block of each sector.
    private let firstBlocks: [Int]

    /// `count` sectors of `blocksPerSector` blocks per group, lowest addresses first.
    init(_ groups: [(count: Int, blocksPerSector: Int)]) {
        let sizes = groups.flatMap { Array(repeating: $0.blocksPerSector, count: $0.count) }
        sectorSizes = sizes
        firstBlocks = sizes.indices.map { sizes[..<$0].reduce(0, +) }
    }

    /// MIFARE Mini (MF1S20yyX §8.6): 5 sectors × 4 blocks.
    public static let mini = VirtualClassicLayout([(5, 4)])
    /// MIFARE Classic 1K (MF1S50yyX §8.6): 16 sectors × 4 blocks.
    public static let classic1K = VirtualClassicLayout([(16, 4)])
    /// MIFARE Classic 4K (MF1S70yyX §8.6): 32 sectors × 4 blocks, then 8 sectors × 16 blocks.
    public static let classic4K = VirtualClassicLayout([(32, 4), (8, 16)])

    /// Number of sectors.
    public var sectorCount: Int { sectorSizes.count }

    /// Number of 16-byte blocks.
    public var totalBlocks: Int { sectorSizes.reduce(0, +) }

    /// All blocks of `sector` (empty when it does not exist).
    public func blocks(ofSector sector: Int) -> [Int] {
        guard sectorSizes.indices.contains(sector) else { return [] }
        return Array(firstBlocks[sector]..<(firstBlocks[sector] + sectorSizes[sector]))
    }

    /// The trailer of `sector`: its last block.
    public func trailerBlock(ofSector sector: Int) -> Int? { blocks(ofSector: sector).last }

    /// The sector holding `block`.
    public func sector(ofBlock block: Int) -> Int? {
        guard block >= 0, block < totalBlocks else { return nil }
        return firstBlocks.lastIndex { $0 <= block }
    }

    /// True when `block` is a sector trailer.
    public func isTrailer(_ block: Int) -> Bool {
        sector(ofBlock: block).flatMap { trailerBlock(ofSector: $0) } == block
    }

    /// The access group (0–2 data, 3 trailer) of `block`. In the 16-block sectors of a 4K each data
    /// group covers five blocks (MF1S70yyX §8.7.1).
    public func accessGroup(ofBlock block: Int) -> Int? {
        guard let sector = sector(ofBlock: block) else { return nil }
        let offset = block - firstBlocks[sector]
        if offset == sectorSizes[sector] - 1 { return 3 }
        return sectorSizes[sector] == 4 ? offset : offset / 5
    }
}

/// Sector trailer access bits and what they allow (MF1S50yyX §8.7).
enum VirtualClassicAccess {
    /// Which keys may do something.
    enum Keys: Equatable {
        case never, a, b, both

        func allow(_ key: KeyType) -> Bool {
            switch self {
            case .never: false
            case .a: key == .a
            case .b: key == .b
            case .both: true
            }
        }
    }

    /// Key A or key B.
    enum KeyType: Equatable { case a, b }

    /// What one key may do with one block.
    struct Rights: Equatable {
        var read = false
        var write = false
        /// Trailer only.
        var writeKeyA = false, readAccessBits = false, writeAccessBits = false, readKeyB = false, writeKeyB = false

        var writesAnyTrailerPart: Bool { writeKeyA || writeAccessBits || writeKeyB }
    }

    /// Bytes 6–8 of a trailer as (C1, C2, C3) of groups 0–3, each a 3-bit value `C1 C2 C3` (C1 the high
    /// bit, the datasheet's notation). MF1S50yyX §8.7.1 Figure 10: byte 6 = ¬C2₃..₀ | ¬C1₃..₀,
    /// byte 7 = C1₃..₀ | ¬C3₃..₀, byte 8 = C3₃..₀ | C2₃..₀. Nil when an inverted copy disagrees: such a
    /// sector is blocked for good.
    static func conditions(_ bytes: ArraySlice<UInt8>) -> [Int]? {
        guard bytes.count >= 3 else { return nil }
        let b6 = bytes[bytes.startIndex], b7 = bytes[bytes.startIndex + 1], b8 = bytes[bytes.startIndex + 2]
        let c1 = b7 >> 4, c2 = b8 & 0x0F, c3 = b8 >> 4
        guard c1 ^ (b6 & 0x0F) == 0x0F, c2 ^ (b6 >> 4) == 0x0F, c3 ^ (b7 & 0x0F) == 0x0F else { return nil }
        return (0..<4).map { (group: Int) -> Int in
            let bit1 = Int((c1 >> UInt8(group)) & 1)
            let bit2 = Int((c2 >> UInt8(group)) & 1)
            let bit3 = Int((c3 >> UInt8(group)) & 1)
            return bit1 << 2 | bit2 << 1 | bit3
        }
    }

    /// MF1S50yyX §8.7.2 Table 7, by condition 000…111: who may write key A, read / write the access bits,
    /// read / write key B. Key A never reads back.
    static let trailer: [(writeKeyA: Keys, readBits: Keys, writeBits: Keys, readKeyB: Keys, writeKeyB: Keys)] = [
        /* 000 */ (.a, .a, .never, .a, .a),
        /* 001 */ (.a, .a, .a, .a, .a),  // transport configuration
        /* 010 */ (.never, .a, .never, .a, .never),
        /* 011 */ (.b, .both, .b, .never, .b),
        /* 100 */ (.b, .both, .never, .never, .b),
        /* 101 */ (.never, .both, .b, .never, .never),
        /* 110 */ (.never, .both, .never, .never, .never),
        /* 111 */ (.never, .both, .never, .never, .never),
    ]

    /// MF1S50yyX §8.7.3 Table 8, by condition 000…111: who may read and write a data block
    /// (increment/decrement are not modelled).
    static let data: [(read: Keys, write: Keys)] = [
        /* 000 */ (.both, .both),  // transport configuration
        /* 001 */ (.both, .never),
        /* 010 */ (.both, .never),
        /* 011 */ (.b, .b),
        /* 100 */ (.both, .b),
        /* 101 */ (.b, .never),
        /* 110 */ (.both, .b),
        /* 111 */ (.never, .never),
    ]

    /// Rows where key A may read key B: key B is then data, not a key, and an authentication with it
    /// grants nothing (MF1S50yyX §8.7.2, remark under Table 7).
    static func keyBReadable(trailerCondition: Int) -> Bool { trailer[trailerCondition].readKeyB == .a }

    /// What `key` may do with a block of access group `group` under `conditions`.
    static func rights(conditions: [Int], group: Int, key: KeyType) -> Rights {
        let trailerCondition = conditions[3]
        if key == .b && keyBReadable(trailerCondition: trailerCondition) { return Rights() }
        if group == 3 {
            let row = trailer[trailerCondition]
            return Rights(read: row.readBits.allow(key), write: false, writeKeyA: row.writeKeyA.allow(key),
                          readAccessBits: row.readBits.allow(key), writeAccessBits: row.writeBits.allow(key),
                          readKeyB: row.readKeyB.allow(key), writeKeyB: row.writeKeyB.allow(key))
        }
        let row = data[conditions[group]]
        return Rights(read: row.read.allow(key), write: row.write.allow(key))
    }
}
