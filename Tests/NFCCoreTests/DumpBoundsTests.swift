import Foundation
import Testing
@testable import NFCCore

/// Importers and exporters bound what they accept by the product's memory map and refuse partial
/// dumps in the fixed-offset formats (issue 10, "Bad input"); the fuzz harnesses' findings (fuzz/README.md).
@Suite struct DumpBoundsTests {
    static let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]

    static func expectError<T>(_ code: String, _ text: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                               _ body: () throws -> T) {
        let error = #expect(throws: NFCError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        if let text { #expect(error?.message.contains(text) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation) }
    }

    /// A dump of `type` holding `numbers` (4 bytes each).
    static func pageDump(_ type: CardType, _ numbers: some Sequence<Int>) -> TagDump {
        TagDump(cardInfo: CardInfo(type: type, uid: uid),
                pages: numbers.map { Page(number: $0, data: [UInt8(truncatingIfNeeded: $0), 1, 2, 3]) })
    }

    /// Page 2^62 (an arithmetic overflow trap in the MFD size before) and 2^31 (an 8 GiB image):
    /// every page exporter refuses them with `malformed_dump`, whatever the importer let through.
    @Test(arguments: [1 << 62, 1 << 31, Int.max, -1, 45, 510])
    func exportersBoundPageNumbers(number: Int) {
        for type in [CardType.ntag213, .mifareUltralight] {
            let dump = Self.pageDump(type, [0, number])
            // 45 and above lie outside an NTAG213; generic Ultralight allows 510 pages (0–509).
            if type == .mifareUltralight, number == 45 { continue }
            Self.expectError("malformed_dump", "page \(number) is outside") { try dump.exportLibNFCMFD(partial: true) }
            Self.expectError("malformed_dump", "page \(number) is outside") { try dump.exportProxmark3MFU(partial: true) }
            Self.expectError("malformed_dump", "page \(number) is outside") { try dump.exportFlipperNFC() }
            Self.expectError("malformed_dump", "page \(number) is outside") { try DumpImporter.checkBounds(dump) }
        }
    }

    @Test func importerRefusesPagesOutsideTheMemoryMap() {
        let json = Array(#"{"cardType":"NTAG213","uid":"04A1B2C3D4E5F6","pages":[{"number":45,"data":"00000000"}]}"#.utf8)
        Self.expectError("malformed_dump", "page 45 is outside NTAG213's memory (45 pages, 0–44)") {
            try DumpImporter.importDump(json)
        }
        // The JSON reader is public on its own too: it bounds what it reads the same way.
        Self.expectError("malformed_dump", "page 45 is outside NTAG213's memory (45 pages, 0–44)") { try TagDump.importJSON(json) }
        let far = Array(#"{"cardType":"MIFARE Ultralight","uid":"04A1B2C3D4E5F6","pages":[{"number":2147483648,"data":"00000000"}]}"#.utf8)
        Self.expectError("malformed_dump", "page 2147483648 is outside") { try TagDump.importJSON(far) }
        let classic = TagDump(cardInfo: CardInfo(type: .mifareMini, uid: [1, 2, 3, 4]),
                              blocks: [Block(number: 20, data: [UInt8](repeating: 0, count: 16))])
        Self.expectError("malformed_dump", "block 20 is outside the 20 blocks") { try DumpImporter.checkBounds(classic) }
        let felica = TagDump(cardInfo: CardInfo(type: .felicaLite, uid: [1]),
                             blocks: [Block(number: 70000, data: [0])])
        Self.expectError("malformed_dump", "block number 70000 is outside 0–65535") { try DumpImporter.checkBounds(felica) }
    }

    /// The JSON import bounds the counts of the families' additive keys where they enter, as it bounds
    /// page numbers: a Type 2 `pagesTotal` outside 1–510 (Flipper's `MF_ULTRALIGHT_MAX_PAGE_NUM`, above
    /// every product's memory) is no tag's (the ISO 15693 `iso15693` key: ExportISO15693FlipperTests).
    @Test(arguments: [-1, 0, 511, Int.max])
    func jsonImportBoundsPagesTotal(total: Int) {
        let json = Array(#"{"cardType":"NTAG213","uid":"04A1B2C3D4E5F6","pages":[{"number":0,"data":"04A1B2C3"}],"pagesTotal":\#(total)}"#.utf8)
        Self.expectError("malformed_dump", "pagesTotal \(total)") { try DumpImporter.importDump(json) }
    }

    /// A Proxmark3 MFU file holds at most 256 pages (`mfu_dump_t`).
    @Test func proxmark3ImportBoundsThePageCount() {
        var bytes = [UInt8](repeating: 0, count: 56 + 300 * 4)
        bytes[11] = 0xFF
        Self.expectError("malformed_dump", "pages; a Proxmark3 MFU file holds at most 256") {
            try TagDump.importProxmark3MFU(bytes)
        }
    }

    @Test func namedFormatMismatchSaysWhatTheFileIs() throws {
        let proxmarkJSON = Array(#"{"Created": "proxmark3", "FileType": "mfu", "blocks": {"0": "04A1B29F"}}"#.utf8)
        Self.expectError("malformed_dump", "this is a Proxmark3 JSON dump, not a Proxmark3 MFU binary") {
            try DumpImporter.importDump(proxmarkJSON, format: .pm3)
        }
        // Left to detection (or named pm3json), Proxmark3's JSON is read now (it was refused before its
        // importer existed); named json, it is not NFCBridge's JSON.
        #expect(try DumpImporter.importDump(proxmarkJSON).pages == [Page(number: 0, data: [0x04, 0xA1, 0xB2, 0x9F])])
        Self.expectError("malformed_dump", "this is a Proxmark3 JSON dump, not a JSON dump (json)") {
            try DumpImporter.importDump(proxmarkJSON, format: .json)
        }
        Self.expectError("malformed_dump", "this is a JSON dump, not a libnfc MFD file") {
            try DumpImporter.importDump(Array(#"{"cardType":"NTAG213","uid":"04"}"#.utf8), format: .mfd)
        }
        Self.expectError("malformed_dump", "this is binary data, not a Flipper .nfc file") {
            try DumpImporter.importDump([0x04, 0xA1, 0xB2, 0x9F, 0xFF, 0x00, 0x80, 0x01], format: .flipper)
        }
        Self.expectError("malformed_dump", "no dump file is larger") {
            try DumpImporter.importDump([UInt8](repeating: 0x30, count: DumpImporter.maxFileSize + 1))
        }
    }

    /// NTAG213 read up to AUTH0 = 10h: MFD and Proxmark3 refuse it, naming page 16; `partial` writes
    /// pages 0–15 only.
    @Test func partialType2DumpIsRefusedOrCut() throws {
        let dump = Self.pageDump(.ntag213, 0..<16)
        Self.expectError("partial_dump", "page 16 of 45 was not read") { try dump.exportLibNFCMFD() }
        Self.expectError("partial_dump", "page 16 of 45 was not read") { try dump.exportProxmark3MFU() }
        let mfd = try dump.exportLibNFCMFD(partial: true)
        #expect(mfd == dump.pages.flatMap(\.data))
        let pm3 = try dump.exportProxmark3MFU(partial: true)
        #expect(pm3.count == 56 + 64)
        #expect(pm3[11] == 15)
        #expect(Array(pm3[56...]) == mfd)
        // The full-size partial files of before are gone from the export set; Flipper keeps the dump.
        #expect(try dump.exportAll().map(\.fileName).allSatisfy { !$0.hasSuffix(".mfd") && !$0.hasSuffix("proxmark3.bin") })
        #expect(try dump.exportFlipperNFC().contains("Pages total: 45\nPages read: 16\n"))
    }

    /// The cut Proxmark3 file of that NTAG213 (its header holds the GET_VERSION answer) imports as
    /// what it is: an NTAG213 of 45 pages of which 16 were read, partially readable (issue 23: before,
    /// `Pages Total` 16 and no partial mark). A whole file stays whole.
    @Test func aCutProxmarkFileImportsAsPartial() throws {
        var dump = Self.pageDump(.ntag213, 0..<16)
        dump.cardInfo.version = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
        let imported = try DumpImporter.importDump(try dump.exportProxmark3MFU(partial: true))
        #expect(imported.cardInfo.type == .ntag213)
        #expect(imported.pages.count == 16)
        #expect(imported.fact("Pages Total") == "45")
        #expect(imported.fact("Pages Read") == "16 of 45")
        #expect(imported.capabilities == [.readable, .partiallyReadable])
        let whole = Self.pageDump(.ntag213, 0..<45)
        let wholeImport = try TagDump.importProxmark3MFU(try whole.exportProxmark3MFU())
        #expect(wholeImport.fact("Pages Read") == nil)
        #expect(wholeImport.capabilities == [.readable])
    }

    /// The cut MFD of an NTAG213 (pages 0–15, 64 bytes: a whole MIFARE Ultralight's size) is no
    /// complete "MIFARE Ultralight" 16/16 (issue 23): its CC (page 3, E1 10 12 00) names a 144-byte data
    /// area, which no Ultralight has, so the import is marked partial and says what the file is the start
    /// of. A real Ultralight image (CC 06h) stays whole.
    @Test func aCutNTAG213MFDIsNoWholeUltralight() throws {
        var pages = (0..<16).map { [UInt8(truncatingIfNeeded: $0), 1, 2, 3] }
        pages[0] = [0x04, 0xA1, 0xB2, 0x04 ^ 0xA1 ^ 0xB2 ^ 0x88]
        pages[1] = [0xC3, 0xD4, 0xE5, 0xF6]
        pages[2] = [0xC3 ^ 0xD4 ^ 0xE5 ^ 0xF6, 0x48, 0x00, 0x00]
        pages[3] = [0xE1, 0x10, 0x12, 0x00]
        let cut = pages.flatMap { $0 }
        #expect(cut.count == 64)
        for imported in [try TagDump.importLibNFCMFD(cut), try DumpImporter.importDump(cut)] {
            #expect(imported.capabilities == [.readable, .partiallyReadable])
            #expect(imported.fact("Pages Total") == nil, "not 16 of 16")
            #expect(imported.fact("Pages Read")?.contains("144-byte data area (MIFARE Ultralight C, NTAG203, NTAG213)") == true,
                    "\(imported.fact("Pages Read") ?? "")")
        }
        pages[3] = [0xE1, 0x10, 0x06, 0x00]
        let whole = try TagDump.importLibNFCMFD(pages.flatMap { $0 })
        #expect(whole.cardInfo.type == .mifareUltralight)
        #expect(whole.fact("Pages Total") == "16")
        #expect(whole.capabilities == [.readable])
    }

    /// An NTAG215 image cut where AUTH0 stopped the read (review stop 40): at page 45 it has an
    /// NTAG213's size, at page 41 an MF0UL21's, at page 16 an Ultralight's, and was read back as that
    /// whole product. Its CC (E1 10 3E 00: NTAG215's factory 496-byte data area, not its 504 bytes of
    /// user memory) names the product: a cut NTAG215, partial, whatever the cut.
    @Test(arguments: [45, 41, 16])
    func aCutNTAG215ImageWithoutVersionIsACutNTAG215(pageCount: Int) throws {
        var pages = (0..<pageCount).map { [UInt8(truncatingIfNeeded: $0), 1, 2, 3] }
        pages[0] = [0x04, 0xA1, 0xB2, 0x04 ^ 0xA1 ^ 0xB2 ^ 0x88]
        pages[1] = [0xC3, 0xD4, 0xE5, 0xF7]
        pages[2] = [0xC3 ^ 0xD4 ^ 0xE5 ^ 0xF7, 0x48, 0x00, 0x00]
        pages[3] = [0xE1, 0x10, 0x3E, 0x00]
        for imported in [try TagDump.importLibNFCMFD(pages.flatMap { $0 }), try DumpImporter.importDump(pages.flatMap { $0 })] {
            #expect(imported.cardInfo.type == .ntag215)
            #expect(imported.capabilities == [.readable, .partiallyReadable])
            #expect(imported.fact("Pages Total") == "135")
            #expect(imported.fact("Pages Read") == "\(pageCount) of 135")
        }
    }

    /// Fields every export writes at a fixed size are refused at import when they have another (review
    /// stop 40: a 4-byte version, a 2-byte signature and a 3-byte ATQA were accepted, and the Flipper
    /// export then wrote zeros in their place; a counter above 24 bits wrapped in the Proxmark3 file), and
    /// a page twice is refused where it enters, not by every export after. Out-of-range numbers are
    /// named, not "not valid JSON".
    @Test(arguments: [
        (#""version":"00040402""#, "version '00040402' is not a GET_VERSION answer"),
        (#""signature":"0011""#, "signature '0011' is not a READ_SIG answer"),
        (#""atqa":"004400""#, "atqa '004400' is not 2 bytes"),
        (#""counters":[1,2,3,4,5]"#, "counters has 5 entries, not 3"),
        (#""tearing":["BD"]"#, "tearing has 1 entries, not 3"),
        (#""counters":[16777216,null,70000]"#, "counters.0 16777216 is not a 24-bit counter value"),
        (#""counters":[4294967296,null,null]"#, "counters.0 4294967296 is not a 24-bit counter value"),
        (#""counters":[null,-1,null]"#, "counters.1 -1 is not a 24-bit counter value"),
        (#""pages":[{"number":5,"data":"00000000"},{"number":5,"data":"01000000"}]"#, "page 5 appears twice"),
    ])
    func aJSONFieldOfTheWrongSizeIsRefused(field: String, message: String) {
        let json = #"{"cardType":"NTAG215","uid":"04A1B2C3D4E5F6","# + field + "}"
        Self.expectError("malformed_dump", message) { try TagDump.importJSON(Array(json.utf8)) }
    }

    /// A Flipper counter above 24 bits is refused too; the largest is read.
    @Test func aFlipperCounterAbove24BitsIsRefused() throws {
        let fixture = try ExportFixtures.bytes("type2/ntag215.nfc")
        let text = String(decoding: fixture, as: UTF8.self)
        #expect(text.contains("Counter 0: 0\n"))
        let wide = text.replacingOccurrences(of: "Counter 0: 0\n", with: "Counter 0: 16777216\n")
        Self.expectError("malformed_dump", "Counter 0 '16777216' is not a 24-bit counter value") {
            try DumpImporter.importDump(Array(wide.utf8))
        }
        let largest = text.replacingOccurrences(of: "Counter 0: 0\n", with: "Counter 0: 16777215\n")
        #expect(try DumpImporter.importDump(Array(largest.utf8)).type2?.counters.first == 16_777_215)
    }

    /// A gap: the files stop before it (nothing after an unread page), and Flipper's `Pages read` ends there.
    @Test func gapEndsWhatIsWritten() throws {
        let dump = Self.pageDump(.ntag213, Array(0..<10) + Array(12..<45))
        Self.expectError("partial_dump", "page 10 of 45 was not read") { try dump.exportLibNFCMFD() }
        #expect(try dump.exportLibNFCMFD(partial: true).count == 40)
        #expect(try dump.exportFlipperNFC().contains("Pages read: 10\n"))
        // Page 0 not read: nothing to write even with partial.
        Self.expectError("partial_dump", "page 0 is missing") { try Self.pageDump(.ntag213, 1..<45).exportLibNFCMFD(partial: true) }
        // A full read is not partial (Ultralight C: the key pages 44–47 are never readable).
        #expect(try Self.pageDump(.ntag213, 0..<45).exportLibNFCMFD().count == 180)
        #expect(try Self.pageDump(.mifareUltralightC, 0..<44).exportLibNFCMFD().count == 176)
    }
}
