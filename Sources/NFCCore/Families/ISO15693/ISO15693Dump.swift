import Synchronization

/// Dumps an ISO 15693 tag by the spec (coreextendednfc.md §3.3 [SPEC]): the size from GET SYSTEM
/// INFORMATION, or from EXTENDED GET SYSTEM INFORMATION when that says 256 blocks or nothing; blocks
/// 0–255 with READ SINGLE BLOCK, from 256 on with EXTENDED READ SINGLE BLOCK — or, for a product whose
/// row has ``ISO15693Product/readMultipleBlocks``, ``blocksPerCommand`` at a time with READ MULTIPLE
/// BLOCKS (EXTENDED past block 255); a tag that rejects the
/// extended command is dumped up to block 255 with a `Blocks Read` fact ("256 of 2048") and
/// `Partially Readable`. A tag that does not report its size throws ``NFCError/unsupportedOperation(_:)``.
public enum ISO15693Dump {
    /// Reads every block. Each READ asks for the block security status (option flag), which gives the
    /// blocks' `locked`; a tag that refuses the option ("option not supported") is read without it from
    /// then on, its locks unknown (false). Reading also stops at the first block the tag refuses; the
    /// dump then holds the blocks before it, with the same `Blocks Read` fact. Checks for cancellation
    /// between blocks.
    ///
    /// Facts: IC Manufacturer, Block Size ("4 bytes"), Blocks, DSFID, AFI, IC Reference ("0x26"; those
    /// the tag sent), Blocks Read when not all were read, NDEF Bytes when the Type 5 area holds a message,
    /// Originality Signature when the product gives one (READ SIGNATURE, after the blocks).
    public static func dump(info: CardInfo, transport: any ISO15693Transport, progress: DumpProgress? = nil)
        async throws -> TagDump
    {
        var probes: [String] = []
        guard let system = try await ISO15693SystemInfo.read(uid: info.uid, transport: transport, probes: &probes),
            let total = system.blockCount, system.blockSize != nil
        else {
            throw NFCError.unsupportedOperation(
                "The ISO 15693 tag \(info.uid.hexString) does not report its memory size "
                    + "(GET SYSTEM INFORMATION and EXTENDED GET SYSTEM INFORMATION gave none), so it cannot be dumped")
        }
        let read = Mutex<[Block]>([])
        progress?.begin(total: total, unit: "blocks") { _ in
            let blocks = read.withLock { $0 }
            return blocks.isEmpty ? nil : makeDump(info: info, system: system, blocks: blocks, total: total)
        }
        var withStatus = true
        var blocks: [Block] = []
        blocks.reserveCapacity(total)
        let product = info.product?.iso15693
        var perCommand = product?.readMultipleBlocks.map { min($0, blocksPerCommand) }
        let extended = product?.features.contains(.extendedCommands) == true
        var number = 0
        while number < total {
            try Task.checkCancellation()
            if let chunk = perCommand, number <= ISO15693Command.lastSingleByteBlock || extended {
                // READ MULTIPLE BLOCKS stops at block 255; the EXTENDED form reads on from 256.
                let end = number <= ISO15693Command.lastSingleByteBlock
                    ? min(total, number + chunk, ISO15693Command.lastSingleByteBlock + 1) : min(total, number + chunk)
                do {
                    let chunkRead = try await readBlocks(number..<end, blockSize: system.blockSize ?? 4, uid: info.uid,
                                                         withStatus: &withStatus, transport: transport)
                    for (offset, (locked, data)) in chunkRead.enumerated() {
                        let block = Block(number: number + offset, data: data, locked: locked ?? false)
                        blocks.append(block)
                        read.withLock { $0.append(block) }
                    }
                    number = end
                    progress?.advance(to: blocks.count)
                    continue
                } catch let error as NFCError where isMultipleReadRefusal(error) {
                    // Refused or garbled: the rest one block at a time, as for any other tag.
                    perCommand = nil
                }
            }
            do {
                let (locked, data) = try await readBlock(number, uid: info.uid, withStatus: &withStatus, transport: transport)
                let block = Block(number: number, data: data, locked: locked ?? false)
                blocks.append(block)
                read.withLock { $0.append(block) }
            } catch let error as NFCError where isRejection(error, block: number) {
                break
            }
            number += 1
            progress?.advance(to: blocks.count)
        }
        var dump = makeDump(info: info, system: system, blocks: blocks, total: total)
        if let fact = try await signatureFact(info: info, transport: transport) { dump.facts.append(fact) }
        return dump
    }

    /// The `Originality Signature` fact of a product with READ SIGNATURE (ICODE SLIX2 / DNA), as the
    /// Type 2 dump has it (``OriginalityCheck/fact(_:)``); nil for other products and when the tag
    /// refuses the command or gives a wrong-length answer (a dump never fails over it).
    static func signatureFact(info: CardInfo, transport: any ISO15693Transport) async throws -> Fact? {
        guard info.product?.iso15693?.features.contains(.readSignature) == true else { return nil }
        let signature: [UInt8]
        do {
            signature = try await ISO15693Command.readSignature(uid: info.uid, transport: transport)
        } catch let error as NFCError where OriginalityCheck.isRefusal(error) {
            return nil
        }
        return OriginalityCheck.fact(OriginalityCheck.verdict(uid: info.uid, signature: signature, reading: .iso15693ReadSignature))
    }

