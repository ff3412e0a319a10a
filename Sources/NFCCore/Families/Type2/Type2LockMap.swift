/// Which pages the lock bits of a Type 2 tag make read-only. Lock bits are one-time programmable:
/// once set they can never be cleared, so anything that writes them makes the pages read-only for good.
///
/// Static lock bits (every Type 2 tag; MF0ICU1 §8.5.2, NTAG213/215/216 §8.5.2): page 2 bytes 2–3.
/// Byte 2 bit 3 locks page 3 (the OTP/CC page), bits 4–7 lock pages 4–7; byte 3 bits 0–7 lock pages 8–15.
/// Byte 2 bits 0–2 are block-locking bits: they freeze lock bits themselves (BL-OTP → bit 3,
/// BL 9-4 → the bits of pages 4–9, BL 15-10 → the bits of pages 10–15).
///
/// Dynamic lock bits (larger products): bytes 0–2 of the dynamic lock page, one bit per group of pages
/// from page 16 (see ``dynamicBits``); their block-locking bits are not modelled.
public enum Type2LockMap {
    /// One dynamic lock bit and the pages it makes read-only.
    public struct DynamicBit: Sendable, Hashable {
        /// Byte within the dynamic lock page (0–2).
        public var byte: Int
        /// Bit within that byte (0 = LSB).
        public var bit: Int
        /// The pages it locks.
        public var pages: ClosedRange<Int>
    }

    /// Static lock bit of each page 3–15, as (byte in page 2, bit).
    static let staticBits: [Int: (byte: Int, bit: Int)] = {
        var bits: [Int: (byte: Int, bit: Int)] = [3: (2, 3)]
        for page in 4...7 { bits[page] = (2, page) }
        for page in 8...15 { bits[page] = (3, page - 8) }
        return bits
    }()

    /// The dynamic lock bits of a product (empty when it has none), decoded from its row of
    /// ``Type2Product/locking`` (datasheet sections in ``Type2Lock/DynamicLockLayout``): each set lock bit, in order byte 0 bit 0
    /// upward, locks the next group of `pagesPerBit` pages from page 16, the last group ending at the user
    /// memory's end. Bits left out of the row (Ultralight C / NTAG203 block-locking bits 0 and 4) lock no pages.
    public static func dynamicBits(for type: CardType) -> [DynamicBit] {
        guard let product = Type2Product.forType(type), product.map.dynamicLockPage != nil,
            let layout = product.locking.dynamicLayout
        else { return [] }
        let map = product.map
        let setBits: [(byte: Int, bit: Int)] = layout.lockBits.indices.flatMap { byte in
            (0..<8).filter { layout.lockBits[byte] & (1 << $0) != 0 }.map { bit in (byte: byte, bit: bit) }
        }
        return zip(setBits, stride(from: 16, through: map.userEnd, by: layout.pagesPerBit)).map { bit, first in
            DynamicBit(byte: bit.byte, bit: bit.bit, pages: first...min(first + layout.pagesPerBit - 1, map.userEnd))
        }
    }

    /// True when the lock bits in `memory` (the whole tag memory, 4 bytes a page) make `page` read-only.
    /// Pages 0–2 (UID, serial, lock bytes) are not covered here: they are never written as data.
    public static func isLocked(page: Int, type: CardType, memory: [UInt8]) -> Bool {
        if let (byte, bit) = staticBits[page] {
            return byteAt(2 * 4 + byte, in: memory) & (1 << bit) != 0
        }
        guard let lockPage = Type2MemoryMap.forType(type)?.dynamicLockPage else { return false }
        return dynamicBits(for: type).contains { entry in
            entry.pages.contains(page) && byteAt(lockPage * 4 + entry.byte, in: memory) & (1 << entry.bit) != 0
        }
    }

    /// Merges `requested` lock bytes (page 2 bytes 2–3) into `current` the way the tag does: bits are
    /// ORed, and bits frozen by a set block-locking bit keep their value.
    public static func mergeStaticLockBytes(current: [UInt8], requested: [UInt8]) -> [UInt8] {
        guard current.count == 2, requested.count == 2 else { return current }
        // Masks of the bits each block-locking bit (byte 2 bits 0–2) freezes, per byte.
        var frozen: [UInt8] = [0, 0]
        if current[0] & 0x01 != 0 { frozen[0] |= 0x08 }  // BL-OTP freezes L-OTP
        if current[0] & 0x02 != 0 { frozen[0] |= 0xF0; frozen[1] |= 0x03 }  // BL 9-4 freezes L4..L9
        if current[0] & 0x04 != 0 { frozen[1] |= 0xFC }  // BL 15-10 freezes L10..L15
        return (0..<2).map { current[$0] | (requested[$0] & ~frozen[$0]) }
    }

    private static func byteAt(_ index: Int, in memory: [UInt8]) -> UInt8 {
        memory.indices.contains(index) ? memory[index] : 0
    }
}
