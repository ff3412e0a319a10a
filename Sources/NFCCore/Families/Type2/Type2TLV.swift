/// The NFC Forum Type 2 TLV mapping (T2T Technical Specification §2.3, §4): how an NDEF message sits in
/// the data area from page 4 on.
///
/// TLV blocks: NULL (00h, no length), Lock Control (01h), Memory Control (02h), NDEF Message (03h),
/// Proprietary (FDh), Terminator (FEh, no length). Lengths are one byte, or FFh + two bytes big-endian
/// for 255 and more. Lock and Memory Control TLVs reserve bytes (lock bits, vendor areas) that the
/// following TLVs skip over. Decoding never traps: anything truncated or inconsistent gives nil.
public enum Type2TLV {
    /// TLV block types.
    public enum BlockType: UInt8, Sendable {
        case null = 0x00
        case lockControl = 0x01
        case memoryControl = 0x02
        case ndefMessage = 0x03
        case proprietary = 0xFD
        case terminator = 0xFE
    }

    /// Byte offset of the data area (page 4) in tag memory.
    public static let dataAreaOffset = 16

    /// The first NDEF message in `memory`, the tag memory from page 0 (4 bytes a page). Nil when there
    /// is none (a terminator or the end of memory comes first) or it is truncated. The capability
    /// container is not checked here.
    public static func extractMessage(fromMemory memory: [UInt8]) -> [UInt8]? {
        var reader = Reader(memory: memory)
        while let tag = reader.next() {
            switch tag {
            case BlockType.null.rawValue:
                continue
            case BlockType.terminator.rawValue:
                return nil
            default:
                guard let length = reader.length() else { return nil }
                guard let value = reader.take(length) else { return nil }
                if tag == BlockType.ndefMessage.rawValue { return value }
                if tag == BlockType.lockControl.rawValue || tag == BlockType.memoryControl.rawValue {
                    reader.reserve(control: value, isLockControl: tag == BlockType.lockControl.rawValue)
                }
            }
        }
        return nil
    }

    /// The first NDEF message in a page list (as a dump holds it). Pages are placed by number; the walk
    /// stops at the first missing page from page 4 on or at a page that is not 4 bytes long.
    public static func extractMessage(from pages: [Page]) -> [UInt8]? {
        extractMessage(fromMemory: memory(from: pages))
    }

    /// The TLV area for `message`: `03 L message FE` (or `03 FF hi lo message FE` for 255 bytes and more).
    /// With a `capacity` the area must fit (the terminator is left out when the message TLV fills the
    /// capacity exactly, which the T2T specification allows); `padded` fills up to the capacity with zeros.
    /// Throws ``NFCError/capacityExceeded(needed:available:)`` or, over 65 534 bytes,
    /// ``NFCError/invalidArgument(_:)``.
    public static func makeArea(message: [UInt8], capacity: Int? = nil, padded: Bool = false) throws(NFCError) -> [UInt8] {
        guard message.count <= 0xFFFE else {
            throw .invalidArgument("An NDEF message of \(message.count) bytes is too long for a TLV")
        }
        let header: [UInt8] = message.count < 0xFF
            ? [BlockType.ndefMessage.rawValue, UInt8(message.count)]
            : [BlockType.ndefMessage.rawValue, 0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        var area = header + message
        guard let capacity else { return area + [BlockType.terminator.rawValue] }
        guard area.count <= capacity else { throw .capacityExceeded(needed: area.count + 1, available: capacity) }
        if area.count < capacity { area.append(BlockType.terminator.rawValue) }
        if padded { area += [UInt8](repeating: 0, count: capacity - area.count) }
        return area
    }

    /// Tag memory from page 0 built from `pages`; unknown pages 0–3 are zeros.
    static func memory(from pages: [Page]) -> [UInt8] {
        let byNumber = Dictionary(pages.map { ($0.number, $0.data) }, uniquingKeysWith: { first, _ in first })
        var memory: [UInt8] = []
        var number = 0
        while true {
            if let data = byNumber[number], data.count == 4 {
                memory += data
            } else if number < 4 {
                memory += [0, 0, 0, 0]
            } else {
                return memory
            }
            number += 1
        }
    }

    /// Reads the TLV stream byte by byte, skipping bytes reserved by Lock / Memory Control TLVs.
    private struct Reader {
        let memory: [UInt8]
        var cursor = Type2TLV.dataAreaOffset
        var reserved: [Range<Int>] = []

        mutating func next() -> UInt8? {
            while let range = reserved.first(where: { $0.contains(cursor) }) { cursor = range.upperBound }
            guard cursor < memory.count else { return nil }
            defer { cursor += 1 }
            return memory[cursor]
        }

        mutating func length() -> Int? {
            guard let first = next() else { return nil }
            guard first == 0xFF else { return Int(first) }
            guard let high = next(), let low = next() else { return nil }
            return Int(high) << 8 | Int(low)
        }

        mutating func take(_ count: Int) -> [UInt8]? {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count)
            for _ in 0..<count {
                guard let byte = next() else { return nil }
                bytes.append(byte)
            }
            return bytes
        }

        mutating func reserve(control value: [UInt8], isLockControl: Bool) {
            guard let range = Type2TLV.reservedBytes(control: value, isLockControl: isLockControl) else { return }
            reserved.append(range)
        }
    }

    /// The memory bytes (offsets from page 0) a Lock Control or Memory Control TLV value reserves; nil when
    /// the value is shorter than 3 bytes.
    ///
    /// T2T §2.3.2/§2.3.3: byte 0 = page address (high nibble) and byte offset (low nibble); byte 1 =
    /// size (lock bits for Lock Control, bytes for Memory Control; 0 means 256); byte 2 low nibble =
    /// log2 of the bytes per page.
    static func reservedBytes(control value: [UInt8], isLockControl: Bool) -> Range<Int>? {
        guard value.count >= 3 else { return nil }
        let bytesPerPage = 1 << Int(value[2] & 0x0F)
        let start = Int(value[0] >> 4) * bytesPerPage + Int(value[0] & 0x0F)
        let size = value[1] == 0 ? 256 : Int(value[1])
        let byteCount = isLockControl ? (size + 7) / 8 : size
        return start..<start + byteCount
    }
}