    /// READ (SINGLE or EXTENDED) of one block, dropping the security status request for good when the tag
    /// answers "option not supported".
    static func readBlock(_ number: Int, uid: [UInt8], withStatus: inout Bool, transport: any ISO15693Transport)
        async throws -> (locked: Bool?, data: [UInt8])
    {
        if withStatus {
            do {
                return try await ISO15693Command.readBlock(number, uid: uid, securityStatus: true, transport: transport)
            } catch let error as NFCError where error == .commandRefused(command: ISO15693Command.Code.readSingleBlock.rawValue,
                                                                        nak: ISO15693Error.optionNotSupported)
                || error == .commandRefused(command: ISO15693Command.Code.extendedReadSingleBlock.rawValue,
                                            nak: ISO15693Error.optionNotSupported)
            {
                withStatus = false
            }
        }
        return try await ISO15693Command.readBlock(number, uid: uid, securityStatus: false, transport: transport)
    }

    /// Blocks one READ MULTIPLE BLOCKS asks for at most: 32 blocks of 4 bytes with their security status
    /// are a 161-byte answer, well within a reader's frame (a short APDU answer holds 256 bytes).
    public static let blocksPerCommand = 32

    /// READ MULTIPLE BLOCKS of `blocks`, dropping the security status request for good when the tag
    /// answers "option not supported" (as ``readBlock(_:uid:withStatus:transport:)``).
    static func readBlocks(_ blocks: Range<Int>, blockSize: Int, uid: [UInt8], withStatus: inout Bool,
                           transport: any ISO15693Transport) async throws -> [(locked: Bool?, data: [UInt8])]
    {
        if withStatus {
            do {
                return try await ISO15693Command.readBlocks(blocks, blockSize: blockSize, uid: uid, securityStatus: true,
                                                            transport: transport)
            } catch let error as NFCError {
                guard case let .commandRefused(_, nak) = error, nak == ISO15693Error.optionNotSupported else { throw error }
                withStatus = false
            }
        }
        return try await ISO15693Command.readBlocks(blocks, blockSize: blockSize, uid: uid, securityStatus: false,
                                                    transport: transport)
    }

    /// True when a READ MULTIPLE BLOCKS failed in a way single reads may get past: refused, silent, or
    /// an answer of the wrong length.
    static func isMultipleReadRefusal(_ error: NFCError) -> Bool {
        switch error {
        case .commandRefused, .timeout, .invalidResponse: true
        default: false
        }
    }

    /// True when `error` on `block` means the tag will not give this block: an error response, or — for
    /// the first EXTENDED READ — silence (tags without the extended commands may not answer them at all).
    static func isRejection(_ error: NFCError, block: Int) -> Bool {
        switch error {
        case .commandRefused: true
        case .timeout: block == ISO15693Command.lastSingleByteBlock + 1
        default: false
        }
    }

    /// The dump of `blocks` (read from block 0 on) of a tag of `total` blocks.
    static func makeDump(info: CardInfo, system: ISO15693SystemInfo, blocks: [Block], total: Int) -> TagDump {
        let memory = blocks.flatMap(\.data)
        let message = Type5NDEF.message(inMemory: memory, memoryBytes: nil).message
        var facts: [Fact] = []
        if let manufacturer = ISO15693Manufacturer.code(ofUID: info.uid) {
            facts.append(Fact(key: "IC Manufacturer", value: ISO15693Manufacturer.name(of: manufacturer)))
        }
        facts += ISO15693Facts.facts(of: system)
        var capabilities: [CardCapability] = [.readable]
        if blocks.count < total {
            facts.append(Fact(key: "Blocks Read", value: "\(blocks.count) of \(total)"))
            capabilities.append(.partiallyReadable)
        }
        if let message { facts.append(Fact(key: "NDEF Bytes", value: "\(message.count)")) }
        return TagDump(cardInfo: info, blocks: blocks, ndefMessage: message, facts: facts, capabilities: capabilities,
                       family: .iso15693(system))
    }
}

/// The facts of an ISO 15693 dump that come from its system information, for people (a JSON file
/// keeps the system information itself under its `iso15693` key, never parsed back from these): the upstream keys and forms (coreextendednfc.md §3.3: "Block Size" = "4 bytes",
/// "Blocks" = "28", DSFID / AFI / IC Reference as "0x%02X", monospaced).
enum ISO15693Facts {
    static func facts(of system: ISO15693SystemInfo) -> [Fact] {
        var facts: [Fact] = []
        if let size = system.blockSize { facts.append(Fact(key: "Block Size", value: "\(size) bytes")) }
        if let count = system.blockCount { facts.append(Fact(key: "Blocks", value: "\(count)")) }
        if let dsfid = system.dsfid { facts.append(Fact(key: "DSFID", value: "0x" + dsfid.hexString, monospaced: true)) }
        if let afi = system.afi { facts.append(Fact(key: "AFI", value: "0x" + afi.hexString, monospaced: true)) }
        if let reference = system.icReference {
            facts.append(Fact(key: "IC Reference", value: "0x" + reference.hexString, monospaced: true))
        }
        // Known only from a Flipper file (`Lock DSFID: true`); a tag's dump never says.
        if system.dsfidLocked == true { facts.append(Fact(key: "DSFID Lock", value: "Locked")) }
        if system.afiLocked == true { facts.append(Fact(key: "AFI Lock", value: "Locked")) }
        return facts
    }
}
