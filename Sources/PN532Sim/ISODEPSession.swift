/// The PICC side of the ISO/IEC 14443-4 block protocol for one activated ISO-DEP tag, used when
/// the host drives the blocks itself through InCommunicateThru (libnfc's `B2` presence ping,
/// hand-made I-blocks). InDataExchange skips it: there the PN532 firmware does the blocks and the
/// tag gets whole APDUs.
///
/// PCB layout (ISO/IEC 14443-4 §7.1.1.1): I-block `0000 c x n 1 b` (c chaining, x CID follows,
/// n NAD follows, b block number), R-block `1010 x 0 1 b` with bit 4 = NAK, S-block `11xx x 0 1 0`
/// (`C2` DESELECT, `F2` WTX).
struct ISODEPSession: Sendable {
    /// FSD from the RATS parameter byte (§5.1, FSDI → FSD).
    private(set) var frameSizeForDevice: Int
    /// The PICC block number; it starts at 1 (§7.5.3.2, rule D).
    private(set) var blockNumber: UInt8 = 1
    private var receivedChain: [UInt8] = []
    private var pendingAnswer: [UInt8] = []
    private var lastBlock: [UInt8]?

    /// FSDI → FSD (ISO/IEC 14443-4 Table 1); FSDI ≥ 8 means 256 bytes.
    static let frameSizes = [16, 24, 32, 40, 48, 64, 96, 128, 256]

    /// A session after RATS with parameter byte `ratsParameter` (FSDI in the high nibble).
    init(ratsParameter: UInt8 = 0x80) {
        frameSizeForDevice = Self.frameSizes[min(Int(ratsParameter >> 4), Self.frameSizes.count - 1)]
    }

    /// What the block handler decided.
    enum Result: Equatable {
        /// Send this block.
        case reply([UInt8])
        /// Send this block (S(DESELECT) answer); the tag is now HALTed.
        case deselected([UInt8])
        /// Say nothing.
        case silent
    }

    /// Handles one block (without CRC). `process` runs a whole command APDU on the tag.
    mutating func handle(_ block: [UInt8], process: ([UInt8]) -> [UInt8]) -> Result {
        guard let pcb = block.first else { return .silent }
        let hasCID = pcb & 0x08 != 0
        let cid: [UInt8] = hasCID && block.count > 1 ? [block[1]] : []
        var infStart = 1 + cid.count
        switch pcb & 0xE2 {
        case 0x02:  // I-block
            if pcb & 0x04 != 0 { infStart += 1 }  // NAD
            guard block.count >= infStart else { return .silent }
            blockNumber = pcb & 0x01  // rule E: toggle to the number received
            receivedChain += block[infStart...]
            if pcb & 0x10 != 0 {
                return send([0xA2 | blockNumber | (hasCID ? 0x08 : 0)] + cid)
            }
            let apdu = receivedChain
            receivedChain = []
            pendingAnswer = process(apdu)
            return sendNextChunk(cid: cid)
        case 0xA2:  // R-block
            let received = pcb & 0x01
            if pcb & 0x10 != 0 {  // R(NAK)
                if received == blockNumber, let lastBlock { return .reply(lastBlock) }
                return send([0xA2 | blockNumber | (hasCID ? 0x08 : 0)] + cid)  // rule 12
            }
            if received == blockNumber, let lastBlock { return .reply(lastBlock) }  // rule 11
            guard !pendingAnswer.isEmpty else { return .silent }
            blockNumber ^= 0x01  // rule 13: continue chaining
            return sendNextChunk(cid: cid)
        case 0xC2:  // S-block
            if pcb & 0x30 == 0x00 { return .deselected([pcb] + cid) }  // DESELECT
            return .silent  // WTX answers from the PCD need nothing back
        default:
            return .silent
        }
    }

    private mutating func sendNextChunk(cid: [UInt8]) -> Result {
        // PCB + CID + INF + CRC_A(2) must fit into FSD.
        let room = max(1, frameSizeForDevice - 3 - cid.count)
        let chunk = Array(pendingAnswer.prefix(room))
        pendingAnswer.removeFirst(chunk.count)
        let chaining: UInt8 = pendingAnswer.isEmpty ? 0 : 0x10
        return send([0x02 | chaining | blockNumber | (cid.isEmpty ? 0 : 0x08)] + cid + chunk)
    }

    private mutating func send(_ block: [UInt8]) -> Result {
        lastBlock = block
        return .reply(block)
    }
}
