/// One block of a raw MIFARE Classic write: its absolute number and its 16 bytes.
public struct ClassicBlockData: Sendable, Hashable {
    /// Absolute block number (sector 1 starts at block 4; on a 4K sector 32 starts at block 128).
    public var block: Int
    /// The 16 bytes to write.
    public var data: [UInt8]

    public init(block: Int, data: [UInt8]) {
        self.block = block
        self.data = data
    }
}

/// What a raw block write did; returned only after every block was read back and compared.
public struct ClassicBlockWriteReport: Sendable, Hashable {
    /// UID of the tag written.
    public var uid: [UInt8]
    /// Its card type.
    public var cardType: CardType
    /// The blocks written, in write order.
    public var blocksWritten: [Int]

    public init(uid: [UInt8], cardType: CardType, blocksWritten: [Int]) {
        self.uid = uid
        self.cardType = cardType
        self.blocksWritten = blocksWritten
    }
}

/// Raw WRITE (A0h) of MIFARE Classic blocks with one known key, checked against the sector's access
/// bits first (MF1S50yyX §8.7) and read back after.
///
/// Refusals, before anything is written:
/// - ``NFCError/invalidArgument(_:)`` for what the request alone shows (``validate(_:allowTrailer:layout:)``):
///   a block that is not 16 bytes, out of range, block 0 (the manufacturer block, read-only:
///   MF1S50yyX §8.6.1), a block given twice, a sector trailer without `allowTrailer`, a trailer whose
///   new access bits are inconsistent (their inverted copies disagree: the sector would be blocked
///   for good, §8.7.1);
/// - ``NFCError/authenticationFailed`` when the key does not open a sector;
/// - ``NFCError/accessDenied(_:)`` when the sector's current access conditions do not let the key
///   write the block (a data block: Table 8; a trailer: every part the new bytes change — key A,
///   access bits with the general-purpose byte, key B — must be writable with the key, Table 7; a part
///   whose current value cannot be read counts as changed).
///
/// Every sector named is authenticated and its trailer read (the access bits are readable with
/// key A in every condition, and with key B wherever key B is a key) before the first WRITE. Blocks are
/// written sector by sector, the trailer last in its sector, each read back at once: a data block
/// with the same session, a trailer after a fresh authentication with the key A it now holds, comparing
/// the parts the new conditions let key A read (key A itself never reads back). A difference throws
/// ``NFCError/verifyFailed(page:)``; a NAK ``NFCError/writeFailed(page:)``. Errors after the first
/// WRITE carry the blocks written so far.
public enum ClassicBlockWriter {
    /// Checks what the request alone shows, without a tag (see the type's documentation). `layout`
    /// defaults to the 4K's, whose trailers sit where every smaller product has them.
    public static func validate(_ blocks: [ClassicBlockData], allowTrailer: Bool,
                                layout: ClassicLayout = .classic4K) throws(NFCError) {
        guard !blocks.isEmpty else { throw .invalidArgument("No block to write") }
        var seen = Set<Int>()
        for item in blocks {
            let block = item.block
            guard item.data.count == 16 else {
                throw .invalidArgument("Block \(block): a MIFARE Classic block holds 16 bytes, not \(item.data.count)")
            }
            guard let sector = layout.sector(ofBlock: block) else {
                throw .invalidArgument("Block \(block) does not exist (the card has blocks 0–\(layout.totalBlocks - 1))")
            }
            guard block != 0 else {
                throw .invalidArgument("Block 0 is the manufacturer block: it is read-only (MF1S50yyX §8.6.1)")
            }
            guard seen.insert(block).inserted else { throw .invalidArgument("Block \(block) is given twice") }
            guard layout.isTrailer(block) else { continue }
            guard allowTrailer else {
                throw .invalidArgument(
                    "Block \(block) is the trailer of sector \(sector) (keys and access bits): writing it needs allow_trailer")
            }
            guard (try? AccessBits.decode(Array(item.data[6..<9]))) != nil else {
                throw .invalidArgument(
                    "Block \(block): the access bits \(Array(item.data[6..<9]).hexString) are inconsistent (their inverted copies disagree): writing them would block sector \(sector) for good (MF1S50yyX §8.7.1)")
            }
        }
    }

