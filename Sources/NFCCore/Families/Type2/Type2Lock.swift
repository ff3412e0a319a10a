/// Makes a Type 2 tag read-only **for good**.
///
/// IRREVERSIBLE: lock bits and the CC are one-time programmable. Once set, no command, password or
/// reader can make the pages writable again. Callers must make the user confirm and must name the tag
/// (its UID) they mean.
///
/// Procedure (NFC Forum T2T "transition to READ-ONLY"; nfcpy's `protect()` without a password; reference
/// notes §5.4), in this order because the static lock bits also lock the CC page:
/// 1. CC byte 3 write access := Fh (page 3, only when the CC is an NDEF CC — an unformatted tag keeps its
///    blank CC);
/// 2. the product's dynamic lock bits and their block-locking bits (``Type2Product/locking``), RFUI bits 0;
/// 3. static lock bytes, page 2 bytes 2–3 := `FF FF` (L-CC, L4…L15 and the three block-locking bits).
/// Bits already set are not written again. Afterwards page 2, page 3 and the dynamic lock page are read
/// back: every user page and the CC must now be locked (checked with ``Type2LockMap``), the CC must read
/// write access Fh, else ``NFCError/verifyFailed(page:)``.
///
/// Not done: CFGLCK (EV1/NTAG21x configuration lock), the Ultralight C key/AUTH pages and the NTAG203
/// counter page (lock byte 1 of their dynamic lock page) — they do not hold NDEF data, and locking them
/// would also freeze the password settings.
public enum Type2Lock {
    /// Bytes 0–2 of a product's dynamic lock page that make all its user pages from 16 on read-only.
    public struct DynamicLockLayout: Sendable, Hashable {
        /// Pages each lock bit locks, in groups from page 16 (the last group ends at the user memory's end).
        public var pagesPerBit: Int
        /// The lock bits (one per group of pages, in order byte 0 bit 0 upward; ``Type2LockMap`` decodes them).
        public var lockBits: [UInt8]
        /// The block-locking bits that freeze those lock bits.
        public var blockLockingBits: [UInt8]

        /// The datasheet section the layout is taken from.
        public var source: String

        /// The three bytes to write (lock bits and block-locking bits together).
        public var bytes: [UInt8] { zip(lockBits, blockLockingBits).map { $0 | $1 } }

        // The layouts, from the NXP datasheets (figures "dynamic lock bytes 0, 1 and 2"); the block-locking
        // bits each freeze two neighbouring lock bits.

        /// NTAG213/215/216 §8.5.3, page 28h: 2 pages a bit. Byte 0 bits 0–7 lock 16-17 … 30-31, byte 1 bits
        /// 0–3 lock 32-33 … 38-39 (bits 4–7 RFUI); byte 2 bits 0–5 BL 16-19 … BL 36-39 (bits 6–7 RFUI).
        public static let ntag213 = DynamicLockLayout(pagesPerBit: 2, lockBits: [0xFF, 0x0F, 0x00],
                                                      blockLockingBits: [0x00, 0x00, 0x3F], source: "NTAG213/215/216 §8.5.3")
        /// NTAG213/215/216 §8.5.3, page 82h: 16 pages a bit. Byte 0 bits 0–7 lock 16-31 … 112-127, 128-129;
        /// byte 1 RFUI; byte 2 bits 0–3 BL 16-47, 48-79, 80-111, 112-129.
        public static let ntag215 = DynamicLockLayout(pagesPerBit: 16, lockBits: [0xFF, 0x00, 0x00],
                                                      blockLockingBits: [0x00, 0x00, 0x0F], source: "NTAG213/215/216 §8.5.3")
        /// NTAG213/215/216 §8.5.3, page E2h: 16 pages a bit. Byte 0 bits 0–7 lock 16-31 … 128-143, byte 1
        /// bits 0–5 lock 144-159 … 208-223, 224-225; byte 2 bits 0–6 BL 16-47 … BL 208-225 (bit 7 RFUI).
        public static let ntag216 = DynamicLockLayout(pagesPerBit: 16, lockBits: [0xFF, 0x3F, 0x00],
                                                      blockLockingBits: [0x00, 0x00, 0x7F], source: "NTAG213/215/216 §8.5.3")
        /// NTAG210/212 §8.5.3, page 24h: 2 pages a bit. Byte 0 locks 16-17 … 30-31, byte 1 bits 0–1 lock
        /// 32-33, 34-35; byte 2 bits 0–4 BL 16-19 … BL 32-35.
        public static let ntag212 = DynamicLockLayout(pagesPerBit: 2, lockBits: [0xFF, 0x03, 0x00],
                                                      blockLockingBits: [0x00, 0x00, 0x1F], source: "NTAG210/212 §8.5.3")
        /// MF0ULX1 §8.5 (MF0UL21 dynamic lock bytes), page 24h: the NTAG212 layout. The block-locking bits of
        /// MF0UL21/NTAG212 follow the NTAG213 pattern (one BL bit per two lock bits, as Flipper's Ultralight
        /// listener models it) — to be confirmed on a real tag.
        public static let ultralightEV1_21 = DynamicLockLayout(pagesPerBit: 2, lockBits: [0xFF, 0x03, 0x00],
                                                               blockLockingBits: [0x00, 0x00, 0x1F], source: "MF0ULX1 §8.5")
        /// MF0ICU2 §7.5.3, page 28h: 4 pages a bit. Byte 0 bits 1–3 lock 16-19, 20-23, 24-27, bits 5–7 lock
        /// 28-31, 32-35, 36-39; bit 0 BL 16-27, bit 4 BL 28-39. Byte 1 (counter, AUTH0/1, key pages) not set.
        public static let ultralightC = DynamicLockLayout(pagesPerBit: 4, lockBits: [0xEE, 0x00, 0x00],
                                                          blockLockingBits: [0x11, 0x00, 0x00], source: "MF0ICU2 §7.5.3")
        /// NTAG203 §7.5.3, page 28h: the Ultralight C layout for byte 0; byte 1 (counter page 41) not set.
        public static let ntag203 = DynamicLockLayout(pagesPerBit: 4, lockBits: [0xEE, 0x00, 0x00],
                                                      blockLockingBits: [0x11, 0x00, 0x00], source: "NTAG203 §7.5.3")
    }

