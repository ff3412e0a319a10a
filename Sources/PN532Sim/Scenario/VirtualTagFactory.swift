import enum NFCCore.NFCError

/// Builds the virtual tag a ``TagSpec`` describes, from the models in VirtualTags/.
enum VirtualTagFactory {
    static func make(_ spec: TagSpec) throws(SimulatorError) -> any VirtualTag {
        do {
            switch spec.kind.family {
            case let .type2(model): return try makeType2(spec, model)
            case let .classic(model): return try makeClassic(spec, model)
            case let .type4(variant):
                return try VirtualType4Tag(uid: spec.uid ?? defaultUID(spec.id, count: 7), variant: variant, ndef: spec.ndef ?? [],
                                           capacity: spec.capacity ?? 2048, writable: spec.writable, atqa: spec.atqa)
            case let .felica(model):
                let tag = try VirtualFeliCaTag(model: model, idm: spec.uid ?? defaultIDm(spec.id), pmm: spec.pmm,
                                               systemCode: spec.systemCode, ndef: spec.ndef, writable: spec.writable)
                for (number, bytes) in spec.blocks {
                    for (offset, block) in bytes.chunked(16).enumerated() { tag.setBlock(number + offset, block) }
                }
                return tag
            case .type4B:
                let application = try VirtualType4Tag(uid: defaultUID(spec.id, count: 7), ndef: spec.ndef ?? [],
                                                      capacity: spec.capacity ?? 2048, writable: spec.writable)
                return try VirtualTypeBTag(pupi: spec.uid ?? defaultUID(spec.id, count: 4), application: application)
            case let .desfire(model):
                let tag = try DESFireScenario.make(spec, model: model, uid: spec.uid ?? defaultUID(spec.id, count: 7))
                if let signature = spec.signature { tag.originalitySignature = signature }
                return tag
            case .sdm:
                guard let sun = spec.sun else {
                    throw SimulatorError.invalidTag(id: spec.id, reason: "an ntag424_sun tag needs a 'sun' mapping (url, keys, counter)")
                }
                return try sun.makeTag(id: spec.id, uid: spec.uid ?? defaultUID(spec.id, count: 7))
            case .emrtd:
                return try VirtualEMRTDTag(uid: spec.uid ?? defaultUID(spec.id, count: 4))
            case let .iso15693(model):
                return try makeISO15693(spec, model)
            }
        } catch let error as SimulatorError {
            throw error
        } catch let error as NFCError {
            throw .invalidTag(id: spec.id, reason: error.message)
        } catch {
            throw .invalidTag(id: spec.id, reason: "\(error)")
        }
    }

    private static func makeType2(_ spec: TagSpec, _ model: VirtualType2Model) throws -> VirtualType2Tag {
        let tag = VirtualType2Tag(model: model, uid: spec.uid ?? defaultUID(spec.id, count: 7), gen1a: spec.gen1a, gen4: spec.gen4)
        if let ndef = spec.ndef { try tag.writeNDEF(ndef) }
        if let signature = spec.signature { tag.signature = signature }
        var memory = tag.memory
        for (page, bytes) in spec.pages {
            guard page * 4 + bytes.count <= memory.count else {
                throw SimulatorError.invalidTag(id: spec.id, reason: "pages \(page)… go past the last page (\(memory.count / 4 - 1))")
            }
            memory.replaceSubrange(page * 4..<page * 4 + bytes.count, with: bytes)
        }
        tag.memory = memory
        if let password = spec.password { tag.setPassword(password, pack: spec.pack ?? [0x00, 0x00]) }
        if let auth0 = spec.auth0 { tag.setAuth0(auth0) }
        if spec.readProtected { tag.setReadProtection(true) }
        return tag
    }

    private static func makeClassic(_ spec: TagSpec, _ model: VirtualClassicTag.Model) throws -> VirtualClassicTag {
        guard spec.ndef == nil else {
            throw SimulatorError.invalidTag(id: spec.id, reason: "'ndef' is not supported for MIFARE Classic; give raw 'blocks'")
        }
        let tag = try VirtualClassicTag(model: model, uid: spec.uid ?? defaultUID(spec.id, count: 4), gen1a: spec.gen1a, gen4: spec.gen4)
        for (number, bytes) in spec.blocks {
            for (offset, block) in bytes.chunked(16).enumerated() {
                guard tag.block(number + offset) != nil else {
                    throw SimulatorError.invalidTag(id: spec.id, reason: "block \(number + offset) does not exist on \(spec.kind.rawValue)")
                }
                tag.setBlock(number + offset, block)
            }
        }
        for keys in spec.keys {
            guard keys.sector < tag.layout.sectorCount else {
                throw SimulatorError.invalidTag(id: spec.id, reason: "sector \(keys.sector) does not exist on \(spec.kind.rawValue)")
            }
            tag.setKeys(sector: keys.sector, a: keys.keyA, b: keys.keyB,
                        accessBits: keys.accessBits ?? VirtualClassicTag.factoryAccessBits)
        }
        return tag
    }

    private static func makeISO15693(_ spec: TagSpec, _ model: VirtualISO15693Model) throws -> VirtualISO15693Tag {
        let serial = (0..<8).map { UInt8(truncatingIfNeeded: fnv1a(spec.id) >> ($0 * 8)) }
        let tag = try VirtualISO15693Tag(model: model, uid: spec.uid ?? VirtualISO15693Tag.uid(for: model, serial: serial))
        if let ndef = spec.ndef { try tag.writeNDEF(ndef) }
        if let signature = spec.signature { tag.signature = signature }
        var memory = tag.memory
        for (block, bytes) in spec.blocks {
            guard (block * model.blockSize) + bytes.count <= memory.count else {
                throw SimulatorError.invalidTag(id: spec.id, reason: "blocks \(block)… go past the last block (\(model.blockCount - 1))")
            }
            memory.replaceSubrange(block * model.blockSize..<block * model.blockSize + bytes.count, with: bytes)
        }
        tag.memory = memory
        for block in spec.lockedBlocks {
            guard block < model.blockCount else {
                throw SimulatorError.invalidTag(id: spec.id, reason: "locked block \(block) does not exist (\(model.blockCount) blocks)")
            }
            tag.lock(block: block)
        }
        return tag
    }

    /// A stable made-up UID from the id, so a scenario without UIDs gives the same tags every run:
    /// NXP manufacturer code 04 first for 7-byte UIDs, never the random-ID prefix 08 for 4-byte ones.
    static func defaultUID(_ id: String, count: Int) -> [UInt8] {
        let hash = fnv1a(id)
        let body = (0..<8).map { UInt8(truncatingIfNeeded: hash >> ($0 * 8)) }
        switch count {
        case 4: return [body[0] == 0x08 || body[0] == 0x88 ? 0x5A : body[0]] + body[1..<4]
        default: return [0x04] + body.prefix(count - 1)
        }
    }

    /// A stable made-up IDm: manufacturer code 01 2E (as Sony's FeliCa Lite-S samples), then the id's hash.
    static func defaultIDm(_ id: String) -> [UInt8] {
        let hash = fnv1a(id)
        return [0x01, 0x2E] + (0..<6).map { UInt8(truncatingIfNeeded: hash >> ($0 * 8)) }
    }

    private static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0100_0000_01B3 }
    }
}

extension Array where Element == UInt8 {
    /// Consecutive slices of `size` bytes (the last one may be shorter).
    func chunked(_ size: Int) -> [[UInt8]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
