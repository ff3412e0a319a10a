/// NDEF on an NFC Forum Type 3 Tag (FeliCa): the attribute block (block 0) and the NDEF data from
/// block 1, through services 000Bh (read) and 0009h (write).
public enum FeliCaType3 {
    /// Blocks per command the PN532 frame (262 bytes) can carry: 12 + 16·n for a READ answer, 13 + 18·n
    /// for a WRITE command; the tag's Nbr/Nbw are used when smaller.
    static let maxReadBlocks = 15
    static let maxWriteBlocks = 12

    /// Reads and checks the attribute block.
    public static func readAttributeInfo(transport: any TagTransport) async throws -> FeliCaAttributeInfo {
        let block = try await FeliCaCommand.read(blocks: [0], service: FeliCaCommand.ndefReadService, transport: transport)
        return try FeliCaAttributeInfo(bytes: block[0])
    }

    /// Reads the NDEF message (empty when Ln is 0). Throws ``NFCError/crcMismatch`` for a bad attribute
    /// block and ``NFCError/invalidNDEF(_:)`` for an unknown mapping version, an interrupted write
    /// (WriteFlag 0F) or an Ln beyond Nmaxb.
    public static func readNDEF(transport: any TagTransport) async throws -> [UInt8] {
        let attribute = try await readAttributeInfo(transport: transport)
        return try await readNDEFBlocks(attribute: attribute, transport: transport).message
    }

    /// Reads the NDEF data blocks `attribute` announces; returns the raw 16-byte blocks (numbered from 1)
    /// and the message cut to Ln. Blocks in `known` (read already, 16 bytes each) are not read again.
    static func readNDEFBlocks(attribute: FeliCaAttributeInfo, transport: any TagTransport, known: [Block] = []) async throws
        -> (blocks: [Block], message: [UInt8])
    {
        guard attribute.version >> 4 == 1 else {
            throw NFCError.invalidNDEF("Type 3 mapping version \(attribute.version >> 4).\(attribute.version & 0x0F) is not supported")
        }
        guard attribute.writeFlag == 0x00 else { throw NFCError.invalidNDEF("The last NDEF write was interrupted (WriteFlag 0F)") }
        guard attribute.length <= attribute.capacity else {
            throw NFCError.invalidNDEF("Ln \(attribute.length) exceeds Nmaxb × 16 = \(attribute.capacity)")
        }
        let count = (attribute.length + 15) / 16
        let perRead = min(max(attribute.nbr, 1), maxReadBlocks)
        var blocks: [Block] = []
        var next = 1
        while next <= count, let block = known.first(where: { $0.number == next && $0.data.count == 16 }) {
            blocks.append(Block(number: next, data: block.data))
            next += 1
        }
        while next <= count {
            try Task.checkCancellation()
            let numbers = Array(next...min(count, next + perRead - 1))
            let data = try await FeliCaCommand.read(blocks: numbers, service: FeliCaCommand.ndefReadService, transport: transport)
            blocks += zip(numbers, data).map { Block(number: $0, data: $1) }
            next += numbers.count
        }
        let message = Array(blocks.flatMap { $0.data }.prefix(attribute.length))
        return (blocks, message)
    }

    /// Writes `message` with the NFC Forum procedure (T3T §7.4.2): attribute block with WriteFlag 0Fh,
    /// the data blocks from block 1 (zero-padded, Nbw per WRITE), then the attribute block with
    /// WriteFlag 00h and the new Ln. Throws ``NFCError/tagLocked`` when RWFlag ≠ 01 (or Nbw is 0) and
    /// ``NFCError/capacityExceeded(needed:available:)`` beyond Nmaxb × 16 bytes.
    public static func writeNDEF(_ message: [UInt8], transport: any TagTransport) async throws {
        var attribute = try await readAttributeInfo(transport: transport)
        guard attribute.isWritable, attribute.nbw > 0 else { throw NFCError.tagLocked }
        guard message.count <= attribute.capacity else {
            throw NFCError.capacityExceeded(needed: message.count, available: attribute.capacity)
        }
        let service = FeliCaCommand.ndefWriteService
        attribute.writeFlag = 0x0F
        try await FeliCaCommand.write(blocks: [0], data: [attribute.bytes], service: service, transport: transport)
        let padded = message + [UInt8](repeating: 0, count: (16 - message.count % 16) % 16)
        let blocks = (0..<(padded.count / 16)).map { Array(padded[($0 * 16)..<($0 * 16 + 16)]) }
        let perWrite = min(attribute.nbw, maxWriteBlocks)
        var index = 0
        while index < blocks.count {
            try Task.checkCancellation()
            let end = min(blocks.count, index + perWrite)
            try await FeliCaCommand.write(blocks: Array((index + 1)...end), data: Array(blocks[index..<end]), service: service,
                                          transport: transport)
            index = end
        }
        attribute.writeFlag = 0x00
        attribute.length = message.count
        try await FeliCaCommand.write(blocks: [0], data: [attribute.bytes], service: service, transport: transport)
    }
}