    /// Static lock bytes (page 2 bytes 2–3) that lock pages 3–15 and freeze those bits: byte 2 bits 3–7
    /// L-CC, L4–L7, bits 0–2 BL-CC, BL 9-4, BL 15-10; byte 3 L8–L15 (MF0ICU1 §8.5.2, NTAG213/215/216 §8.5.2).
    public static let staticLockBytes: [UInt8] = [0xFF, 0xFF]

    /// Locks the tag `info` describes, after checking that the tag in the field is `expectedUID` (its
    /// selected UID and the serial number in pages 0–1): ``NFCError/tagMismatch(expected:actual:)``
    /// otherwise, with nothing written. Products whose lock layout is not known (NTAG I2C, Ultralight
    /// Nano/AES, NTAG 223/224 DNA, which identification keeps as generic Ultralight) are refused with
    /// ``NFCError/unsupportedOperation(_:)``.
    public static func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8],
                            password: [UInt8]? = nil) async throws(TagOperationError) -> LockReport {
        let session: Type2Memory
        do { session = try Type2Memory(transport: transport, info: info) } catch { throw TagOperationError(error) }
        do {
            guard transport.target.uid == expectedUID else {
                throw NFCError.tagMismatch(expected: expectedUID, actual: transport.target.uid)
            }
            let product = session.product
            guard product.locking != .unknown else {
                throw NFCError.unsupportedOperation("The lock bits of \(product.name) are not known: not locked")
            }
            let header = try await session.open(password: password)
            if expectedUID.count == 7 {
                let serial = Array(header[0..<3] + header[4..<8])
                guard serial == expectedUID else { throw NFCError.tagMismatch(expected: expectedUID, actual: serial) }
            }
            return try await lock(session: session, info: info)
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: session.pagesWritten)
        }
    }

    private static func lock(session: Type2Memory, info: CardInfo) async throws -> LockReport {
        let map = session.map
        let layout = session.product.locking.dynamicLayout
        let dynamicPage = layout == nil ? nil : map.dynamicLockPage
        let lockPages = [3] + (dynamicPage.map { [$0] } ?? []) + [2]
        try await session.requireWriteAccess(to: lockPages)
        try await session.read(lockPages)

        // 1. CC write access (page 3): the tag ORs, so writing the CC with Fh in the low nibble sets it.
        let cc = try await session.capabilityContainer()
        if cc.isNDEF, cc.writeAccess != 0x0F {
            var bytes = cc.bytes
            bytes[3] |= 0x0F
            try await session.write(page: 3, data: bytes)
        }
        // 2. Dynamic lock bits (byte 3 is RFUI: written as 0).
        if let dynamicPage, let layout {
            if lacks(layout.bytes, in: try await session.page(dynamicPage)) {
                try await session.write(page: dynamicPage, data: layout.bytes + [0x00])
            }
        }
        // 3. Static lock bytes; bytes 0–1 of page 2 (BCC1, internal) are read-only and sent back as read.
        let page2 = try await session.page(2)
        if lacks(staticLockBytes, in: Array(page2[2...3])) {
            try await session.write(page: 2, data: Array(page2[0..<2]) + staticLockBytes)
        }

        // Read back what the tag now holds.
        try await session.read(lockPages, fresh: true)
        let after = try await session.capabilityContainer()
        if cc.isNDEF, after.writeAccess != 0x0F { throw NFCError.verifyFailed(page: 3) }
        let memory = session.lockMemory(through: map.userEnd)
        if let unlocked = ([3] + Array(map.userStart...map.userEnd)).first(where: {
            !Type2LockMap.isLocked(page: $0, type: session.product.cardType, memory: memory)
        }) {
            throw NFCError.verifyFailed(page: unlocked < 16 ? 2 : (dynamicPage ?? unlocked))
        }
        let page2After = try await session.page(2)
        if lacks(staticLockBytes, in: Array(page2After[2...3])) { throw NFCError.verifyFailed(page: 2) }
        if let dynamicPage, let layout, lacks(layout.bytes, in: try await session.page(dynamicPage)) {
            throw NFCError.verifyFailed(page: dynamicPage)
        }
        var lockBytes = Array(page2After[2..<4])
        if let dynamicPage { lockBytes += try await session.page(dynamicPage).prefix(3) }
        return LockReport(uid: info.uid, cardType: info.type, pagesWritten: session.pagesWritten,
                          capabilityContainer: after.bytes, lockBytes: lockBytes)
    }

    /// True when some bit of `wanted` is not set in `current` (lock bits only ever get set).
    private static func lacks(_ wanted: [UInt8], in current: [UInt8]) -> Bool {
        zip(wanted, current).contains { wanted, current in current & wanted != wanted }
    }
}
