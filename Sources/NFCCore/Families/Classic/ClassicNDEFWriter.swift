/// NDEF write and format of a MIFARE Classic as an NFC Forum tag (NXP AN1305 "MIFARE Classic as NFC
/// Type MIFARE Classic Tag", on the MIFARE Application Directory of AN10787). The message is read back
/// through ``ClassicNDEFReader`` afterwards.
///
/// Format turns a factory-fresh card (every sector opens with key A FFFFFFFFFFFFh and its trailer lets
/// key A rewrite key A and the access bits: the transport condition 001) into an NFC Forum card with
/// an empty message: every sector but the MAD sectors becomes an NDEF sector — key A D3F7D3F7D3F7h,
/// access bits 7F 07 88 (data blocks 000: read/write with key A or B; trailer 011), general-purpose
/// byte 40h (mapping version 1.0, read and write access granted) — the first holding the empty NDEF
/// TLV `03 00 FE`; then MAD1 in sector 0 (and MAD2 in sector 16 on cards with more than 16 sectors)
/// listing them with the NDEF AID E103h (stored `03 E1`), info byte 01h, key A A0A1A2A3A4A5h, access
/// bits 78 77 88 (data 100: read with A or B, write with key B only; trailer 011), general-purpose byte
/// C1h (DA, multi-application, MAD1) or C2h (MAD2). Key B keeps its value. The MAD is written last, so
/// a card pulled midway shows no MAD. A card that is NFC Forum formatted already gets the empty
/// message.
///
/// Write needs an NFC Forum formatted card (else ``NFCError/unsupportedOperation(_:)``: format it
/// first): the MAD's NDEF sectors, in ascending order, hold the TLV area `03 L message FE` across their
/// data blocks. Only the blocks the area covers are written, with the NFC Forum key A; a sector whose
/// general-purpose byte denies write access (bits 1–0 ≠ 00) or whose access bits keep key A from
/// writing gives ``NFCError/tagLocked`` before anything is written.
enum ClassicNDEFWriter {
    /// Access bits of the MAD sectors (AN1305 and AN10787): data blocks 100, trailer 011.
    static let madAccessBits: [UInt8] = [0x78, 0x77, 0x88]
    /// Access bits of NDEF sectors with read/write access (AN1305): data blocks 000, trailer 011.
    static let ndefAccessBits: [UInt8] = [0x7F, 0x07, 0x88]
    /// General-purpose byte of an NDEF sector (AN1305): version 1.0 (bits 7–4 = 4h), read access 00,
    /// write access 00 (granted).
    static let ndefGeneralPurposeByte: UInt8 = 0x40
    /// General-purpose byte of sector 0 (AN10787): DA (MAD available) | MA (multi-application) | ADV.
    static func madGeneralPurposeByte(version: Int) -> UInt8 { version == 2 ? 0xC2 : 0xC1 }
    /// Info byte of MAD1 as NFC Forum formatted cards carry it (AN10787 MAD1 structure).
    static let mad1Info: UInt8 = 0x01
    /// Transport key A and B (MF1S50yyX §8.6.3).
    static let factoryKey: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]

    /// Writes `bytes` as the NDEF message and reads it back.
    static func write(ndef bytes: [UInt8], info: CardInfo, transport: any TagTransport, formatIfBlank: Bool = false)
        async throws(TagOperationError) -> WriteReport
    {
        guard let layout = ClassicLayout.forType(info.type) else { throw TagOperationError(TagVerb.write.unsupported(for: info.type)) }
        guard let classic = transport as? any ClassicAuthenticating else {
            throw TagOperationError(.unsupportedOperation("This reader cannot authenticate MIFARE Classic sectors"))
        }
        let session = ClassicDump.Session(transport: classic, keys: [])
        var written: [Int] = []
        do {
            let mad1: [UInt8]
            let sectors: [Int]
            var messageWritten = false
            switch try await ClassicNDEFReader.directory(session: session, layout: layout) {
            case .none:
                guard formatIfBlank else {
                    throw NFCError.unsupportedOperation(
                        "The MIFARE Classic is not NFC Forum formatted (no MAD): format it first")
                }
                (mad1, sectors) = try await formatBlank(layout: layout, session: session, written: &written)
                // The format wrote the empty message already.
                messageWritten = bytes.isEmpty
            case let .unreadable(error):
                throw error
            case let .mad(mad, bytes):
                mad1 = bytes
                sectors = mad.sectors(of: ClassicMAD.ndefAID).filter { $0 < layout.sectorCount && $0 != ClassicMAD.mad2Sector }
                guard !sectors.isEmpty else {
                    throw NFCError.unsupportedOperation("The MAD lists no NDEF sector (AID E103h): the card holds other applications")
                }
            }
            if !messageWritten {
                try await writeMessage(bytes, sectors: sectors, layout: layout, session: session, written: &written)
            }
            let check = try await ClassicNDEFReader.read(info: info, transport: classic)
            guard check == .message(bytes) else {
                throw NFCError.verifyFailed(page: sectors.first.flatMap { layout.firstBlock(ofSector: $0) } ?? 0)
            }
            return WriteReport(uid: info.uid, cardType: info.type, messageLength: bytes.count, bytesWritten: written.count * 16,
                               pagesWritten: written, capabilityContainer: mad1)
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: written)
        }
    }

    /// Formats the card (see the type's documentation): a factory card is NFC Forum formatted, an NFC
    /// Forum card gets the empty message.
    static func format(info: CardInfo, transport: any TagTransport) async throws(TagOperationError) -> WriteReport {
        try await write(ndef: [], info: info, transport: transport, formatIfBlank: true)
    }

    /// The TLV area across the data blocks of `sectors`; nothing is written unless every sector it
    /// needs lets key A write.
    private static func writeMessage(_ message: [UInt8], sectors: [Int], layout: ClassicLayout,
                                     session: ClassicDump.Session, written: inout [Int]) async throws {
        let dataBlocks = sectors.flatMap { layout.blocks(ofSector: $0).dropLast() }
        var area = try NFCForumTLV.makeArea(message: message, capacity: dataBlocks.count * 16)
        area += [UInt8](repeating: 0, count: (16 - area.count % 16) % 16)
        let targets = Array(dataBlocks.prefix(area.count / 16))
        var needed: [Int] = []
        for block in targets {
            if let sector = layout.sector(ofBlock: block), needed.last != sector { needed.append(sector) }
        }
        for sector in needed {
            try Task.checkCancellation()
            let trailer = try await openNDEFSector(sector, layout: layout, session: session)
            guard let current = try await session.readBlock(trailer) else { throw NFCError.tagLocked }
            guard current[9] & 0x03 == 0, let bits = try? AccessBits.decode(Array(current[6..<9])) else { throw NFCError.tagLocked }
            for block in targets where layout.sector(ofBlock: block) == sector {
                guard let group = layout.accessGroup(ofBlock: block), bits.permissions(group: group, keyType: .a).write else {
                    throw NFCError.tagLocked
                }
            }
        }
        for sector in needed {
            try Task.checkCancellation()
            try await openNDEFSector(sector, layout: layout, session: session)
            for (index, block) in targets.enumerated() where layout.sector(ofBlock: block) == sector {
                let chunk = Array(area[index * 16..<index * 16 + 16])
                try await session.writeBlock(block, chunk)
                written.append(block)
                guard try await session.readBlock(block) == chunk else { throw NFCError.verifyFailed(page: block) }
            }
        }
    }

    /// Authenticates an NDEF sector with the NFC Forum key A; returns its trailer block.
    @discardableResult
    private static func openNDEFSector(_ sector: Int, layout: ClassicLayout, session: ClassicDump.Session) async throws -> Int {
        guard let trailer = layout.trailerBlock(ofSector: sector) else { throw NFCError.invalidArgument("Sector \(sector) does not exist") }
        guard try await session.authenticate(block: trailer, keyType: .a, key: ClassicMAD.ndefKeyA) else {
            throw NFCError.authenticationFailed
        }
        return trailer
    }

    /// NFC Forum formats a factory card with an empty message; returns MAD1 and the NDEF sectors.
    private static func formatBlank(layout: ClassicLayout, session: ClassicDump.Session, written: inout [Int])
        async throws -> (mad1: [UInt8], sectors: [Int])
    {
        let hasMAD2 = layout.sectorCount > ClassicMAD.mad2Sector
        let madSectors = hasMAD2 ? [0, ClassicMAD.mad2Sector] : [0]
        let ndefSectors = (1..<layout.sectorCount).filter { !madSectors.contains($0) }
        guard let firstNDEF = ndefSectors.first, let firstNDEFBlock = layout.firstBlock(ofSector: firstNDEF) else {
            throw NFCError.unsupportedOperation("The card has no sector for NDEF data")
        }
        let directoryBlocks = madSectors.flatMap { layout.blocks(ofSector: $0).dropLast().filter { $0 != 0 } }

        // Pass 1: every sector opens with the factory key A, which may rewrite its trailer and the data
        // blocks to be written; key B is read to be kept.
        var keysB: [Int: [UInt8]] = [:]
        for sector in 0..<layout.sectorCount {
            try Task.checkCancellation()
            guard let trailer = layout.trailerBlock(ofSector: sector) else { continue }
            guard try await session.authenticate(block: trailer, keyType: .a, key: factoryKey),
                let current = try await session.readBlock(trailer), let bits = try? AccessBits.decode(Array(current[6..<9]))
            else {
                throw NFCError.unsupportedOperation(
                    "Sector \(sector) does not open with the factory key A FFFFFFFFFFFF: only a factory-fresh MIFARE Classic is NFC Forum formatted (AN1305)")
            }
            let rights = bits.permissions(group: 3, keyType: .a)
            let writesData = (directoryBlocks + [firstNDEFBlock]).filter { layout.sector(ofBlock: $0) == sector }.allSatisfy {
                layout.accessGroup(ofBlock: $0).map { bits.permissions(group: $0, keyType: .a).write } ?? false
            }
            guard rights.writeKeyA, rights.writeAccessBits, rights.readKeyB, writesData else {
                throw NFCError.accessDenied(
                    "The access bits of sector \(sector) (trailer condition \(bits.trailer)) do not let the factory key A rewrite it: only a card in the transport configuration is NFC Forum formatted")
            }
            keysB[sector] = Array(current[10..<16])
        }

        // Pass 2: the NDEF sectors, the MAD sectors last.
        for sector in ndefSectors {
            let data = sector == firstNDEF ? [[0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 13)] : []
            try await rewrite(sector: sector, data: data, trailer: ClassicMAD.ndefKeyA + ndefAccessBits + [ndefGeneralPurposeByte],
                              keyB: keysB[sector] ?? factoryKey, layout: layout, session: session, written: &written)
        }
        let aids = (1...15).map { ndefSectors.contains($0) ? ClassicMAD.ndefAID : 0 }
        let mad1 = ClassicMAD.encode(aids: aids, count: 15, info: mad1Info)
        let version = hasMAD2 ? 2 : 1
        let madTrailer = ClassicMAD.publicKeyA + madAccessBits + [madGeneralPurposeByte(version: version)]
        if hasMAD2 {
            let mad2 = ClassicMAD.encode(aids: (17...39).map { ndefSectors.contains($0) ? ClassicMAD.ndefAID : 0 }, count: 23, info: 0x00)
            try await rewrite(sector: ClassicMAD.mad2Sector, data: stride(from: 0, to: 48, by: 16).map { Array(mad2[$0..<$0 + 16]) },
                              trailer: madTrailer, keyB: keysB[ClassicMAD.mad2Sector] ?? factoryKey, layout: layout,
                              session: session, written: &written)
        }
        try await rewrite(sector: 0, data: [Array(mad1[0..<16]), Array(mad1[16..<32])], trailer: madTrailer,
                          keyB: keysB[0] ?? factoryKey, layout: layout, session: session, written: &written, skipBlock0: true)
        return (mad1, ndefSectors)
    }

    /// With the factory key A: writes `data` into the sector's data blocks from the first (from block 1
    /// in sector 0), then its trailer (`trailer` = key A, access bits, GPB; then `keyB`), each read back.
    private static func rewrite(sector: Int, data: [[UInt8]], trailer: [UInt8], keyB: [UInt8], layout: ClassicLayout,
                                session: ClassicDump.Session, written: inout [Int], skipBlock0: Bool = false) async throws {
        try Task.checkCancellation()
        let blocks = layout.blocks(ofSector: sector)
        guard let trailerBlock = blocks.last else { throw NFCError.invalidArgument("Sector \(sector) does not exist") }
        guard try await session.authenticate(block: trailerBlock, keyType: .a, key: factoryKey) else { throw NFCError.authenticationFailed }
        let dataBlocks = blocks.dropLast().filter { !(skipBlock0 && $0 == 0) }
        for (block, bytes) in zip(dataBlocks, data) {
            try await session.writeBlock(block, bytes)
            written.append(block)
            guard try await session.readBlock(block) == bytes else { throw NFCError.verifyFailed(page: block) }
        }
        let newTrailer = trailer + keyB
        try await session.writeBlock(trailerBlock, newTrailer)
        written.append(trailerBlock)
        try await ClassicBlockWriter.verifyTrailer(newTrailer, block: trailerBlock, session: session)
    }
}
