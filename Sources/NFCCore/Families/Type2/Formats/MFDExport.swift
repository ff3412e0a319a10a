/// libnfc MFD export for Type 2 tags: the raw page image `nfc-mfultralight` reads and writes.
extension TagDump {
    /// The dump as a libnfc MFD file: pages 0 … N−1, 4 bytes each.
    ///
    /// N comes from the memory map, so the size is the one `nfc-mfultralight` expects
    /// (libnfc `utils/nfc-mfultralight.c` reads and writes exactly the size of its tag struct):
    /// Ultralight 64, Ultralight EV1 MF0UL11 and NTAG210 80, MF0UL21 and NTAG212 164, NTAG203 168,
    /// Ultralight C 176 (44 readable pages; 192 when the dump holds the key pages), NTAG213 180,
    /// NTAG215 540, NTAG216 924 bytes. Other dumps: up to their highest page.
    ///
    /// A partial dump (a page below N not read: AUTH0 protection, a read that stopped) is refused: an
    /// MFD has no mark for unread pages, and zeros written back with `nfc-mfultralight w` overwrite
    /// the tag's data and configuration (AUTH0 = 00h protects it from page 0). With `partial`, the
    /// file holds pages 0 up to the first one not read, and nothing after it.
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for dumps without pages;
    ///   ``NFCError/malformedDump(_:)`` when a page is not exactly 4 bytes or lies outside the memory;
    ///   ``NFCError/partialDump(_:)`` for a partial dump without `partial`.
    func exportType2MFD(partial: Bool = false) throws -> [UInt8] {
        let image = try Type2PageImage(
            self, unsupportedMessage: "libnfc MFD export is currently available only for page-based Type 2 style dumps.")
        let count = Type2PageImage.binaryPageCount(for: cardInfo.type, maxPage: image.maxPage)
        return image.bytes(pageCount: try image.readPageCount(count, partial: partial, format: "an MFD file"))
    }
}
