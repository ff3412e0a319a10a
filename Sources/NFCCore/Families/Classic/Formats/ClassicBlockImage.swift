/// The block image behind the MIFARE Classic file formats (libnfc MFD, Flipper `.nfc`): the dump's
/// blocks checked (16 bytes each, inside the product's layout, each once) and laid out by number,
/// with what is known of every byte.
///
/// A byte is known when its block is in the dump and, in a sector trailer, its part (key A, access
/// bits, key B) is not listed in the dump's ``TagDump/classicTrailerGaps`` (typed data, never parsed from facts).
struct ClassicBlockImage {
    let fileType: ClassicFileType
    /// Block data by block number.
    let blocks: [Int: [UInt8]]
    let gaps: ClassicTrailerGaps

    var layout: ClassicLayout { fileType.layout }

    /// Checks `dump`'s blocks. `unsupportedMessage` is the error for dumps of other families.
    init(_ dump: TagDump, unsupportedMessage: String) throws {
        guard let fileType = ClassicFileType.forType(dump.cardInfo.type) else {
            throw NFCError.unsupportedOperation(unsupportedMessage)
        }
        let total = fileType.layout.totalBlocks
        var blocks: [Int: [UInt8]] = [:]
        for block in dump.blocks {
            guard block.data.count == 16 else {
                throw NFCError.malformedDump("block \(block.number) has \(block.data.count) bytes; a MIFARE Classic block has 16")
            }
            guard (0..<total).contains(block.number) else {
                throw NFCError.malformedDump(
                    "block \(block.number) is outside the \(total) blocks of a \(dump.cardInfo.type.description)")
            }
            guard blocks[block.number] == nil else { throw NFCError.malformedDump("block \(block.number) appears twice") }
            blocks[block.number] = block.data
        }
        self.fileType = fileType
        self.blocks = blocks
        self.gaps = dump.classicTrailerGaps
    }

    /// Throws ``NFCError/malformedDump(_:)`` when a dump of a Classic product (``ClassicFileType``)
    /// holds a block outside its layout or more blocks than the layout has (importers; the exporters
    /// check more in ``init(_:unsupportedMessage:)``). Dumps of other types pass.
    static func checkBlockNumbers(_ dump: TagDump) throws {
        guard let fileType = ClassicFileType.forType(dump.cardInfo.type) else { return }
        let total = fileType.layout.totalBlocks
        guard dump.blocks.count <= total else {
            throw NFCError.malformedDump("\(dump.blocks.count) blocks; a \(dump.cardInfo.type.description) has \(total)")
        }
        if let block = dump.blocks.first(where: { !(0..<total).contains($0.number) }) {
            throw NFCError.malformedDump(
                "block \(block.number) is outside the \(total) blocks of a \(dump.cardInfo.type.description)")
        }
    }

    /// The first block of the layout the dump does not hold (a block never read: a sector no key
    /// opened, a block its access bits keep from the key found); nil when every block is there. A
    /// trailer whose keys are unknown is there (its gaps are zeros in the fixed-offset images).
    var firstUnreadBlock: Int? {
        (0..<layout.totalBlocks).first { blocks[$0] == nil }
    }

    /// The blocks a fixed-offset image (MFD, Proxmark3 `hf mf` dump, `.eml`) of this dump is written
    /// with: every block of the layout when all were read; else, with `partial`, the whole sectors
    /// before the sector of the first block not read (nothing is written for blocks not read, never
    /// zeros); without `partial`, ``NFCError/partialDump(_:)`` naming that block and its sector
    /// (``FixedImageCut``). `format` names the file in the message ("an MFD file").
    func readBlockCount(partial: Bool, format: String) throws -> Int {
        try Self.cut.unitCount(total: layout.totalBlocks, firstUnread: firstUnreadBlock, partial: partial, format: format) {
            // A sector is written whole or not at all: the image stops at the first block of the
            // sector holding the block not read.
            let sector = layout.sector(ofBlock: $0) ?? 0
            return FixedImageCut.Cut(
                units: layout.firstBlock(ofSector: sector) ?? 0, parts: sector, location: " (sector \(sector))")
        }
    }

    /// A block image is cut at a sector's first block; zeros in a trailer are keys and access bits
    /// that lock the sector for good.
    private static let cut = FixedImageCut(
        unit: "block", part: "sector", emptyPart: "incomplete",
        risk: "written back to a card, a trailer of zeros locks its sector")

    /// Blocks 0 ..< `count`, 16 bytes each, the trailer parts the dump does not know as zeros (the
    /// MFD convention: `nfc-mfclassic` writes zeros for the key it did not use).
    func bytes(blockCount count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 16)
        for number in 0..<count { bytes += knownBytes(number).map { $0 ?? 0 } }
        return bytes
    }

    /// The 16 bytes of block `number`, nil for each byte not known.
    func knownBytes(_ number: Int) -> [UInt8?] {
        guard let data = blocks[number] else { return [UInt8?](repeating: nil, count: 16) }
        var bytes = data.map { Optional($0) }
        if layout.isTrailer(number), let sector = layout.sector(ofBlock: number) {
            for part in ClassicTrailerGaps.Part.allCases where gaps.isUnknown(part, sector: sector) {
                for index in part.bytes { bytes[index] = nil }
            }
        }
        return bytes
    }

    /// The UID a file should name: the dump's, else the one block 0 holds (a 4-byte UID followed by
    /// its BCC, else 7 bytes: MF1S50yyX §8.6.1, MF1S50yyX with 7-byte UID §8.6.1).
    func uid(_ dump: TagDump) -> [UInt8] {
        if !dump.cardInfo.uid.isEmpty { return dump.cardInfo.uid }
        return blocks[0].map(Self.uid(inBlock0:)) ?? []
    }

    /// The UID stored in block 0: 4 bytes when byte 4 is their BCC, else 7 bytes.
    static func uid(inBlock0 block: [UInt8]) -> [UInt8] {
        guard block.count >= 7 else { return [] }
        return ISO14443.bcc(Array(block[0..<4])) == block[4] ? Array(block[0..<4]) : Array(block[0..<7])
    }
}
