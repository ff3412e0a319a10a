/// libnfc MFD export for Type 2 tags: the raw page image `nfc-mfultralight` reads and writes.
extension TagDump {
    /// The dump as a libnfc MFD file: pages 0 … N−1, 4 bytes each, gaps as zeros.
    ///
    /// N comes from the memory map, so the size is the one `nfc-mfultralight` expects
    /// (libnfc `utils/nfc-mfultralight.c` reads and writes exactly the size of its tag struct):
    /// Ultralight 64, Ultralight EV1 MF0UL11 and NTAG210 80, MF0UL21 and NTAG212 164, NTAG203 168,
    /// Ultralight C 176 (44 readable pages; 192 when the dump holds the key pages), NTAG213 180,
    /// NTAG215 540, NTAG216 924 bytes. Other dumps: up to their highest page.
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for dumps without pages;
    ///   ``NFCError/malformedDump(_:)`` when a page is not exactly 4 bytes.
    func exportType2MFD() throws -> [UInt8] {
        let image = try Type2PageImage(
            self, unsupportedMessage: "libnfc MFD export is currently available only for page-based Type 2 style dumps.")
        return image.bytes(pageCount: Type2PageImage.binaryPageCount(for: cardInfo.type, maxPage: image.maxPage))
    }
}
