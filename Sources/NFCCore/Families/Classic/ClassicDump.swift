/// Dumps a MIFARE Classic (Mini / 1K / 4K, Plus in SL1) by trying dictionary keys, sector by sector,
/// as libnfc's nfc-mfclassic does — with the reader's Crypto1 (PN53x firmware), no attacks.
public enum ClassicDump {
    /// Reads every sector a dictionary key opens.
    ///
    /// Per sector: key A is searched first (AUTH on the trailer; a wrong key halts the card, so it is
    /// re-selected before the next try) and the sector's blocks are read with it; key B is then taken
    /// from the trailer when the access bits make it readable, else searched, and used for the blocks
    /// key A may not read. A refused READ halts the card too: re-select, re-authenticate, go on.
    /// Sectors of which nothing could be read are skipped and counted. Trailers come back with the keys found written in
    /// (key A always reads as zeros). Checks for cancellation between sectors.
    ///
    /// Facts: Sectors, Sectors Read, Unknown Sectors, Blocks Read ("60 of 64"), Keys Found, then the
    /// ``ClassicTrailerGaps`` facts for trailers read without one of their keys.
    /// Capabilities: readable + authenticationRequired, plus partiallyReadable when a block is missing.
    /// Throws ``NFCError/unsupportedOperation(_:)`` when `info.type` has no Classic layout.
    public static func dump(info: CardInfo, transport: any ClassicAuthenticating,
                            keys: ClassicKeyDictionary = .standard) async throws -> TagDump {
        guard let layout = ClassicLayout.forType(info.type) else {
            throw NFCError.unsupportedOperation("\(info.type.description) has no MIFARE Classic sector layout")
        }
        var session = Session(transport: transport, keys: keys.keys)
        var blocks: [Block] = []
        var unknownSectors = 0, keysA = 0, keysB = 0
        var gaps = ClassicTrailerGaps()
        for sector in 0..<layout.sectorCount {
            try Task.checkCancellation()
            let result = try await session.readSector(sector, layout: layout)
            // A sector counts as unknown when nothing of it could be read (a key B that opens no
            // block, being readable, does not make it known).
            if result.blocks.isEmpty { unknownSectors += 1 }
            if result.keyA != nil { keysA += 1 }
            if result.keyB != nil { keysB += 1 }
            // A trailer read without finding a key holds zeros there: say the key is unknown, so that
            // exports can tell it from the key 000000000000 (Flipper writes `??`).
            if let trailer = layout.trailerBlock(ofSector: sector), result.blocks.contains(where: { $0.number == trailer }) {
                if result.keyA == nil { gaps.keyA.insert(sector) }
                if result.keyB == nil { gaps.keyB.insert(sector) }
            }
            blocks += result.blocks
        }
        let sectors = layout.sectorCount
        var capabilities: [CardCapability] = []
        if !blocks.isEmpty { capabilities.append(.readable) }
        capabilities.append(.authenticationRequired)
        if blocks.count < layout.totalBlocks { capabilities.append(.partiallyReadable) }
        return TagDump(
            cardInfo: info, blocks: blocks,
            facts: [
                Fact(key: "Sectors", value: "\(sectors)"),
                Fact(key: "Sectors Read", value: "\(sectors - unknownSectors) of \(sectors)"),
                Fact(key: "Unknown Sectors", value: "\(unknownSectors)"),
                Fact(key: "Blocks Read", value: "\(blocks.count) of \(layout.totalBlocks)"),
                Fact(key: "Keys Found", value: "A \(keysA)/\(sectors), B \(keysB)/\(sectors)"),
            ] + gaps.facts,
            capabilities: capabilities,
            family: gaps.isEmpty ? .none : .classic(gaps))
    }

    /// One sector's outcome.
    struct SectorResult {
        var keyA: [UInt8]?
        var keyB: [UInt8]?
        var blocks: [Block]
    }

    /// Dictionary search state: the key that opened the last sector is tried first on the next one
    /// (cards usually share keys across sectors).
    struct Session {
        let transport: any ClassicAuthenticating
        let keys: [[UInt8]]
        var lastFound: [ClassicKeyType: [UInt8]] = [:]

        init(transport: any ClassicAuthenticating, keys: [[UInt8]]) {
            self.transport = transport
            self.keys = keys
        }

        mutating func readSector(_ sector: Int, layout: ClassicLayout) async throws -> SectorResult {
            let numbers = layout.blocks(ofSector: sector)
            guard let trailer = numbers.last else { return SectorResult(blocks: []) }
            var data: [Int: [UInt8]] = [:]
            let keyA = try await findKey(.a, block: trailer)
            if let keyA { try await read(numbers, keyType: .a, key: keyA, into: &data) }

            var keyB: [UInt8]?
            if let trailerData = data[trailer], let bits = try? AccessBits.decode(Array(trailerData[6..<9])),
                bits.isKeyBReadable
            {
                // Key B is plain data here: it opens nothing (MF1S50yyX §8.7.2), so take it as read.
                keyB = Array(trailerData[10..<16])
            } else if let found = try await findKey(.b, block: trailer) {
                keyB = found
                let missing = numbers.filter { data[$0] == nil }
                if !missing.isEmpty { try await read(missing, keyType: .b, key: found, into: &data) }
            }

            var blocks: [Block] = []
            for number in numbers {
                guard var bytes = data[number] else { continue }
                if number == trailer {
                    if let keyA { bytes.replaceSubrange(0..<6, with: keyA) }
                    if let keyB { bytes.replaceSubrange(10..<16, with: keyB) }
                }
                blocks.append(Block(number: number, data: bytes))
            }
            return SectorResult(keyA: keyA, keyB: keyB, blocks: blocks)
        }

        /// Tries the dictionary on `block`; nil when no key opens it.
        mutating func findKey(_ keyType: ClassicKeyType, block: Int) async throws -> [UInt8]? {
            var order = keys
            if let last = lastFound[keyType], let index = order.firstIndex(of: last) {
                order.remove(at: index)
                order.insert(last, at: 0)
            }
            for key in order {
                if try await authenticate(block: block, keyType: keyType, key: key) {
                    lastFound[keyType] = key
                    return key
                }
            }
            return nil
        }

        /// One AUTH; false (after a re-select, since the card halted) when the key is wrong.
        func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8]) async throws -> Bool {
            do {
                try await transport.authenticate(block: block, keyType: keyType, key: key)
                return true
            } catch let error as NFCError where isRefusal(error) || error == .authenticationFailed {
                try await transport.reselect()
                return false
            }
        }

        /// READs `numbers` in the sector `key` has just been authenticated for (by ``findKey(_:block:)``);
        /// a refused block is skipped after a re-select and a fresh AUTH.
        func read(_ numbers: [Int], keyType: ClassicKeyType, key: [UInt8], into data: inout [Int: [UInt8]]) async throws {
            for number in numbers {
                do {
                    let answer = try await transport.transceive([0x30, UInt8(number & 0xFF)])
                    guard answer.count >= 16 else { throw NFCError.invalidResponse(answer) }
                    data[number] = Array(answer.prefix(16))
                } catch let error as NFCError where isRefusal(error) {
                    try await transport.reselect()
                    guard try await authenticate(block: number, keyType: keyType, key: key) else { return }
                }
            }
        }

        /// A NAK or silence: the card halted.
        func isRefusal(_ error: NFCError) -> Bool {
            switch error {
            case .commandRefused, .timeout: true
            default: false
            }
        }
    }
}
