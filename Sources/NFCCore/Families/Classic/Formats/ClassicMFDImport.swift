/// libnfc MFD import for MIFARE Classic, typed by file size.
extension TagDump {
    /// Reads a libnfc MFD file of a MIFARE Classic: 320 (Mini), 1024 (1K), 2048 (Plus 2K in SL1) or
    /// 4096 bytes (4K) of raw 16-byte blocks, as `nfc-mfclassic r` writes them and Proxmark3 saves
    /// `hf mf` dumps (`hf-mf-<UID>-dump.bin`), or a cut image (a `--partial` export: whole sectors from
    /// sector 0) of the product its manufacturer block's SAK names (``ClassicImageIdentity``), read
    /// as partial: the sectors after the cut are not in the dump.
    ///
    /// An MFD cannot mark anything unknown, so zeros are read as the writers mean them:
    /// - a sector that is zeros throughout was not read (NFCBridge's export writes unread sectors so;
    ///   no card holds one, its trailer's access bits would be invalid) and is left out;
    /// - in a trailer, a key of six zero bytes is unknown (`nfc-mfclassic r a` writes zeros for key B,
    ///   which it never tries; NFCBridge for keys it did not find), and so are all-zero access bits.
    ///   Those parts are listed in the dump's ``ClassicTrailerGaps`` facts. A real key 000000000000 is
    ///   therefore read as unknown.
    ///
    /// The UID comes from block 0 (4 bytes when followed by their BCC, else 7); SAK and ATQA are the
    /// product's (``ClassicFileType``).
    /// - Throws: ``NFCError/malformedDump(_:)`` for any other size, naming the whole sizes and the SAK rule.
    public static func importClassicMFD(_ bytes: [UInt8]) throws -> TagDump {
        try importClassicBlocks(bytes, source: "libnfc MFD")
    }

    /// A Classic block image (MFD, Proxmark3 `hf mf` dump) read as ``importClassicMFD(_:)`` describes.
    static func importClassicBlocks(_ bytes: [UInt8], source: String) throws -> TagDump {
        guard let identity = ClassicImageIdentity(image: bytes) else {
            throw NFCError.malformedDump(ClassicImageIdentity.refusal(
                byteCount: bytes.count, sak: ClassicImageIdentity.sakInManufacturerBlock(bytes)))
        }
        let fileType = identity.fileType
        let (blocks, gaps) = zeroMarkedClassicBlocks(bytes, layout: fileType.layout)
        let uid = blocks.first { $0.number == 0 }.map { ClassicBlockImage.uid(inBlock0: $0.data) } ?? []
        return importedClassicDump(fileType: fileType, uid: uid, atqa: fileType.atqa(uidLength: uid.count),
                                   sak: fileType.sak, blocks: blocks, gaps: gaps, source: source)
    }

    /// The blocks and gaps of a whole block image (`layout.totalBytes` bytes) in a format that has no
    /// mark for unknown bytes, where writers put zeros instead: a sector of zeros throughout is left
    /// out (unread), and each all-zero part of a trailer (key A, access bits, key B) is unknown.
    static func zeroMarkedClassicBlocks(_ bytes: [UInt8], layout: ClassicLayout) -> ([Block], ClassicTrailerGaps) {
        var blocks: [Block] = []
        for sector in 0..<layout.sectorCount {
            let numbers = layout.blocks(ofSector: sector).filter { $0 * 16 + 16 <= bytes.count }
            let sectorBlocks = numbers.map { Array(bytes[$0 * 16..<$0 * 16 + 16]) }
            guard sectorBlocks.contains(where: { $0.contains { $0 != 0 } }) else { continue }
            blocks += zip(numbers, sectorBlocks).map { Block(number: $0, data: $1) }
        }
        return (blocks, ClassicTrailerGaps(zeroPartsOfTrailersIn: blocks, layout: layout))
    }

    /// The dump a Classic import gives: `blocks` in address order, the facts `Imported From`,
    /// `Blocks Read` ("60 of 64") and the gap facts, and the capabilities a ``ClassicDump`` would
    /// report for the same blocks (readable when any block is there, authentication required,
    /// partially readable when blocks are missing).
    static func importedClassicDump(fileType: ClassicFileType, uid: [UInt8], atqa: [UInt8]?, sak: UInt8?,
                                    blocks: [Block], gaps: ClassicTrailerGaps, source: String) -> TagDump {
        let total = fileType.layout.totalBlocks
        var capabilities: [CardCapability] = blocks.isEmpty ? [] : [.readable]
        capabilities.append(.authenticationRequired)
        if blocks.count < total { capabilities.append(.partiallyReadable) }
        return TagDump(
            cardInfo: CardInfo(type: fileType.type, uid: uid, atqa: atqa, sak: sak),
            blocks: blocks.sorted { $0.number < $1.number },
            facts: [Fact(key: "Imported From", value: source), Fact(key: "Blocks Read", value: "\(blocks.count) of \(total)")]
                + gaps.facts,
            capabilities: capabilities,
            family: gaps.isEmpty ? .none : .classic(gaps))
    }
}

extension ClassicTrailerGaps {
    /// The gaps of `blocks` in a record that has no mark for unknown bytes, where writers put zeros
    /// instead (an MFD file, a JSON file written before `trailerGaps`): each all-zero part (key A, access
    /// bits, key B) of a trailer block in `blocks` is unknown.
    init(zeroPartsOfTrailersIn blocks: [Block], layout: ClassicLayout) {
        self.init()
        for sector in 0..<layout.sectorCount {
            guard let number = layout.trailerBlock(ofSector: sector),
                let trailer = blocks.first(where: { $0.number == number })?.data, trailer.count == 16
            else { continue }
            for part in Part.allCases where trailer[part.bytes].allSatisfy({ $0 == 0 }) {
                self[part].insert(sector)
            }
        }
    }
}
