/// Writes an NDEF message to a Type 2 tag (NFC Forum T2T TLV mapping), touching only the pages the new
/// TLV needs and checking everything that can make the write fail before the first byte changes.
///
/// Before writing: optional PWD_AUTH; CC (page 3) must be an NDEF CC of version 1.x with write access
/// 0h, else ``NFCError/tagLocked`` (or ``NFCError/unsupportedOperation(_:)`` when the tag is not NDEF
/// formatted); the message must fit, else ``NFCError/capacityExceeded(needed:available:)`` in message
/// bytes; no page to write may be locked by a static or dynamic lock bit (``NFCError/tagLocked``) or lie
/// behind AUTH0 without a password (``NFCError/authenticationRequired``). AUTH0 is tested by the first
/// WRITE itself when it goes to the highest page (a NAK writes nothing: ``Type2Memory/writeFirst(page:data:guarding:)``),
/// else read from its configuration page before the first WRITE.
///
/// Layout: the TLV walk of ``NFCForumTLV/scan(memory:start:end:controlTLVs:)`` (the reader's) places the
/// new TLV where the old NDEF Message TLV is, else where the Terminator is. Every TLV in front of it —
/// NULL, Lock Control, Memory Control, Proprietary and reserved types (T2T §2.3: skipped by their
/// length) — stays byte for byte and the bytes control TLVs reserve are skipped (T2T §2.3.2/§2.3.3; nfcpy
/// does the same), then comes `03 L [FF hi lo] message` and a terminator `FE` when there is room.
/// Pages are read and written through ``Type2Memory``, which writes back changed pages only. The data area is the CC's size,
/// never more than the product's user memory.
///
/// Reads: pages 0 up to the last page the TLV takes from page 4 in one go (``lastPage(of:map:)``:
/// CC, lock bytes, the TLV walk and the pages to write), more only where control TLVs push the TLV on.
///
/// Order (tearing): when the TLV spans several pages, its length is first set to 0 (an empty message,
/// skipped when the tag already reads `03 00` there), then the other pages are written — the highest
/// first, which tests AUTH0 when nothing was written before it — then the page with the real length —
/// a tag pulled half-way shows an empty message, not a broken one (nfcpy's order). Pages that already
/// hold the right bytes are not written. Afterwards every written page is
/// read back: a difference is ``NFCError/verifyFailed(page:)`` with the first differing page.
public enum Type2NDEFWriter {
    /// Writes `message` (raw NDEF message bytes; empty writes an empty message). Errors carry the pages
    /// the tag acknowledged before the failure.
    public static func write(_ message: [UInt8], to transport: any TagTransport, info: CardInfo,
                             password: [UInt8]? = nil) async throws(TagOperationError) -> WriteReport {
        let session: Type2Memory
        do { session = try Type2Memory(transport: transport, info: info) } catch { throw TagOperationError(error) }
        do {
            try await session.open(password: password, through: lastPage(of: message, map: session.map))
            let cc = try await session.capabilityContainer()
            guard cc.isNDEF else {
                throw NFCError.unsupportedOperation("The tag is not NDEF formatted (CC \(cc)): format it first")
            }
            guard cc.majorVersion == 1 else {
                throw NFCError.unsupportedOperation(
                    "Type 2 mapping version \(cc.majorVersion).x (CC \(cc)) is not supported")
            }
            guard cc.isWritable else { throw NFCError.tagLocked }
            let pages = try await writeTLV(message: message, session: session, capabilityContainer: cc,
                                           keepControlTLVs: true)
            return WriteReport(uid: info.uid, cardType: info.type, messageLength: message.count,
                               bytesWritten: session.writeCount * 4, pagesWritten: pages, capabilityContainer: cc.bytes)
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: session.pagesWritten)
        }
    }

    /// The last page a TLV for `message` takes when it starts the data area (page 4: no control TLV in
    /// front, T2T §2.3), within the user memory: the writer reads pages 0 up to it in one go (one FAST_READ
    /// for CC, lock bytes, TLV walk and the pages to write) instead of one read for each.
    static func lastPage(of message: [UInt8], map: Type2MemoryMap) -> Int {
        let tlvBytes = NFCForumTLV.areaLength(messageLength: message.count) ?? 0
        let lastUserPage = (NFCForumTLV.dataAreaOffset + map.userBytes - 1) / 4
        return min(lastUserPage, (NFCForumTLV.dataAreaOffset + tlvBytes - 1) / 4)
    }

    /// Places and writes the TLV for `message` in the data area `capabilityContainer` describes, then
    /// verifies it. Returns the pages written. The session must be open.
    static func writeTLV(message: [UInt8], session: Type2Memory, capabilityContainer cc: Type2CapabilityContainer,
                         keepControlTLVs: Bool) async throws -> [Int] {
        let end = NFCForumTLV.dataAreaOffset + min(cc.dataAreaSize, session.map.userBytes)
        let layout = keepControlTLVs
            ? try await Layout.read(session: session, end: end) : Layout(start: NFCForumTLV.dataAreaOffset, end: end)
        let free = layout.freeOffsets
        var tlv = try NFCForumTLV.makeArea(message: message)
        if tlv.count > free.count { tlv.removeLast() }  // the terminator is optional when the TLV fills the area
        guard tlv.count <= free.count else {
            let available = Layout.largestMessage(freeBytes: free.count)
            throw NFCError.capacityExceeded(needed: message.count, available: available)
        }
        let placement = Dictionary(uniqueKeysWithValues: zip(free, tlv))
        let pages = Set(placement.keys.map { $0 / 4 }).sorted()

        // The pages to write first (the write needs them anyway): a refused one is the protected page
        // the write stops at, as a dump and an NDEF read of the tag stop at it.
        try session.requireReadable(pages)
        try await session.read(pages)
        try await session.requireUnlocked(pages)

        let final = try await image(of: pages, session: session, with: placement)
        let changing = pages.filter { final[$0] != session.known[$0] }
        // The page holding the first length byte is written last; before, the length reads 0.
        let lengthPage = free[1] / 4
        // One changed page is written atomically; only a multi-page change needs the empty-message step.
        var interim: [Int: [UInt8]] = [:]
        if changing.count > 1 {
            let emptyMessage = [free[0]: NFCForumTLV.BlockType.ndefMessage.rawValue, free[1]: UInt8(0)]
            let headerPages = Set([free[0] / 4, lengthPage]).sorted()
            interim = try await image(of: headerPages, session: session, with: emptyMessage)
                .filter { session.known[$0.key] != $0.value }
        }
        // AUTH0 guards every page from AUTH0 on, so the highest page to write is the one to test. When
        // it is the first WRITE (no empty-message step: the tag already shows an empty message, or one
        // page changes) its own ACK or NAK answers, and nothing is written before it; otherwise AUTH0 is
        // read first. Either way a protected page is refused before the first byte changes.
        let highest = changing.max()
        let probesAUTH0 = interim.isEmpty && highest != nil && (highest != lengthPage || changing.count == 1)
        if !probesAUTH0 { try await session.requireWriteAccess(to: changing) }
        for page in interim.keys.sorted() {
            try await session.writeChanged(page: page, data: interim[page] ?? [])
        }
        if probesAUTH0, let highest {
            try await session.writeFirst(page: highest, data: final[highest] ?? [], guarding: changing)
        }
        for page in pages where page != lengthPage {
            try await session.writeChanged(page: page, data: final[page] ?? [])
        }
        try await session.writeChanged(page: lengthPage, data: final[lengthPage] ?? [])
        let changed = session.pagesWritten
        try await session.verify(final.filter { changed.contains($0.key) })
        return changed
    }

    /// The content of `pages` as known, with `placement` (memory offset → byte) laid over it.
    private static func image(of pages: [Int], session: Type2Memory, with placement: [Int: UInt8]) async throws
        -> [Int: [UInt8]]
    {
        var image: [Int: [UInt8]] = [:]
        for page in pages {
            var content = try await session.page(page)
            for index in 0..<4 {
                if let byte = placement[page * 4 + index] { content[index] = byte }
            }
            image[page] = content
        }
        return image
    }

    /// Where the NDEF TLV may go: from ``start`` to ``end`` (memory offsets), minus the ``reserved`` bytes.
    struct Layout {
        var start: Int
        var end: Int
        var reserved: [Range<Int>] = []

        /// Offsets a new TLV may use, in order.
        var freeOffsets: [Int] {
            guard start < end else { return [] }
            return (start..<end).filter { offset in !reserved.contains { $0.contains(offset) } }
        }

        /// The longest NDEF message a TLV in `freeBytes` bytes can carry (2-byte header below 255 bytes,
        /// 4-byte header from 255 on; the terminator is optional).
        static func largestMessage(freeBytes: Int) -> Int {
            let short = min(freeBytes - 2, 254)
            return max(0, freeBytes - 4 >= 255 ? freeBytes - 4 : short)
        }

        /// Finds where the new NDEF TLV goes with the one TLV walker (``NFCForumTLV/scan(memory:start:end:controlTLVs:)``),
        /// the walk ``Type2NDEFReader`` makes: at the first NDEF Message TLV, else at the Terminator (see
        /// ``NFCForumTLV/Scan/messageOffset``). Every TLV in front of it — NULL, Lock Control, Memory
        /// Control, Proprietary and reserved types — stays byte for byte, and the bytes the control TLVs
        /// reserve are skipped. Only the pages up to the NDEF TLV's header are read, not the old message.
        static func read(session: Type2Memory, end: Int) async throws -> Layout {
            // Read ahead a READ's worth of pages: control TLVs are short and sit together.
            let scan = try await session.scanTLVs(end: end, readAhead: 3, until: { $0.messageOffset != nil })
            guard let start = scan.messageOffset else { return Layout(start: end, end: end) }
            return Layout(start: start, end: end, reserved: scan.reserved)
        }
    }
}
