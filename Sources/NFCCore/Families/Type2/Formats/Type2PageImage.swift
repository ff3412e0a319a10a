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
    /// Every page number must lie in the product's memory (``pageLimit(for:)``): a file format lays
    /// pages out by number, so one huge number would otherwise ask for a huge file.
    init(_ dump: TagDump, unsupportedMessage: String) throws {
        guard !dump.pages.isEmpty else { throw NFCError.unsupportedOperation(unsupportedMessage) }
        try Self.checkPageNumbers(dump)
        var pages: [Int: [UInt8]] = [:]
        for page in dump.pages {
            guard page.data.count == 4 else {
                throw NFCError.malformedDump(
                    "page \(page.number) has \(page.data.count) bytes; page-based formats store exactly 4 bytes per page")
            }
            guard pages[page.number] == nil else { throw NFCError.malformedDump("page \(page.number) appears twice") }
            pages[page.number] = page.data
        }
        self.pages = pages
        self.maxPage = pages.keys.max() ?? 0
    }

    /// The most pages a Type 2 memory has in any file format we read or write: Flipper's
    /// `MF_ULTRALIGHT_MAX_PAGE_NUM` (flipperzero-firmware `mf_ultralight.h`), above every product's
    /// memory map (NTAG216: 231 pages).
    static let maxPages = FlipperNFCFormat.maxPages

    /// The pages a dump of `type` can hold: its memory map's total (``Type2MemoryMap``) for a product
    /// with a map of its own; ``maxPages`` for generic MIFARE Ultralight (files of unknown products
    /// — NTAG I2C, Ultralight Nano — are typed so) and types outside the family (an imported page dump).
    static func pageLimit(for type: CardType) -> Int {
        guard type != .mifareUltralight, let map = Type2MemoryMap.forType(type) else { return maxPages }
        return map.totalPages
    }

    /// Throws ``NFCError/malformedDump(_:)`` unless every page number of `dump` lies in
    /// 0 ..< ``pageLimit(for:)`` and there are no more pages than that (importers and exporters).
    static func checkPageNumbers(_ dump: TagDump) throws {
        let limit = pageLimit(for: dump.cardInfo.type)
        let generic = dump.cardInfo.type == .mifareUltralight || Type2MemoryMap.forType(dump.cardInfo.type) == nil
        let what = generic ? "a Type 2 memory (at most \(limit) pages" : "\(dump.cardInfo.type.description)'s memory (\(limit) pages"
        guard dump.pages.count <= limit else {
            throw NFCError.malformedDump("\(dump.pages.count) pages do not fit \(what))")
        }
        if let page = dump.pages.first(where: { !(0..<limit).contains($0.number) }) {
            throw NFCError.malformedDump("page \(page.number) is outside \(what), 0–\(limit - 1))")
        }
    }

    /// The first page of 0 ..< `count` the dump does not hold (a page not read: AUTH0-protected, or
    /// the read stopped); nil when all are there.
    func firstMissingPage(below count: Int) -> Int? {
        (0..<count).first { pages[$0] == nil }
    }

    /// The page count a fixed-offset image (MFD, Proxmark3 MFU) of this dump is written with:
    /// `count` when every page below it is there; else, with `partial`, the pages before the first one
    /// missing (nothing is written for pages not read, never zeros); without `partial`,
    /// ``NFCError/partialDump(_:)`` naming that page (``FixedImageCut``). `format` names the file in the message.
    func readPageCount(_ count: Int, partial: Bool, format: String) throws -> Int {
        try Self.cut.unitCount(total: count, firstUnread: firstMissingPage(below: count), partial: partial, format: format) {
            FixedImageCut.Cut(units: $0, parts: $0)
        }
    }

    /// A page image is cut at the first page not read; zeros there would overwrite data and, in the
    /// last pages, the configuration (AUTH0, ACCESS, PWD).
    private static let cut = FixedImageCut(
        unit: "page", part: "page", emptyPart: "missing", risk: "written back to a tag they overwrite its data and configuration")

    /// Pages 0 ..< `count`, missing pages as `00 00 00 00` (only the Flipper file writes them: its
    /// `Pages read` line marks them unread).
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
