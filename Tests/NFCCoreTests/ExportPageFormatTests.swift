import Testing
@testable import NFCCore

/// Flipper / Proxmark3 / MFD exports: the spec's malformedDump rule, upstream's messages for dumps
/// without pages, upstream's DumpInteropTests vectors, and one test per upstream [BUG] (reference
/// notes §4.4–4.6) that the upstream code would fail.
@Suite struct ExportPageFormatTests {
    static let pageExports: [(String, @Sendable (TagDump) throws -> [UInt8])] = [
        ("flipper", { Array(try $0.exportFlipperNFC().utf8) }),
        ("pm3", { try $0.exportProxmark3MFU() }),
        ("mfd", { try $0.exportLibNFCMFD() }),
    ]

    @Test(arguments: [2, 16, 0, 5])
    func pagesOfAnotherLengthAreMalformed(length: Int) {
        var pages = ExportFixtures.interopPages
        pages.append(Page(number: 3, data: [UInt8](repeating: 0xAB, count: length)))
        let dump = ExportFixtures.interopDump(pages: pages)
        for (name, export) in Self.pageExports {
            let error = #expect(throws: NFCError.self, "\(name)") { try export(dump) }
            #expect(error?.code == "malformed_dump", "\(name)")
            #expect(error?.message.contains("page 3 has \(length) bytes") == true, "\(name)")
        }
    }

