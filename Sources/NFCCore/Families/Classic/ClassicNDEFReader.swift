/// Reads the NDEF message of a MIFARE Classic formatted as an NFC Forum tag (NXP AN1304 "NFC Type
/// MIFARE Classic Tag Operation", on the MIFARE Application Directory of AN10787), reading only the
/// blocks the message occupies.
///
/// Steps: authenticate sector 0 with the MAD public key A (a card that refuses it is not NFC Forum
/// formatted: no message) and read its trailer, whose general-purpose byte says whether a MAD exists;
/// read MAD1 (blocks 1–2) and, for MAD2 on cards with more than 16 sectors, blocks 64–66; the sectors
/// whose AID is E103h, in ascending order, form the NDEF area — their data blocks (trailers left out)
/// concatenated. Each NDEF sector is authenticated with the NFC Forum key A D3F7D3F7D3F7h when the TLV
/// walk first needs one of its blocks (the TLVs are those of Type 2, without Lock and Memory Control
/// TLVs; ``NFCForumTLV/walk(memory:start:end:controlTLVs:)``). The NDEF sectors' access bits and
/// general-purpose bytes are not read: a sector whose key or conditions refuse is reported.
///
/// A refused authentication or READ halts the card; it is re-selected (through ``ClassicDump``'s
/// session) so the agent's presence checks and a later dump find it ACTIVE.
enum ClassicNDEFReader {
    /// Reads the NDEF message. Throws transport errors (``NFCError/tagRemoved``) and cancellation for
    /// ``NDEFReader`` to sort; a bad MAD CRC throws ``NFCError/crcMismatch``.
    static func read(info: CardInfo, transport: any ClassicAuthenticating) async throws -> NDEFReadResult {
        guard let layout = ClassicLayout.forType(info.type) else {
            return .notRead(.unsupportedOperation("\(info.type.description) has no MIFARE Classic sector layout"))
        }
        let session = ClassicDump.Session(transport: transport, keys: [])
        let mad: ClassicMAD
        switch try await directory(session: session, layout: layout) {
        case .none: return .noMessage
        case let .unreadable(error): return .unreadable(error)
        case let .mad(found, _): mad = found
        }

        let sectors = mad.sectors(of: ClassicMAD.ndefAID).filter { $0 < layout.sectorCount && $0 != ClassicMAD.mad2Sector }
        guard !sectors.isEmpty else { return .noMessage }
        let dataBlocks = sectors.flatMap { layout.blocks(ofSector: $0).dropLast() }
        let end = dataBlocks.count * 16
        var memory: [UInt8] = []
        var authenticatedSector: Int?
        while true {
            let walk = NFCForumTLV.walk(memory: memory, start: 0, end: end, controlTLVs: false)
            if let result = NDEFReadResult(walk: walk, area: "the \(end) bytes of the NDEF sectors") { return result }
            guard case let .needsMemory(upTo) = walk else { return .unreadable(.invalidResponse([])) }
            let index = memory.count / 16
            guard (upTo - 1) / 16 >= index, index < dataBlocks.count else { return .unreadable(.invalidResponse([])) }
            let block = dataBlocks[index]
            try Task.checkCancellation()
            if let sector = layout.sector(ofBlock: block), sector != authenticatedSector {
                guard let trailerBlock = layout.trailerBlock(ofSector: sector),
                    try await session.authenticate(block: trailerBlock, keyType: .a, key: ClassicMAD.ndefKeyA)
                else { return .unreadable(.authenticationFailed) }
                authenticatedSector = sector
            }
            guard let data = try await session.readBlock(block) else { return .unreadable(refusal) }
            memory += data
        }
    }

    /// What sector 0 (and 16) say about NFC Forum sectors.
    enum Directory {
        /// No MAD: the MAD key A does not open sector 0, or its general-purpose byte announces none.
        case none
        /// A MAD should be there but could not be read.
        case unreadable(NFCError)
        /// The MAD, and the MAD1 bytes (blocks 1–2) it was read from.
        case mad(ClassicMAD, mad1: [UInt8])
    }

    /// Reads MAD1 (and MAD2 on cards with more than 16 sectors when the GPB says version 2) with the
    /// MAD public key A. A bad CRC throws ``NFCError/crcMismatch``.
    static func directory(session: ClassicDump.Session, layout: ClassicLayout) async throws -> Directory {
        // MAD1: sector 0, blocks 1–2; its trailer's general-purpose byte (byte 9) says whether it exists.
        guard try await session.authenticate(block: 3, keyType: .a, key: ClassicMAD.publicKeyA) else { return .none }
        guard let trailer = try await session.readBlock(3) else { return .unreadable(refusal) }
        guard let version = ClassicMAD.version(generalPurposeByte: trailer[9]) else { return .none }
        guard let block1 = try await session.readBlock(1), let block2 = try await session.readBlock(2) else {
            return .unreadable(refusal)
        }
        var mad = try ClassicMAD(sector0: block1 + block2, version: version)
        if version == 2, layout.sectorCount > ClassicMAD.mad2Sector {
            // MAD2: blocks 64–66, trailer 67.
            let madBlocks = layout.blocks(ofSector: ClassicMAD.mad2Sector)
            try Task.checkCancellation()
            guard let madTrailer = madBlocks.last,
                try await session.authenticate(block: madTrailer, keyType: .a, key: ClassicMAD.publicKeyA)
            else { return .unreadable(.authenticationFailed) }
            var bytes: [UInt8] = []
            for number in madBlocks.dropLast() {
                guard let block = try await session.readBlock(number) else { return .unreadable(refusal) }
                bytes += block
            }
            try mad.addMAD2(sector16: bytes)
        }
        return .mad(mad, mad1: block1 + block2)
    }

    /// What a refused READ becomes.
    private static let refusal = NFCError.commandRefused(command: 0x30, nak: nil)
}
