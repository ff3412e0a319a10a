/// The NFC Forum Type 5 Tag NDEF mapping (NFC Forum Type 5 Tag Technical Specification: "Capability
/// Container", "TLV blocks", "NDEF detection / read / write procedures", "Transition to read-only"):
/// the CC in the first 4 or 8 bytes (``Type5CapabilityContainer``), then TLVs — NDEF Message (03h),
/// Proprietary (FDh), Terminator (FEh) — in the T5T area right after it.
///
/// Blocks 0–255 go through READ / WRITE SINGLE BLOCK, blocks from 256 on through the EXTENDED commands
/// (``ISO15693Command``).
enum Type5NDEF {
    /// The NDEF outcome of `memory` (from block 0; `memoryBytes` the tag's size when known): no CC magic
    /// means no message; a mapping version other than 1.x or read access other than 00b is unreadable.
    static func message(inMemory memory: [UInt8], memoryBytes: Int?) -> NDEFReadResult {
        guard let cc = Type5CapabilityContainer(memory: memory), cc.isNDEF else { return .noMessage }
        if let refusal = readRefusal(cc) { return .unreadable(refusal) }
        let end = cc.dataAreaEnd(memoryBytes: memoryBytes ?? memory.count)
        let walk = NFCForumTLV.walk(memory: memory, start: cc.length, end: end, controlTLVs: false)
        if case .needsMemory = walk {
            return .unreadable(.invalidNDEF("The NDEF TLV runs past the \(memory.count) bytes read"))
        }
        return NDEFReadResult(walk: walk, area: "the Type 5 area of \(max(0, end - cc.length)) bytes")
            ?? .unreadable(.invalidResponse([]))
    }

    /// Why the NDEF data behind `cc` is not read: a major version other than 1, or read access other
    /// than 00b (T5T "NDEF detection procedure"); nil when it is read.
    static func readRefusal(_ cc: Type5CapabilityContainer) -> NFCError? {
        if cc.majorVersion != 1 {
            return .unsupportedOperation("Type 5 mapping version \(cc.majorVersion).\(cc.minorVersion) (CC \(cc)) is not supported")
        }
        if cc.readAccess != 0 { return .unsupportedOperation("The CC (\(cc)) grants no read access to the NDEF data") }
        return nil
    }

    // MARK: Read

    /// Reads only the NDEF message: the CC block(s), then the blocks the TLV walk asks for. Throws
    /// ``NFCError/tagRemoved`` and cancellation; other trouble is ``NDEFReadResult/unreadable(_:)``.
    static func read(info: CardInfo, transport: any ISO15693Transport) async throws -> NDEFReadResult {
        let reader = BlockReader(uid: info.uid, transport: transport)
        do {
            try await reader.fetch(upTo: 4)
            // MLEN 00h: an 8-byte CC.
            if reader.memory[2] == 0 { try await reader.fetch(upTo: 8) }
            guard let cc = Type5CapabilityContainer(memory: reader.memory) else { return .unreadable(.invalidResponse(reader.memory)) }
            guard cc.isNDEF else { return .noMessage }
            if let refusal = readRefusal(cc) { return .unreadable(refusal) }
            let end = cc.dataAreaEnd(memoryBytes: nil)
            while true {
                let walk = NFCForumTLV.walk(memory: reader.memory, start: cc.length, end: end, controlTLVs: false)
                guard case let .needsMemory(upTo) = walk else {
                    return NDEFReadResult(walk: walk, area: "the Type 5 area of \(end - cc.length) bytes")
                        ?? .unreadable(.invalidResponse([]))
                }
                let before = reader.memory.count
                try await reader.fetch(upTo: min(upTo, end))
                guard reader.memory.count > before else { return .unreadable(.invalidResponse([])) }
            }
        } catch let error as NFCError where error != .tagRemoved && error != .userCanceled {
            return .unreadable(error)
        }
    }

