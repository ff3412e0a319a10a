/// The NFC Forum TLV codec: how an NDEF message sits in a tag's data area among other TLV blocks. It
/// serves the Type 2 mapping (NFC Forum Type 2 Tag Technical Specification §2.3 "TLV blocks", §2.4, data
/// area from page 4) and the MIFARE Classic NDEF mapping (NXP AN1304, the same TLVs in the NDEF sectors).
///
/// TLV blocks (T2T §2.3.1–§2.3.6): NULL (00h, no length), Lock Control (01h), Memory Control (02h), NDEF
/// Message (03h), Proprietary (FDh), Terminator (FEh, no length). Every other type is reserved: a reader
/// skips it by its length like a Proprietary TLV (T2T §2.3: a TLV the reader does not know is jumped
/// over). Lengths are one byte, or FFh + two bytes big-endian for 255 and more (T2T §2.3, figure "TLV
/// block"). Lock and Memory Control TLVs reserve bytes (lock bits, vendor areas) that the following TLVs
/// skip over (T2T §2.3.2, §2.3.3). Decoding never traps: anything truncated or inconsistent gives nil.
///
/// ``scan(memory:start:end:controlTLVs:)`` is the one walker: it returns every TLV it passed with its
/// position (``Block``), so a reader takes the message and a writer puts the new NDEF TLV where the
/// reader found the old one, keeping every TLV in front of it byte for byte.
public enum NFCForumTLV {
    /// TLV block types.
    public enum BlockType: UInt8, Sendable {
        case null = 0x00
        case lockControl = 0x01
        case memoryControl = 0x02
        case ndefMessage = 0x03
        case proprietary = 0xFD
        case terminator = 0xFE
    }

    /// Byte offset of the Type 2 data area (page 4) in tag memory.
    public static let dataAreaOffset = 16

    /// The first NDEF message in `memory`, the tag memory from page 0 (4 bytes a page). Nil when there
    /// is none (a terminator or the end of memory comes first) or it is truncated. The capability
    /// container is not checked here.
    public static func extractMessage(fromMemory memory: [UInt8]) -> [UInt8]? {
        guard case let .message(message) = walk(memory: memory, end: memory.count) else { return nil }
        return message
    }

    /// Where a TLV walk over the memory known so far got to. Readers that fetch memory as they go (see
    /// ``walk(memory:start:end:controlTLVs:)``) read on while the walk asks for more.
    public enum Walk: Sendable, Equatable {
        /// The first NDEF Message TLV, complete: its value.
        case message([UInt8])
        /// No NDEF message: a Terminator TLV, or the end of the area, came first (a TLV other than the
        /// NDEF Message TLV that runs past the end counts as the end).
        case noMessage
        /// The NDEF Message TLV announces `length` bytes, more than the area holds after its header.
        case overrun(length: Int)
        /// The walk needs memory up to this offset (exclusive) to go on; `memory` was shorter.
        case needsMemory(upTo: Int)
    }

    /// One TLV block as it sits in memory (offsets count from the start of the memory walked).
    public struct Block: Sendable, Equatable {
        /// Offset of the type byte.
        public var offset: Int
        /// The type byte (reserved types included).
        public var type: UInt8
        /// Bytes of the length field: 0 (NULL, Terminator), 1, or 3 (FFh + two bytes).
        public var lengthFieldSize: Int
        /// The value length the length field announces.
        public var length: Int
        /// From the first value byte to just past the last one; bytes reserved by a Lock or Memory Control
        /// TLV inside it are not part of the value (``NFCForumTLV/scan(memory:start:end:controlTLVs:)``).
        /// Empty (at the byte after the header) for NULL, Terminator and empty TLVs.
        public var valueRange: Range<Int>

        /// Offset just past the block.
        public var end: Int { valueRange.upperBound }

        /// Creates a block description.
        public init(offset: Int, type: UInt8, lengthFieldSize: Int, length: Int, valueRange: Range<Int>) {
            self.offset = offset
            self.type = type
            self.lengthFieldSize = lengthFieldSize
            self.length = length
            self.valueRange = valueRange
        }
    }

