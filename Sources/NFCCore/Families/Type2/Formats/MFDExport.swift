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

/// The 64-byte MFD `nfc-mfultralight` loads for a tag that does not answer GET_VERSION.
///
/// libnfc's `utils/nfc-mfultralight.c` sizes its dump by GET_VERSION: an Ultralight EV1 or NTAG21x
/// answer gives that product's page count; a tag that does not answer (MIFARE Ultralight, Ultralight C,
/// NTAG203) keeps `sizeof(mifareul_tag)`, 16 pages. `w` refuses a file of any other size ("size
/// mismatch") and `r` writes those 16 pages. So an Ultralight C (44 readable pages) or NTAG203 (42)
/// MFD of the whole memory cannot be written with the tool; this form can, and holds pages 0–15 only.
extension TagDump {
    /// The pages `nfc-mfultralight` reads and writes on a tag without GET_VERSION.
    public static let libNFCNoVersionPages = 16

    /// The dump as the 64-byte MFD `nfc-mfultralight` loads for Ultralight, Ultralight C and NTAG203:
    /// pages 0–15, 4 bytes each. The rest of the memory (Ultralight C pages 16–47, NTAG203 16–41) is
    /// not in it: written back with `nfc-mfultralight w`, only pages 4–15 change (docs/formats.md).
    /// A dump missing one of pages 0–15 is refused with ``NFCError/partialDump(_:)`` unless `partial`,
    /// as for ``exportLibNFCMFD(partial:)``.
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for products that answer GET_VERSION (their MFD
    ///   is the whole memory: the hint names `mfd`) and for other families (the hint names the formats
    ///   that hold the dump, ``ExportFormat/hint(for:refused:preferred:)``, a look-up of the format
    ///   table); ``NFCError/malformedDump(_:)``
    ///   as for `mfd`.
    public func exportLibNFCMFD64(partial: Bool = false) throws -> [UInt8] {
        guard let product = Type2Product.forType(cardInfo.type), !product.features.contains(.getVersion) else {
            throw NFCError.unsupportedOperation(
                "the 64-byte libnfc MFD is for tags without GET_VERSION (MIFARE Ultralight, Ultralight C, NTAG203); "
                    + "\(cardInfo.type.description) dumps: \(ExportFormat.hint(for: self, refused: .mfd64, preferred: [.mfd]))")
        }
        let image = try Type2PageImage(
            self, unsupportedMessage: "libnfc MFD export is currently available only for page-based Type 2 style dumps.")
        let count = try image.readPageCount(Self.libNFCNoVersionPages, partial: partial, format: "an MFD file")
        return image.bytes(pageCount: count)
    }
}