    /// Writes `blocks` with `key` as `keyType` and reads them back (see the type's documentation).
    public static func write(_ blocks: [ClassicBlockData], key: [UInt8], keyType: ClassicKeyType, allowTrailer: Bool,
                             to transport: any TagTransport, info: CardInfo) async throws(TagOperationError)
        -> ClassicBlockWriteReport
    {
        guard let layout = ClassicLayout.forType(info.type) else { throw TagOperationError(TagVerb.write.unsupported(for: info.type)) }
        guard let classic = transport as? any ClassicAuthenticating else {
            throw TagOperationError(.unsupportedOperation("This reader cannot authenticate MIFARE Classic sectors"))
        }
        guard key.count == 6 else {
            throw TagOperationError(.invalidArgument("A MIFARE Classic key has 6 bytes, not \(key.count)"))
        }
        do { try validate(blocks, allowTrailer: allowTrailer, layout: layout) } catch { throw TagOperationError(error) }
        // Sector by sector, data blocks in ascending order, the trailer last.
        var bySector: [Int: [ClassicBlockData]] = [:]
        for item in blocks {
            if let sector = layout.sector(ofBlock: item.block) { bySector[sector, default: []].append(item) }
        }
        let plan = bySector.keys.sorted().map { sector in
            (sector: sector, blocks: (bySector[sector] ?? []).sorted {
                (layout.isTrailer($0.block) ? 1 : 0, $0.block) < (layout.isTrailer($1.block) ? 1 : 0, $1.block)
            })
        }
        let session = ClassicDump.Session(transport: classic, keys: [])
        var written: [Int] = []
        do {
            // Pass 1: every sector's access conditions, before any WRITE.
            for step in plan {
                try Task.checkCancellation()
                let trailer = try trailerBlock(of: step.sector, layout: layout)
                let current = try await openTrailer(trailer, sector: step.sector, key: key, keyType: keyType, layout: layout, session: session)
                let bits: AccessBits
                do { bits = try AccessBits.decode(Array(current[6..<9])) } catch {
                    throw NFCError.accessDenied("Sector \(step.sector)'s access bits are inconsistent: the sector is blocked")
                }
                for item in step.blocks {
                    try check(item, current: current, bits: bits, key: key, keyType: keyType, layout: layout)
                }
            }
            // Pass 2: write and read back.
            for step in plan {
                try Task.checkCancellation()
                let trailer = try trailerBlock(of: step.sector, layout: layout)
                guard try await session.authenticate(block: trailer, keyType: keyType, key: key) else {
                    throw TagOperationError(.authenticationFailed, pagesWritten: written,
                                            detail: keyRefused(keyType, sector: step.sector, layout: layout))
                }
                for item in step.blocks {
                    try await session.writeBlock(item.block, item.data)
                    written.append(item.block)
                    if item.block == trailer {
                        try await verifyTrailer(item.data, block: trailer, session: session)
                    } else {
                        guard try await session.readBlock(item.block) == item.data else {
                            throw NFCError.verifyFailed(page: item.block)
                        }
                    }
                }
            }
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: written)
        }
        return ClassicBlockWriteReport(uid: info.uid, cardType: info.type, blocksWritten: written)
    }

    private static func trailerBlock(of sector: Int, layout: ClassicLayout) throws(NFCError) -> Int {
        guard let trailer = layout.trailerBlock(ofSector: sector) else {
            throw .invalidArgument("Sector \(sector) does not exist")
        }
        return trailer
    }

    /// Which key did not open which sector, for the refusal: "key A does not open sector 1 (blocks 4–7)".
    private static func keyRefused(_ keyType: ClassicKeyType, sector: Int, layout: ClassicLayout) -> String {
        let blocks = layout.blocks(ofSector: sector)
        let range = blocks.first.map { first in "\(first)–\(blocks.last ?? first)" } ?? "?"
        return "key \(keyType.rawValue) does not open sector \(sector) (blocks \(range)); nothing of that sector was written"
    }

    /// Authenticates `sector` and reads its trailer.
    private static func openTrailer(_ trailer: Int, sector: Int, key: [UInt8], keyType: ClassicKeyType, layout: ClassicLayout,
                                    session: ClassicDump.Session) async throws -> [UInt8] {
        guard try await session.authenticate(block: trailer, keyType: keyType, key: key) else {
            throw TagOperationError(.authenticationFailed, detail: keyRefused(keyType, sector: sector, layout: layout))
        }
        guard let current = try await session.readBlock(trailer) else {
            // Key A always reads the access bits; key B only where it is a key (Table 7).
            throw NFCError.accessDenied(
                "Key \(keyType.rawValue) of sector \(sector) may not read its access bits: key B is readable there, so it opens nothing (MF1S50yyX §8.7.2)")
        }
        return current
    }

    /// Refuses `item` when the current conditions do not let the key write it.
    private static func check(_ item: ClassicBlockData, current: [UInt8], bits: AccessBits, key: [UInt8],
                              keyType: ClassicKeyType, layout: ClassicLayout) throws(NFCError) {
        guard let group = layout.accessGroup(ofBlock: item.block), let sector = layout.sector(ofBlock: item.block) else {
            throw .invalidArgument("Block \(item.block) does not exist")
        }
        let allowed = bits.permissions(group: group, keyType: keyType)
        let name = "key \(keyType.rawValue)"
        guard group == 3 else {
            guard allowed.write else {
                let row = ClassicAccessTables.data[Int(bits.data(group).value)]
                throw .accessDenied(
                    "The access bits of sector \(sector) do not let \(name) write block \(item.block): its condition is \(bits.data(group)), written by \(row.write.wording) (MF1S50yyX §8.7.3)")
            }
            return
        }
        let row = ClassicAccessTables.trailer[Int(bits.trailer.value)]
        let refuse = { (part: String, requirement: ClassicKeyRequirement) -> NFCError in
            .accessDenied(
                "The access bits of sector \(sector) do not let \(name) write \(part) of trailer \(item.block): its condition is \(bits.trailer), written by \(requirement.wording) (MF1S50yyX §8.7.2)")
        }
        // Key A is never readable: it is known only when it is the key used.
        if !(keyType == .a && Array(item.data[0..<6]) == key), !allowed.writeKeyA { throw refuse("key A", row.keyAWrite) }
        if Array(item.data[6..<10]) != Array(current[6..<10]), !allowed.writeAccessBits {
            throw refuse("the access bits", row.accessBitsWrite)
        }
        let knownKeyB: [UInt8]? = keyType == .b ? key : (allowed.readKeyB ? Array(current[10..<16]) : nil)
        if Array(item.data[10..<16]) != knownKeyB, !allowed.writeKeyB { throw refuse("key B", row.keyBWrite) }
    }

    /// Reads a written trailer back after authenticating with the key A it now holds (`data` bytes 0–5:
    /// ``check`` refused a key A it could not know to be written); compares what the new conditions let
    /// key A read — the access bits always, key B where readable (key A itself never reads back).
    static func verifyTrailer(_ data: [UInt8], block: Int, session: ClassicDump.Session) async throws {
        guard let bits = try? AccessBits.decode(Array(data[6..<9])) else { throw NFCError.verifyFailed(page: block) }
        try await session.transport.reselect()
        guard try await session.authenticate(block: block, keyType: .a, key: Array(data[0..<6])) else {
            throw NFCError.verifyFailed(page: block)
        }
        guard let back = try await session.readBlock(block) else { throw NFCError.verifyFailed(page: block) }
        let allowed = bits.permissions(group: 3, keyType: .a)
        if allowed.readAccessBits, Array(back[6..<10]) != Array(data[6..<10]) { throw NFCError.verifyFailed(page: block) }
        if allowed.readKeyB, Array(back[10..<16]) != Array(data[10..<16]) { throw NFCError.verifyFailed(page: block) }
    }
}