    /// What ``scan(memory:start:end:controlTLVs:)`` found.
    public struct Scan: Sendable, Equatable {
        /// The TLVs passed, in order: every complete TLV before the first NDEF Message TLV (NULL, control,
        /// proprietary and reserved types), then the NDEF Message TLV or the Terminator that ended the walk.
        /// The NDEF Message TLV is listed as soon as its header is known, even while its value is still
        /// needed (``outcome`` is then ``Walk/needsMemory(upTo:)``) or overruns the area.
        public var blocks: [Block]
        /// Bytes reserved by the Lock and Memory Control TLVs passed (memory offsets).
        public var reserved: [Range<Int>]
        /// How the walk ended.
        public var outcome: Walk
        /// Where a new NDEF Message TLV goes so that every TLV in front of it stays: the offset of the first
        /// NDEF Message TLV, else of the Terminator, else of a TLV that runs past the area, else the first of
        /// the NULL TLVs the area ends with, else the end of the area. Nil while the walk needs memory
        /// before it can tell.
        public var messageOffset: Int?

        /// The first NDEF Message TLV, when its header was reached.
        public var messageBlock: Block? { blocks.first { $0.type == BlockType.ndefMessage.rawValue } }
    }

    /// The outcome of ``scan(memory:start:end:controlTLVs:)``.
    public static func walk(memory: [UInt8], start: Int = dataAreaOffset, end: Int, controlTLVs: Bool = true) -> Walk {
        scan(memory: memory, start: start, end: end, controlTLVs: controlTLVs).outcome
    }

