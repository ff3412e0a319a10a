/// The page image behind the page-based file formats (Flipper `.nfc`, Proxmark3 MFU, libnfc MFD):
/// the dump's pages checked (exactly 4 bytes each, as the spec requires) and laid out by number.
///
/// These formats store a Type 2 memory as fixed 4-byte pages at fixed offsets, so a page of another
/// length cannot be stored without corrupting every later offset: the exporters refuse it with
/// ``NFCError/malformedDump(_:)`` instead of padding or truncating (upstream did neither check).
struct Type2PageImage {
    /// Page data by page number.
    let pages: [Int: [UInt8]]
    /// Highest page number present.
    let maxPage: Int

    /// Checks `dump`'s pages. `unsupportedMessage` is the upstream message for dumps without pages.
    init(_ dump: TagDump, unsupportedMessage: String) throws {
        guard !dump.pages.isEmpty else { throw NFCError.unsupportedOperation(unsupportedMessage) }
        var pages: [Int: [UInt8]] = [:]
        for page in dump.pages {
            guard page.data.count == 4 else {
                throw NFCError.malformedDump(
                    "page \(page.number) has \(page.data.count) bytes; page-based formats store exactly 4 bytes per page")
            }
            guard page.number >= 0 else { throw NFCError.malformedDump("page number \(page.number) is negative") }
            guard pages[page.number] == nil else { throw NFCError.malformedDump("page \(page.number) appears twice") }
            pages[page.number] = page.data
        }
        self.pages = pages
        self.maxPage = pages.keys.max() ?? 0
    }

    /// Pages 0 ..< `count`, missing pages as `00 00 00 00`.
    func bytes(pageCount count: Int) -> [UInt8] {
        var image: [UInt8] = []
        image.reserveCapacity(count * 4)
        for number in 0..<count { image += pages[number] ?? [0, 0, 0, 0] }
        return image
    }

    /// Pages in the binary images (Proxmark3 MFU, libnfc MFD): every page a reader can get back from
    /// this product (the memory map's readable pages: Ultralight C key pages 44–47 only when the dump
    /// holds them, as Proxmark3 appends the key only when it knows it), never fewer than the dump holds.
    static func binaryPageCount(for type: CardType, maxPage: Int) -> Int {
        max(Type2MemoryMap.forType(type)?.readablePages ?? 0, maxPage + 1)
    }

    /// The 7-byte UID stored in pages 0 and 1 (UID0–2, BCC0 | UID3–6), when both are 4 bytes.
    static func uid(page0: [UInt8]?, page1: [UInt8]?) -> [UInt8]? {
        guard let page0, let page1, page0.count == 4, page1.count == 4 else { return nil }
        return Array(page0[0..<3]) + page1
    }

    /// The UID of ``uid(page0:page1:)`` from a page list whose first two entries are pages 0 and 1.
    static func uid(in pages: [Page]) -> [UInt8]? {
        uid(page0: pages.first?.data, page1: pages.count > 1 ? pages[1].data : nil)
    }

    /// True when `bytes` starting at `offset` look like Type 2 pages 0–2: BCC0 = 88h ⊕ UID0 ⊕ UID1 ⊕ UID2
    /// at byte 3 and BCC1 = UID3 ⊕ … ⊕ UID6 at byte 8 (ISO/IEC 14443-3 §6.5.3; the check Proxmark3's
    /// `detect_mfu_dump_format` uses to tell its file layouts apart).
    static func hasValidBCC(_ bytes: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, bytes.count >= offset + 9 else { return false }
        let bcc0 = ISO14443.bcc([0x88] + bytes[offset..<offset + 3])
        let bcc1 = ISO14443.bcc(Array(bytes[offset + 4..<offset + 8]))
        return bcc0 == bytes[offset + 3] && bcc1 == bytes[offset + 8]
    }
}