    /// Reads blocks from 0 on, as far as asked.
    final class BlockReader {
        let uid: [UInt8]
        let transport: any ISO15693Transport
        private(set) var memory: [UInt8] = []
        private(set) var next = 0

        init(uid: [UInt8], transport: any ISO15693Transport) {
            self.uid = uid
            self.transport = transport
        }

        /// Reads blocks until `memory` holds at least `count` bytes.
        func fetch(upTo count: Int) async throws {
            while memory.count < count {
                try Task.checkCancellation()
                let block = try await ISO15693Command.readBlock(next, uid: uid, securityStatus: false, transport: transport)
                guard !block.data.isEmpty else { throw NFCError.invalidResponse([]) }
                memory += block.data
                next += 1
            }
        }
    }

    // MARK: Write and format

    /// Writes `message` (raw NDEF bytes) as the tag's NDEF message and reads it back. A tag with a valid
    /// CC keeps it (its vendor's MLEN and feature bits stay); `newCC` (format), or a tag without one, gets
    /// the CC of the MLEN rule (``Type5CapabilityContainer/make(memoryBytes:blockCount:features:)``).
    ///
    /// Torn-write safety (T5T "NDEF write procedure"): the blocks holding the NDEF TLV's length are first
    /// written with length 0, then the rest of the message, then the length — a tag pulled in between
    /// holds an empty message, never a wrong one. Refuses with ``NFCError/tagLocked`` when the CC's write
    /// access is not 00b and ``NFCError/capacityExceeded(needed:available:)`` when the TLV does not fit the
    /// T5T area (nothing written then).
    static func write(_ message: [UInt8], newCC: Bool, info: CardInfo, transport: any ISO15693Transport)
        async throws(TagOperationError) -> WriteReport
    {
        var written: [Int] = []
        do {
            let tag = try await TagMemory.open(info: info, transport: transport)
            let existing = try await tag.readCC()
            let cc: Type5CapabilityContainer
            let writesCC: Bool
            if let existing, existing.isNDEF {
                guard existing.isWritable else { throw NFCError.tagLocked }
                if !newCC, let refusal = readRefusal(existing) { throw refusal }
                writesCC = newCC
                cc = newCC ? tag.defaultCC : existing
            } else {
                writesCC = true
                cc = tag.defaultCC
            }
            let start = cc.length
            let area = try NFCForumTLV.makeArea(message: message, capacity: cc.dataAreaEnd(memoryBytes: tag.memoryBytes) - start)
            var image = cc.bytes + area
            let blockCount = (image.count + tag.blockSize - 1) / tag.blockSize
            image += [UInt8](repeating: 0, count: blockCount * tag.blockSize - image.count)

            // The TLV's length field: byte 1 of the TLV, or bytes 2–3 after FFh.
            let lengthBytes = area[1] == 0xFF ? (start + 2)..<(start + 4) : (start + 1)..<(start + 2)
            var zeroed = image
            for index in lengthBytes { zeroed[index] = 0 }
            let lengthBlocks = Set(lengthBytes.map { $0 / tag.blockSize })
            let firstBlock = writesCC ? 0 : cc.length / tag.blockSize

            for block in firstBlock..<blockCount {
                try await tag.write(block, from: lengthBlocks.contains(block) ? zeroed : image)
                written.append(block)
            }
            for block in lengthBlocks.sorted() where zeroed != image {
                try await tag.write(block, from: image)
            }
            for block in firstBlock..<blockCount {
                let data = try await tag.read(block)
                guard data == Array(image[block * tag.blockSize..<(block + 1) * tag.blockSize]) else {
                    throw NFCError.verifyFailed(page: block)
                }
            }
            return WriteReport(uid: info.uid, cardType: info.type, messageLength: message.count,
                               bytesWritten: (written.count + (zeroed != image ? lengthBlocks.count : 0)) * tag.blockSize,
                               pagesWritten: written, capabilityContainer: cc.bytes)
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: written)
        }
    }

    // MARK: Lock

    /// Makes the NDEF data read-only: the CC's write access becomes 11b (never), then — where the tag has
    /// LOCK BLOCK — every block of the CC and the T5T area is locked, data blocks first and the CC last
    /// (T5T "Transition to read-only"). **IRREVERSIBLE**: a locked block and a read-only CC never become
    /// writable again. Products without LOCK BLOCK (ST25DV, which protects areas by password) and tags
    /// that answer it "not supported" get the CC change only.
    ///
    /// Reads back the CC and each block's security status. The report's pages are the blocks changed (the
    /// CC block written, then the blocks locked, in that order); its lock bytes the security status of
    /// every block of the area as read back (01h locked), empty when the blocks were not locked.
    static func lock(info: CardInfo, transport: any ISO15693Transport) async throws(TagOperationError) -> LockReport {
        var written: [Int] = []
        do {
            let tag = try await TagMemory.open(info: info, transport: transport)
            guard let cc = try await tag.readCC(), cc.isNDEF else {
                throw NFCError.unsupportedOperation("The tag holds no Type 5 capability container: format it before locking")
            }
            if cc.isWritable {
                var block0 = try await tag.read(0)
                block0[1] = cc.readOnly.bytes[1]
                try await tag.write(0, from: block0)
                written.append(0)
            }
            let areaBlocks = 0..<((cc.dataAreaEnd(memoryBytes: tag.memoryBytes) + tag.blockSize - 1) / tag.blockSize)
            let ccBlocks = Set(0..<((cc.length + tag.blockSize - 1) / tag.blockSize))
            var locksBlocks = !(tag.product?.features.contains(.noLockBlock) ?? false)
            if locksBlocks {
                let order = areaBlocks.filter { !ccBlocks.contains($0) } + ccBlocks.sorted()
                for (index, block) in order.enumerated() {
                    do {
                        try await tag.lock(block)
                        written.append(block)
                    } catch let error as NFCError {
                        if case let .commandRefused(_, code) = error, code == ISO15693Error.blockAlreadyLocked { continue }
                        if index == 0, case let .commandRefused(_, code) = error, code == 0x01 || code == 0x02 {
                            locksBlocks = false  // no LOCK BLOCK on this tag: nothing was locked
                            break
                        }
                        throw error
                    }
                }
            }
            guard let readBack = try await tag.readCC(), readBack.writeAccess == 0x03 else {
                throw NFCError.verifyFailed(page: 0)
            }
            var lockBytes: [UInt8] = []
            if locksBlocks {
                for block in areaBlocks {
                    let (locked, _) = try await ISO15693Command.readBlock(block, uid: info.uid, securityStatus: true,
                                                                         transport: transport)
                    guard locked == true else { throw NFCError.verifyFailed(page: block) }
                    lockBytes.append(0x01)
                }
            }
            return LockReport(uid: info.uid, cardType: info.type, pagesWritten: written,
                              capabilityContainer: readBack.bytes, lockBytes: lockBytes)
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: written)
        }
    }

    /// The tag's geometry and product, and block access with the product's write flags.
    struct TagMemory {
        let uid: [UInt8]
        let transport: any ISO15693Transport
        let blockCount: Int
        let blockSize: Int
        let product: ISO15693Product?

        var memoryBytes: Int { blockCount * blockSize }

        /// Reads the system information; throws ``NFCError/unsupportedOperation(_:)`` for a tag that does
        /// not report its size (or has blocks under 4 bytes, too small for the CC's version byte rule).
        static func open(info: CardInfo, transport: any ISO15693Transport) async throws -> TagMemory {
            var probes: [String] = []
            let answer: ISO15693SystemInfo?
            do {
                answer = try await ISO15693SystemInfo.read(uid: info.uid, transport: transport, probes: &probes)
            } catch NFCError.unsupportedOperation {
                return try await openFromCC(info: info, transport: transport)
            }
            guard let system = answer,
                let count = system.blockCount, let size = system.blockSize
            else {
                throw NFCError.unsupportedOperation(
                    "The ISO 15693 tag \(info.uid.hexString) does not report its memory size, so NDEF cannot be written")
            }
            guard size >= 4 else {
                throw NFCError.unsupportedOperation("Type 5 NDEF needs blocks of 4 bytes or more (this tag has \(size))")
            }
            return TagMemory(uid: info.uid, transport: transport, blockCount: count, blockSize: size,
                             product: info.product?.iso15693 ?? ISO15693Product.match(uid: info.uid, info: system))
        }

        /// The geometry for a reader that cannot send GET SYSTEM INFORMATION (a PC/SC reader without a
        /// transparent session): the block size is what READ BINARY of block 0 gives, the size what the CC
        /// there announces (its data area after the CC). A tag without an NDEF CC cannot be sized so.
        static func openFromCC(info: CardInfo, transport: any ISO15693Transport) async throws -> TagMemory {
            var memory = try await ISO15693Command.readBlock(0, uid: info.uid, securityStatus: false, transport: transport).data
            let size = memory.count
            guard size >= 4 else {
                throw NFCError.unsupportedOperation("Type 5 NDEF needs blocks of 4 bytes or more (this tag has \(size))")
            }
            if memory[2] == 0, size < 8 {
                memory += try await ISO15693Command.readBlock(1, uid: info.uid, securityStatus: false, transport: transport).data
            }
            guard let cc = Type5CapabilityContainer(memory: memory), cc.isNDEF else {
                throw NFCError.unsupportedOperation(
                    "This reader cannot ask the ISO 15693 tag \(info.uid.hexString) its memory size (GET SYSTEM INFORMATION) "
                        + "and the tag holds no NDEF CC that says it: format it on a reader that can")
            }
            let bytes = cc.length + cc.dataAreaSize
            return TagMemory(uid: info.uid, transport: transport, blockCount: (bytes + size - 1) / size, blockSize: size,
                             product: info.product?.iso15693 ?? ISO15693Product.match(uid: info.uid, info: nil))
        }

        /// The CC of the MLEN rule for this memory, with the LOCK BLOCK feature bit when the product is
        /// known to have LOCK BLOCK.
        var defaultCC: Type5CapabilityContainer {
            let lockBlock = product.map { !$0.features.contains(.noLockBlock) } ?? false
            return .make(memoryBytes: memoryBytes, blockCount: blockCount,
                         features: lockBlock ? Type5CapabilityContainer.lockBlockFeature : 0)
        }

        /// The CC at the start of the memory (block 0, and block 1 for an 8-byte CC in 4-byte blocks);
        /// nil when the bytes are no CC.
        func readCC() async throws -> Type5CapabilityContainer? {
            var memory = try await read(0)
            if memory.count >= 4, memory[2] == 0, memory.count < 8 { memory += try await read(1) }
            return Type5CapabilityContainer(memory: memory)
        }

        func read(_ block: Int) async throws -> [UInt8] {
            let data = try await ISO15693Command.readBlock(block, uid: uid, securityStatus: false, transport: transport).data
            guard data.count == blockSize else { throw NFCError.invalidResponse(data) }
            return data
        }

        func write(_ block: Int, from image: [UInt8]) async throws {
            try await ISO15693Command.writeBlock(block, data: Array(image[block * blockSize..<(block + 1) * blockSize]),
                                                 uid: uid, optionFlag: writeOptionFlag, transport: transport)
        }

        func lock(_ block: Int) async throws {
            try await ISO15693Command.lockBlock(block, uid: uid, optionFlag: writeOptionFlag, transport: transport)
        }

        private var writeOptionFlag: Bool { product?.features.contains(.writeOptionFlag) ?? false }
    }
}