    /// Walks the TLV blocks of `memory[start..<end]` (offsets count from the start of `memory`) up to
    /// the first NDEF Message TLV. `memory` may stop short of `end`: the walk then says how much more it
    /// needs, down to the exact last byte of a message value, so a reader fetches only the pages the
    /// TLVs occupy.
    ///
    /// With `controlTLVs` (Type 2, T2T §2.3.2/§2.3.3) the bytes Lock Control and Memory Control TLVs
    /// reserve are skipped; without (the MIFARE Classic NDEF mapping, which has no such TLVs) those
    /// types are skipped by their length like any reserved TLV.
    public static func scan(memory: [UInt8], start: Int = dataAreaOffset, end: Int, controlTLVs: Bool = true) -> Scan {
        var reader = Reader(memory: memory, end: end, cursor: start)
        var blocks: [Block] = []
        // First byte of the NULL TLVs since the last other TLV.
        var nullRun: Int?
        func finish(_ outcome: Walk, at offset: Int?) -> Scan {
            Scan(blocks: blocks, reserved: reader.reserved, outcome: outcome, messageOffset: offset)
        }
        while true {
            reader.skipReserved()
            let offset = reader.cursor
            let tag: UInt8
            switch reader.next() {
            case let .byte(byte): tag = byte
            case .areaEnd: return finish(.noMessage, at: nullRun ?? min(offset, end))
            case let .needs(upTo): return finish(.needsMemory(upTo: upTo), at: nil)
            }
            switch tag {
            case BlockType.null.rawValue:
                blocks.append(Block(offset: offset, type: tag, lengthFieldSize: 0, length: 0,
                                    valueRange: offset + 1..<offset + 1))
                nullRun = nullRun ?? offset
                continue
            case BlockType.terminator.rawValue:
                blocks.append(Block(offset: offset, type: tag, lengthFieldSize: 0, length: 0,
                                    valueRange: offset + 1..<offset + 1))
                return finish(.noMessage, at: offset)
            default:
                let length: Int
                let lengthFieldSize: Int
                switch reader.length() {
                case let .byte(value): (length, lengthFieldSize) = (Int(value), 1)
                case let .value(value): (length, lengthFieldSize) = (value, 3)
                case .areaEnd: return finish(.noMessage, at: offset)
                case let .needs(upTo): return finish(.needsMemory(upTo: upTo), at: nil)
                }
                let isMessage = tag == BlockType.ndefMessage.rawValue
                let valueStart = reader.cursor
                let offsets = reader.offsets(count: length)
                let valueEnd = (offsets.last ?? (valueStart - 1)) + 1
                let block = Block(offset: offset, type: tag, lengthFieldSize: lengthFieldSize, length: length,
                                  valueRange: valueStart..<max(valueStart, valueEnd))
                guard offsets.count == length else {
                    if isMessage {
                        blocks.append(block)
                        return finish(.overrun(length: length), at: offset)
                    }
                    return finish(.noMessage, at: offset)
                }
                if isMessage { blocks.append(block) }
                if let last = offsets.last, last >= memory.count {
                    return finish(.needsMemory(upTo: last + 1), at: isMessage ? offset : nil)
                }
                let value = offsets.map { memory[$0] }
                reader.cursor = valueEnd
                if isMessage { return finish(.message(value), at: offset) }
                blocks.append(block)
                nullRun = nil
                if controlTLVs, tag == BlockType.lockControl.rawValue || tag == BlockType.memoryControl.rawValue {
                    reader.reserve(control: value, isLockControl: tag == BlockType.lockControl.rawValue)
                }
            }
        }
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
        let header: [UInt8] = headerLength(for: message.count) == 2
            ? [BlockType.ndefMessage.rawValue, UInt8(message.count)]
            : [BlockType.ndefMessage.rawValue, 0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        var area = header + message
        guard let capacity else { return area + [BlockType.terminator.rawValue] }
        guard area.count <= capacity else { throw .capacityExceeded(needed: area.count + 1, available: capacity) }
        if area.count < capacity { area.append(BlockType.terminator.rawValue) }
        if padded { area += [UInt8](repeating: 0, count: capacity - area.count) }
        return area
    }

    /// The length of ``makeArea(message:capacity:padded:)``'s area without a capacity, for a message of
    /// `count` bytes, counted rather than built: the header (``headerLength(for:)``), the message, the
    /// terminator. Nil over 65 534 bytes, which `makeArea` refuses.
    static func areaLength(messageLength count: Int) -> Int? {
        guard (0...0xFFFE).contains(count) else { return nil }
        return headerLength(for: count) + count + 1
    }

    /// Bytes of an NDEF Message TLV's header (type and length field) for a value of `count` bytes: 2
    /// (03h, one length byte) up to 254 bytes, 4 (03h, FFh, two bytes big-endian) from 255 on (T2T
    /// §2.3, figure "TLV block"). The one rule ``makeArea(message:capacity:padded:)`` builds by and
    /// ``areaLength(messageLength:)`` counts by.
    static func headerLength(for count: Int) -> Int {
        count < 0xFF ? 2 : 4
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

    /// Reads the TLV stream byte by byte up to `end`, skipping bytes reserved by Lock / Memory Control TLVs.
    private struct Reader {
        let memory: [UInt8]
        let end: Int
        var cursor: Int
        var reserved: [Range<Int>] = []

        enum Step {
            case byte(UInt8)
            /// The area ends here.
            case areaEnd
            /// The byte lies in the area but beyond `memory`: memory up to this offset is needed.
            case needs(Int)
        }

        enum Length {
            case byte(UInt8)
            case value(Int)
            case areaEnd
            case needs(Int)
        }

        mutating func skipReserved() {
            while let range = reserved.first(where: { $0.contains(cursor) }) { cursor = range.upperBound }
        }

        mutating func next() -> Step {
            skipReserved()
            guard cursor < end else { return .areaEnd }
            guard cursor < memory.count else { return .needs(cursor + 1) }
            defer { cursor += 1 }
            return .byte(memory[cursor])
        }

        /// One length byte, or FFh and two bytes big-endian.
        mutating func length() -> Length {
            switch next() {
            case .areaEnd: return .areaEnd
            case let .needs(offset): return .needs(offset)
            case let .byte(first):
                guard first == 0xFF else { return .byte(first) }
                var value = 0
                for _ in 0..<2 {
                    switch next() {
                    case .areaEnd: return .areaEnd
                    case let .needs(offset): return .needs(offset)
                    case let .byte(byte): value = value << 8 | Int(byte)
                    }
                }
                return .value(value)
            }
        }

        /// The offsets of the next `count` unreserved bytes before `end` (fewer when the area ends first).
        func offsets(count: Int) -> [Int] {
            var offsets: [Int] = []
            offsets.reserveCapacity(count)
            var offset = cursor
            while offsets.count < count {
                while let range = reserved.first(where: { $0.contains(offset) }) { offset = range.upperBound }
                guard offset < end else { break }
                offsets.append(offset)
                offset += 1
            }
            return offsets
        }

        mutating func reserve(control value: [UInt8], isLockControl: Bool) {
            guard let range = NFCForumTLV.reservedBytes(control: value, isLockControl: isLockControl) else { return }
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