extension ClassicKeyRequirement {
    /// "key A", "key B", "key A or B", "no key".
    var wording: String {
        switch self {
        case .never: "no key"
        case .keyA: "key A only"
        case .keyB: "key B only"
        case .keyAOrB: "key A or B"
        }
    }
}

extension ClassicDump.Session {
    /// READ of one block in the authenticated sector; nil when the card refuses it (it is then
    /// re-selected). A short answer throws ``NFCError/invalidResponse(_:)``.
    func readBlock(_ number: Int) async throws -> [UInt8]? {
        try Task.checkCancellation()
        do {
            let answer = try await transport.transceive([0x30, UInt8(truncatingIfNeeded: number)])
            guard answer.count >= 16 else { throw NFCError.invalidResponse(answer) }
            return Array(answer.prefix(16))
        } catch let error as NFCError where isRefusal(error) {
            try await transport.reselect()
            return nil
        }
    }

    /// WRITE (A0h) of one block in the authenticated sector, in the one frame PN53x InDataExchange
    /// takes (`A0 blk` + 16 bytes; the firmware sends the card's two parts, MF1S50yyX §9.3). Anything but
    /// the 4-bit ACK throws ``NFCError/writeFailed(page:)`` (a NAK re-selects the halted card first).
    func writeBlock(_ number: Int, _ data: [UInt8]) async throws {
        try Task.checkCancellation()
        let answer: [UInt8]
        do {
            answer = try await transport.transceive([0xA0, UInt8(truncatingIfNeeded: number)] + data)
        } catch let error as NFCError where isRefusal(error) {
            try await transport.reselect()
            throw NFCError.writeFailed(page: number)
        }
        guard answer == [0x0A] else { throw NFCError.writeFailed(page: number) }
    }
}
