/// The memory of a virtual tag as the control channel's `dump` returns it: everything the model
/// stores, in hex, so end-to-end tests can check what an agent wrote.
public struct TagMemoryDump: Sendable, Equatable {
    /// The whole memory, concatenated (Type 2: pages; Classic: blocks; Type 4, on A or B: the NDEF file;
    /// FeliCa: the blocks listed in `blockNumbers`).
    public var memory: [UInt8]
    /// Bytes per page/block (4 for Type 2 and ISO 15693, 16 for Classic and FeliCa, 1 for a Type 4 file).
    public var unit: Int
    /// FeliCa: which block each 16-byte slice of `memory` is.
    public var blockNumbers: [Int]?
    /// Type 4: the capability container file.
    public var capabilityContainer: [UInt8]?
    /// The NDEF message the tag holds, when the model tracks it.
    public var ndefMessage: [UInt8]?
    /// Type 4: every UPDATE BINARY of the NDEF file so far (offset, byte count), in order.
    public var updates: [VirtualType4Tag.Update]?
    /// eMRTD: every APDU the chip received, in order (it has no memory a reader may see).
    public var apdus: [[UInt8]]?

    /// Reads `tag`'s memory; nil for a model the simulator does not know.
    public static func make(_ tag: any VirtualTag) -> TagMemoryDump? {
        switch tag {
        case let type2 as VirtualType2Tag:
            return TagMemoryDump(memory: type2.memory, unit: 4)
        case let classic as VirtualClassicTag:
            return TagMemoryDump(memory: classic.memory.flatMap { $0 }, unit: 16)
        case let type4 as VirtualType4Tag:
            return TagMemoryDump(memory: type4.ndefFile, unit: 1, capabilityContainer: type4.capabilityContainer,
                                 ndefMessage: type4.ndefMessage, updates: type4.updates)
        case let typeB as VirtualTypeBTag:
            return make(typeB.application)
        case let iso15693 as VirtualISO15693Tag:
            return TagMemoryDump(memory: iso15693.memory, unit: iso15693.blockSize)
        case let felica as VirtualFeliCaTag:
            let numbers = (0...0xFF).filter { felica.block($0) != nil }
            return TagMemoryDump(memory: numbers.flatMap { felica.block($0) ?? [] }, unit: 16, blockNumbers: numbers,
                                 ndefMessage: felica.ndefMessage)
        case let emrtd as VirtualEMRTDTag:
            return TagMemoryDump(memory: [], unit: 1, apdus: emrtd.receivedAPDUs)
        default:
            return nil
        }
    }
}