    @Test func dumpsWithoutPagesAreUnsupportedWithUpstreamMessages() throws {
        let dump = TagDump(cardInfo: CardInfo(type: .iso15693_generic, uid: [0xE0, 4, 1, 0x23, 0x45, 0x67, 0x89, 0xAB]),
                           blocks: [Block(number: 0, data: [0x10, 0x11, 0x12, 0x13])])
        // (An ISO 15693 dump has its own Flipper file since the ISO15693-3 export exists: the upstream
        // Flipper message is checked on a FeliCa dump, which still has none.)
        let felica = TagDump(cardInfo: CardInfo(type: .felicaLite, uid: [1, 2, 3, 4, 5, 6, 7, 8]),
                             blocks: [Block(number: 0, data: [UInt8](repeating: 0, count: 16))])
        #expect(throws: NFCError.unsupportedOperation(
            "Flipper Zero export is currently available only for page-based Type 2 style dumps.")) { try felica.exportFlipperNFC() }
        #expect(try dump.exportFlipperNFC().contains("Device type: ISO15693-3\n"))
        #expect(throws: NFCError.unsupportedOperation(
            "Proxmark3 MFU export is currently available only for page-based Type 2 style dumps.")) { try dump.exportProxmark3MFU() }
        #expect(throws: NFCError.unsupportedOperation(
            "libnfc MFD export is currently available only for page-based Type 2 style dumps.")) { try dump.exportLibNFCMFD() }
    }

    // MARK: DumpInteropTests vectors

    /// NTAG213 with pages {0, 1, 2, 44} → 56 + 45·4 = 236 bytes; 45 pages after import. (Synthetic UID
    /// with invalid BCCs: detected by the header's page byte.)
    /// Sparse, the dump is partial (page 3 not read): refused, or cut before page 3 with `partial`.
    @Test func proxmarkSizeForSparseNTAG213() throws {
        let sparse = ExportFixtures.interopDump(pages: ExportFixtures.interopPages + [ExportFixtures.page(44, "01020304")])
        #expect(throws: NFCError.partialDump(
            "page 3 of 45 was not read; a Proxmark3 MFU file has no mark for unread pages and would hold zeros there "
                + "(written back to a tag they overwrite its data and configuration). Export only pages 0–2 (partial), "
                + "or use JSON or Flipper .nfc")) { try sparse.exportProxmark3MFU() }
        #expect(try sparse.exportProxmark3MFU(partial: true).count == 56 + 12)
        let dump = ExportFixtures.filled(sparse)
        let bytes = try dump.exportProxmark3MFU()
        #expect(bytes.count == 236)
        #expect(bytes[11] == 44)
        let imported = try TagDump.importProxmark3MFU(bytes)
        #expect(imported.pages.count == 45)
        #expect(imported.cardInfo.type == .ntag213)
        #expect(imported.cardInfo.uid == [0x04, 0x57, 0x01, 0xCA, 0x53, 0x28, 0x80])
        #expect(imported.pages[44].data == [1, 2, 3, 4])
    }

    @Test func flipperRoundTripOfTheInteropDump() throws {
        let dump = ExportFixtures.interopDump(pages: ExportFixtures.interopPages)
        let imported = try TagDump.importFlipperNFC(try dump.exportFlipperNFC())
        #expect(imported.cardInfo.uid == dump.cardInfo.uid)
        #expect(imported.cardInfo.type == .ntag213)
        #expect(imported.pages == dump.pages)
    }

    /// A plain 16-byte Proxmark3 file: four pages (CC `E1 10 12 00`).
    @Test func plainProxmarkOfSixteenBytes() throws {
        let bytes = [UInt8](hex: "04570184 CA532880 DB480000 E1101200") ?? []
        let dump = try TagDump.importProxmark3MFU(bytes)
        #expect(dump.pages.count == 4)
        #expect(dump.pages[3].data == [0xE1, 0x10, 0x12, 0x00])
        #expect(dump.cardInfo.uid == [0x04, 0x57, 0x01, 0xCA, 0x53, 0x28, 0x80])
        #expect(dump.cardInfo.type == .mifareUltralight)
    }

    /// NTAG213 `DEADBEEF` with pages 01020304 / 05060708: the MFD starts with those 8 bytes.
    @Test func mfdStartsWithThePages() throws {
        let dump = ExportFixtures.filled(TagDump(cardInfo: CardInfo(type: .ntag213, uid: [0xDE, 0xAD, 0xBE, 0xEF]),
                           pages: [ExportFixtures.page(0, "01020304"), ExportFixtures.page(1, "05060708")]))
        let mfd = try dump.exportLibNFCMFD()
        #expect(mfd.prefix(8) == [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08])
        #expect(mfd.dropFirst(8).allSatisfy { $0 == 0 })
    }

    // MARK: Upstream bugs

    /// [BUG] MFD without padding: upstream concatenated the pages it had (8 bytes here); libnfc's
    /// nfc-mfultralight only reads a full 180-byte NTAG213 image. The zeros we padded such a dump
    /// with wrote AUTH0 = 00h back to a tag (issue 10): a dump of pages 0 and 40 is now refused as
    /// partial; one read in full is the full image.
    @Test func mfdIsPaddedToTheProductSize() throws {
        let sparse = TagDump(cardInfo: CardInfo(type: .ntag213, uid: [0xDE, 0xAD, 0xBE, 0xEF]),
                             pages: [ExportFixtures.page(0, "01020304"), ExportFixtures.page(40, "05060708")])
        let error = #expect(throws: NFCError.self) { try sparse.exportLibNFCMFD() }
        #expect(error?.code == "partial_dump")
        let dump = ExportFixtures.filled(sparse)
        let mfd = try dump.exportLibNFCMFD()
        #expect(mfd.count == 180)
        #expect(mfd[160..<164] == [0x05, 0x06, 0x07, 0x08])
    }

    /// [BUG] Hard-coded "Mifare version": upstream wrote the NTAG213 table value for any NTAG213;
    /// an NTAG213F answers 00 04 04 04 01 00 0F 03. Unknown versions are zeros, not invented.
    @Test func mifareVersionIsTheTagsOwn() throws {
        var dump = try ExportFixtures.type2Dump("ntag213")
        dump.cardInfo.version = [0x00, 0x04, 0x04, 0x04, 0x01, 0x00, 0x0F, 0x03]
        #expect(try dump.exportFlipperNFC().contains("Mifare version: 00 04 04 04 01 00 0F 03\n"))
        #expect(try dump.exportProxmark3MFU().prefix(8) == [0x00, 0x04, 0x04, 0x04, 0x01, 0x00, 0x0F, 0x03])
        dump.cardInfo.version = nil
        #expect(try dump.exportFlipperNFC().contains("Mifare version: 00 00 00 00 00 00 00 00\n"))
        #expect(try dump.exportProxmark3MFU().prefix(8).allSatisfy { $0 == 0 })
    }

    /// [BUG] Missing Flipper fields: upstream files lacked the type, signature, counters, tearing and
    /// "Pages read" lines (and ATQA/SAK when unknown), so a Flipper refused them. Every key the
    /// loader requires is present, in its order, even for a dump that knows nothing but pages.
    @Test func flipperHasEveryKeyTheLoaderReadsInOrder() throws {
        let dump = ExportFixtures.interopDump(pages: ExportFixtures.interopPages)
        let keys = try dump.exportFlipperNFC().split(separator: "\n").map { String($0.prefix { $0 != ":" }) }
        let required = ["Filetype", "Version", "Device type", "UID", "ATQA", "SAK", "Data format version",
                        "NTAG/Ultralight type", "Signature", "Mifare version", "Counter 0", "Tearing 0", "Counter 1",
                        "Tearing 1", "Counter 2", "Tearing 2", "Pages total", "Pages read"]
        #expect(Array(keys.prefix(required.count)) == required)
        #expect(Array(keys.dropFirst(required.count).prefix(45)) == (0..<45).map { "Page \($0)" })
        #expect(keys.last == "Failed authentication attempts")
        #expect(keys.count == required.count + 45 + 1)
    }

    /// [BUG] ATQA LSB first: upstream's tests built `44 00` (the version-2 order) and its Proxmark3
    /// import set `44 00`. Version 4 files and our model hold it MSB first.
    @Test func atqaIsMostSignificantByteFirst() throws {
        let dump = ExportFixtures.filled(TagDump(cardInfo: CardInfo(type: .ntag213, uid: [0x04, 0x57, 0x01, 0xCA, 0x53, 0x28, 0x80],
                                              atqa: [0x00, 0x44], sak: 0x00), pages: ExportFixtures.interopPages))
        #expect(try dump.exportFlipperNFC().contains("\nATQA: 00 44\nSAK: 00\n"))
        #expect(try TagDump.importProxmark3MFU(try dump.exportProxmark3MFU()).cardInfo.atqa == [0x00, 0x44])
        #expect(try TagDump.importLibNFCMFD(try dump.exportLibNFCMFD()).cardInfo.atqa == [0x00, 0x44])
    }

    @Test func proxmarkHeaderFields() throws {
        let dump = try ExportFixtures.type2Dump("ul11")
        let bytes = try dump.exportProxmark3MFU()
        #expect(bytes.count == 56 + 20 * 4)
        #expect(bytes[11] == 19)
        #expect(Array(bytes[12..<44]) == dump.type2?.signature)
        // Counters 1, 256, 0x010203 LSB first, each followed by its tearing flag BD.
        #expect(Array(bytes[44..<56]) == [0x01, 0x00, 0x00, 0xBD, 0x00, 0x01, 0x00, 0xBD, 0x03, 0x02, 0x01, 0xBD])
    }

    @Test func ultralightCKeyPagesOnlyWhenPresent() throws {
        var dump = try ExportFixtures.type2Dump("ulc")
        #expect(try dump.exportLibNFCMFD().count == 176)
        #expect(try dump.exportFlipperNFC().contains("Pages total: 48\nPages read: 44\n"))
        dump.pages += (44...47).map { Page(number: $0, data: [0x49, 0x45, 0x4D, 0x4B]) }
        #expect(try dump.exportLibNFCMFD().count == 192)
        #expect(try dump.exportProxmark3MFU().count == 56 + 192)
    }

    /// Flipper's NFC-A header holds a UID of 4, 7 or 10 bytes (ISO/IEC 14443-3 single, double, triple
    /// size); the Type 2 export wrote any length (a 5-byte UID, or none when neither the card info nor
    /// pages 0–1 give one), which Flipper and our own import refuse. It now refuses it as the MIFARE
    /// Classic and DESFire exports do.
    @Test func flipperRefusesAUIDFlipperCannotHold() throws {
        var fiveBytes = ExportFixtures.interopDump(pages: ExportFixtures.interopPages)
        fiveBytes.cardInfo.uid = [0x04, 0x57, 0x01, 0xCA, 0x53]
        DumpBoundsTests.expectError("malformed_dump", "UID of 4, 7 or 10 bytes (the dump has 5)") { try fiveBytes.exportFlipperNFC() }
        var none = ExportFixtures.interopDump(pages: [ExportFixtures.page(4, "03000000")])
        none.cardInfo.uid = []
        DumpBoundsTests.expectError("malformed_dump", "UID of 4, 7 or 10 bytes (the dump has 0)") { try none.exportFlipperNFC() }
        // No UID in the card info, but pages 0 and 1 hold one (7 bytes): written.
        var fromPages = ExportFixtures.interopDump(pages: ExportFixtures.interopPages)
        fromPages.cardInfo.uid = []
        let text = try fromPages.exportFlipperNFC()
        #expect(text.contains("\nUID: 04 57 01 CA 53 28 80\n"))
        #expect(try TagDump.importFlipperNFC(text).cardInfo.uid == [0x04, 0x57, 0x01, 0xCA, 0x53, 0x28, 0x80])
    }

    @Test func duplicatePagesAreMalformed() {
        let dump = ExportFixtures.interopDump(pages: ExportFixtures.interopPages + [ExportFixtures.page(1, "00000000")])
        let error = #expect(throws: NFCError.self) { try dump.exportLibNFCMFD() }
        #expect(error?.code == "malformed_dump")
    }
}
