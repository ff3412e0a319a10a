/// How a MIFARE Classic memory is cut into sectors and blocks.
///
/// Source: MF1S50yyX §8.6 (1K: 16 sectors × 4 blocks), MF1S70yyX §8.6 (4K: 32 sectors × 4 blocks, then
/// 8 sectors × 16 blocks), MF1S20yyX (Mini: 5 sectors × 4 blocks). MIFARE Plus in SL1 uses the 1K/4K
/// layouts, the 2K product 32 × 4. The last block of every sector is its trailer:
/// key A (6) | access bits (3) + general-purpose byte (1) | key B (6).
public struct ClassicLayout: Sendable, Hashable {
    /// Sector groups in address order: `count` sectors of `blocksPerSector` blocks each.
    public struct SectorGroup: Sendable, Hashable {
        public var count: Int
        public var blocksPerSector: Int

        public init(count: Int, blocksPerSector: Int) {
            self.count = count
            self.blocksPerSector = blocksPerSector
        }
    }

    /// The groups, lowest addresses first.
    public var groups: [SectorGroup]

    public init(groups: [SectorGroup]) {
        self.groups = groups
    }

    /// MIFARE Mini: 5 sectors × 4 blocks (320 bytes).
    public static let mini = ClassicLayout(groups: [SectorGroup(count: 5, blocksPerSector: 4)])
    /// MIFARE Classic 1K: 16 sectors × 4 blocks.
    public static let classic1K = ClassicLayout(groups: [SectorGroup(count: 16, blocksPerSector: 4)])
    /// MIFARE Plus 2K in SL1: 32 sectors × 4 blocks.
    public static let plus2K = ClassicLayout(groups: [SectorGroup(count: 32, blocksPerSector: 4)])
    /// MIFARE Classic 4K: 32 sectors × 4 blocks, then 8 sectors × 16 blocks (256 blocks).
    public static let classic4K = ClassicLayout(groups: [
        SectorGroup(count: 32, blocksPerSector: 4), SectorGroup(count: 8, blocksPerSector: 16),
    ])

    /// Layout per card type (nil for types that are not Classic-compatible).
    static let table: [CardType: ClassicLayout] = [
        .mifareMini: .mini,
        .mifareClassic1K: .classic1K,
        .mifareClassic4K: .classic4K,
        .mifarePlusSL1_2K: .plus2K,
        .mifarePlusSL1_4K: .classic4K,
    ]

    /// The layout of `type`, or nil when `type` does not speak MIFARE Classic.
    public static func forType(_ type: CardType) -> ClassicLayout? {
        table[type]
    }

    /// Number of sectors.
    public var sectorCount: Int { groups.reduce(0) { $0 + $1.count } }

    /// Number of blocks (16 bytes each).
    public var totalBlocks: Int { groups.reduce(0) { $0 + $1.count * $1.blocksPerSector } }

    /// Bytes of memory.
    public var totalBytes: Int { totalBlocks * 16 }

    /// Blocks in `sector`, or nil when the sector does not exist.
    public func blockCount(ofSector sector: Int) -> Int? {
        guard sector >= 0 else { return nil }
        var remaining = sector
        for group in groups {
            if remaining < group.count { return group.blocksPerSector }
            remaining -= group.count
        }
        return nil
    }

    /// First block of `sector`, or nil when the sector does not exist.
    public func firstBlock(ofSector sector: Int) -> Int? {
        guard sector >= 0 else { return nil }
        var remaining = sector
        var base = 0
        for group in groups {
            if remaining < group.count { return base + remaining * group.blocksPerSector }
            remaining -= group.count
            base += group.count * group.blocksPerSector
        }
        return nil
    }

    /// The sector trailer of `sector`, or nil when the sector does not exist.
    public func trailerBlock(ofSector sector: Int) -> Int? {
        guard let first = firstBlock(ofSector: sector), let count = blockCount(ofSector: sector) else { return nil }
        return first + count - 1
    }

    /// All blocks of `sector` in address order (empty when the sector does not exist).
    public func blocks(ofSector sector: Int) -> [Int] {
        guard let first = firstBlock(ofSector: sector), let count = blockCount(ofSector: sector) else { return [] }
        return Array(first..<(first + count))
    }

    /// The sector holding `block`, or nil when the block is out of range.
    public func sector(ofBlock block: Int) -> Int? {
        guard block >= 0 else { return nil }
        var remaining = block
        var sectorBase = 0
        for group in groups {
            let span = group.count * group.blocksPerSector
            if remaining < span { return sectorBase + remaining / group.blocksPerSector }
            remaining -= span
            sectorBase += group.count
        }
        return nil
    }

    /// True when `block` is a sector trailer.
    public func isTrailer(_ block: Int) -> Bool {
        guard let sector = sector(ofBlock: block) else { return false }
        return trailerBlock(ofSector: sector) == block
    }

    /// Which access-bits group (0, 1, 2 data; 3 trailer) governs `block`. In the 16-block sectors of a
    /// 4K each data group covers 5 blocks (MF1S70yyX §8.7.1).
    public func accessGroup(ofBlock block: Int) -> Int? {
        guard let sector = sector(ofBlock: block), let first = firstBlock(ofSector: sector),
            let count = blockCount(ofSector: sector)
        else { return nil }
        let offset = block - first
        if offset == count - 1 { return 3 }
        return count == 4 ? offset : offset / 5
    }
}
