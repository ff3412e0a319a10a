import Testing
@testable import NFCCore

/// Importing files in the older layouts other tools write: legacy Flipper files, Proxmark3's old
/// and plain layouts, amiibo images, and format detection.
@Suite struct ImportFormatTests {
    /// File Version 3 / data format 1 (Flipper's unit-test Ntag215.nfc layout): the product is the
    /// Device type, there is no "Pages read", so every page counts as read.
    @Test func flipperVersion3DataFormat1() throws {
        let dump = try TagDump.importFlipperNFC(try ExportFixtures.text("type2/legacy-v3-ntag215.nfc"))
        #expect(dump.cardInfo.type == .ntag215)
        #expect(dump.cardInfo.uid == [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81])
        #expect(dump.cardInfo.atqa == [0x00, 0x44])
        #expect(dump.cardInfo.version == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
        #expect(dump.pages.count == 135)
        #expect(dump.pages[3].data == [0xF1, 0x10, 0xFF, 0xEE])
        #expect(dump.type2?.counters == [0, 0, 95])
        #expect(dump.type2?.signature?.hexString == "4221E46C796A815EEA0D936D85EE4B0C2A00D577F1C567F36375F8EB86485E6B")
        #expect(dump.capabilities == [.readable])
        // Re-exported as a current file.
        let current = try dump.exportFlipperNFC()
        #expect(current.contains("Version: 4\nDevice type: NTAG/Ultralight\n"))
        #expect(current.contains("NTAG/Ultralight type: NTAG215\n"))
        #expect(current.contains("Counter 2: 95\n"))
        #expect(current.contains("Pages read: 135\n"))
    }

    /// Version 2: ATQA stored LSB first; no data-format line; the UID line disagrees with pages 0–1,
    /// and the pages win.
    @Test func flipperVersion2WithoutDataFormat() throws {
        let dump = try TagDump.importFlipperNFC(try ExportFixtures.text("type2/legacy-v2-ul11.nfc"))
        #expect(dump.cardInfo.type == .mifareUltralightEV1_MF0UL11)
        #expect(dump.cardInfo.atqa == [0x00, 0x44])
        #expect(dump.cardInfo.uid == [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        #expect(dump.pages.count == 20)
        #expect(dump.type2?.signature == nil)
        #expect(dump.type2?.tearing == [0xBD, 0xBD, 0xBD])
    }

    /// Pages from "Pages read" on are unread (an AUTH0 boundary).
    @Test func flipperPartialRead() throws {
        var dump = try ExportFixtures.type2Dump("ntag215")
        dump.pages = Array(dump.pages.prefix(16))
        let text = try dump.exportFlipperNFC()
        #expect(text.contains("Pages total: 135\nPages read: 16\n"))
        #expect(text.contains("Page 16: 00 00 00 00\n"))
        let imported = try TagDump.importFlipperNFC(text)
        #expect(imported.pages == dump.pages)
        #expect(imported.capabilities == [.authenticationRequired, .partiallyReadable])
    }

    /// NTAG210/212 are written with Flipper's names for them and read back by their GET_VERSION.
    @Test(arguments: [("ntag210", "Mifare Ultralight 11", CardType.ntag210), ("ntag212", "Mifare Ultralight 21", .ntag212)])
    func ntag210And212UseFlipperNames(key: String, name: String, type: CardType) throws {
        let text = try ExportFixtures.type2Dump(key).exportFlipperNFC()
        #expect(text.contains("NTAG/Ultralight type: \(name)\n"))
        #expect(try TagDump.importFlipperNFC(text).cardInfo.type == type)
    }

    /// Flipper's Ultralight EV1 names turn back into NTAG210/212 only with an NTAG GET_VERSION (byte 2 = 04h).
    @Test func flipperAliasesTurnBackByTheVersionProductType() {
        let ntag: [UInt8] = [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0B, 0x03]
        let ultralight: [UInt8] = [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03]
        #expect(Type2FileIdentity.refineAlias(.mifareUltralightEV1_MF0UL11, version: ntag) == .ntag210)
        #expect(Type2FileIdentity.refineAlias(.mifareUltralightEV1_MF0UL21, version: ntag) == .ntag212)
        #expect(Type2FileIdentity.refineAlias(.mifareUltralightEV1_MF0UL11, version: ultralight) == .mifareUltralightEV1_MF0UL11)
        #expect(Type2FileIdentity.refineAlias(.mifareUltralightEV1_MF0UL21, version: nil) == .mifareUltralightEV1_MF0UL21)
        #expect(Type2FileIdentity.refineAlias(.ntag213, version: ntag) == .ntag213)
        #expect(Type2FileIdentity.refineAlias(.mifareUltralight, version: ntag) == .mifareUltralight)
    }

    @Test func flipperNTAGI2CKeepsTheProduct() throws {
        let dump = TagDump(
            cardInfo: CardInfo(type: .mifareUltralight, uid: [0x04, 1, 2, 3, 4, 5, 6], product: Product(Type2Product.ntagI2CPlus1K)),
            pages: (0..<236).map { Page(number: $0, data: [UInt8($0 & 0xFF), 0, 0, 0]) }, family: .type2(Type2Extras(totalPages: 236)))
        let text = try dump.exportFlipperNFC()
        #expect(text.contains("NTAG/Ultralight type: NTAG I2C Plus 1K\n"))
        let imported = try TagDump.importFlipperNFC(text)
        #expect(imported.cardInfo.type == .mifareUltralight)
        #expect(imported.cardInfo.product?.name == "NTAG I2C plus 1K")
        #expect(imported.pages.count == 236)
    }

    @Test func flipperFilesOfOtherProtocolsAreUnsupported() {
        let classic = "Filetype: Flipper NFC device\nVersion: 4\nDevice type: Mifare Classic\nUID: BA E2 7C 9D\n"
        DumpBoundsTests.expectError("unsupported", "device type 'Mifare Classic'") { try TagDump.importFlipperNFC(classic) }
        #expect(throws: NFCError.unsupportedOperation("Unsupported Flipper NFC file format")) {
            try TagDump.importFlipperNFC("Filetype: Flipper SubGhz Key File\nVersion: 1\n")
        }
    }

    /// A Flipper file of a device type no family imports: the message names it (at most 40 characters)
    /// and the types imported; the code stays `unsupported`.
    @Test func flipperFileOfAnUnknownDeviceTypeNamesIt() {
        let felica = "Filetype: Flipper NFC device\nVersion: 4\nDevice type: FeliCa\nUID: 01 02 03 04 05 06 07 08\n"
        DumpBoundsTests.expectError("unsupported", "device type 'FeliCa' is not imported") {
            try DumpImporter.importDump(Array(felica.utf8))
        }
        DumpBoundsTests.expectError("unsupported", "NTAG/Ultralight") { try DumpImporter.importDump(Array(felica.utf8)) }
        let long = String(repeating: "X", count: 60)
        let error = #expect(throws: NFCError.self) {
            try DumpImporter.importDump(Array("Filetype: Flipper NFC device\nVersion: 4\nDevice type: \(long)\n".utf8))
        }
        #expect(error?.message.contains("'\(String(repeating: "X", count: 40))'") == true, "\(error?.message ?? "")")
    }

    /// A Proxmark3 Classic key file (`hf-mf-<UID>-key.bin`, 192 bytes for a 1K) and the project's own
    /// `pm3key` export are refused as key files, not read as a 48-page Ultralight C.
    @Test func proxmarkClassicKeyFilesAreRefused() throws {
        let keys = (0..<32).flatMap { [UInt8](repeating: UInt8($0), count: 6) }
        #expect(keys.count == 192)
        DumpBoundsTests.expectError("malformed_dump", "Proxmark3 MIFARE Classic key file (16 sectors × keys A and B)") {
            try DumpImporter.importDump(keys, fileName: "hf-mf-DEADBEEF-key.bin")
        }
        let mfd = (0..<64).flatMap { block -> [UInt8] in
            block == 0 ? [0xDE, 0xAD, 0xBE, 0xEF, 0x22, 0x08, 0x04, 0x00] + [UInt8](repeating: 0x62, count: 8)
                : block % 4 == 3 ? [UInt8](repeating: 0xFF, count: 6) + [0xFF, 0x07, 0x80, 0x69] + [UInt8](repeating: 0xFF, count: 6)
                : [UInt8](repeating: 0, count: 16)
        }
        let export = try TagDump.importClassicMFD(mfd).exportProxmark3ClassicKeys()
        #expect(export.count == 192)
        // Without a name (standard input) or with another one the content decides: no UID check bytes anywhere.
        DumpBoundsTests.expectError("malformed_dump", "key file (16 sectors × keys A and B), which holds no card data") {
            try DumpImporter.importDump(export)
        }
        DumpBoundsTests.expectError("malformed_dump", "key file (16 sectors") {
            try DumpImporter.importDump(export, fileName: "keys.bin")
        }
        DumpBoundsTests.expectError("malformed_dump", "import the card's dump") {
            try DumpImporter.importDump(export, fileName: "hf-mf-DEADBEEF-key.bin")
        }
    }

    @Test(arguments: [
        ("Page 3: 01 02 03", "Page 3"),  // short page
        ("Pages read: 99", "Pages read"),  // more read than total
        ("Page 44: 00 00 00 00", "missing Page 44"),  // line removed below
    ])
    func flipperMalformedFilesAreRefused(edit: String, expectedInMessage: String) throws {
        var lines = try ExportFixtures.text("type2/ntag213.nfc").split(separator: "\n").map(String.init)
        let key = String(edit.prefix { $0 != ":" })
        let index = try #require(lines.firstIndex { $0.hasPrefix(key + ":") })
        if expectedInMessage.hasPrefix("missing") { lines.remove(at: index) } else { lines[index] = edit }
        let error = #expect(throws: NFCError.self) { try TagDump.importFlipperNFC(lines.joined(separator: "\n")) }
        #expect(error?.code == "malformed_dump")
        #expect(error?.message.contains(expectedInMessage) == true)
    }

    /// Proxmark3's old layout (48-byte header): version, tearing, PACK and signature; PACK goes back
    /// into the PACK page.
    @Test func proxmarkOldLayout() throws {
        let bytes = try ExportFixtures.bytes("type2/pm3-old-ntag213.bin")
        #expect(ProxmarkMFULayout.detect(bytes) == .old)
        let dump = try TagDump.importProxmark3MFU(bytes)
        #expect(dump.cardInfo.type == .ntag213)
        #expect(dump.cardInfo.uid == [0x04, 0x58, 0x69, 0xD2, 0x9C, 0x39, 0x80])
        #expect(dump.pages.count == 45)
        #expect(dump.type2?.tearing == [0x00, 0x00, 0xBD])
        #expect(dump.type2?.signature == Array(0..<32))
        #expect(dump.pages[44].data == [0x80, 0x80, 0x00, 0x00])
        #expect(DumpImporter.detectFormat(bytes) == .pm3)
    }

    /// Upstream [BUG]: a 64-byte plain Ultralight dump was read as "56-byte header + 2 pages".
    /// Proxmark3's BCC check finds the UID at offset 0.
    @Test func plainSixtyFourByteUltralightIsNotAHeader() throws {
        let bytes = try ExportFixtures.bytes("type2/plain-ultralight-64.bin")
        #expect(ProxmarkMFULayout.detect(bytes) == .plain)
        let dump = try TagDump.importProxmark3MFU(bytes)
        #expect(dump.pages.count == 16)
        #expect(dump.cardInfo.type == .mifareUltralight)
        #expect(dump.cardInfo.uid == [0x04, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC])
        #expect(dump.cardInfo.version == nil)
        #expect(try DumpImporter.importDump(bytes).pages.count == 16)
    }

    /// Amiibo images: 540 (all pages), 532 (no PWD/PACK), 572 (+ signature).
    @Test(arguments: [("amiibo-540.bin", 135, false), ("amiibo-532.bin", 133, false), ("amiibo-572.bin", 135, true)])
    func amiiboImages(file: String, pages: Int, hasSignature: Bool) throws {
        let bytes = try ExportFixtures.bytes("type2/\(file)")
        for dump in [try TagDump.importProxmark3MFU(bytes), try TagDump.importLibNFCMFD(bytes), try DumpImporter.importDump(bytes)] {
            #expect(dump.cardInfo.type == .ntag215)
            #expect(dump.cardInfo.uid == [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81])
            #expect(dump.pages.count == pages)
            #expect((dump.type2?.signature != nil) == hasSignature)
            #expect(dump.type2?.totalPages == 135)
        }
        // Exported back as a full NTAG215 image; the 532-byte image lacks PWD and PACK (pages 133–134),
        // which an MFD would hold as zeros: refused as partial, or its 133 pages with `partial`.
        if pages == 135 {
            #expect(try DumpImporter.importDump(bytes).exportLibNFCMFD().count == 540)
        } else {
            let error = #expect(throws: NFCError.self) { try DumpImporter.importDump(bytes).exportLibNFCMFD() }
            #expect(error?.code == "partial_dump")
            #expect(try DumpImporter.importDump(bytes).exportLibNFCMFD(partial: true) == bytes)
        }
    }

    @Test func mfdOfAnotherSizeIsRefused() {
        let error = #expect(throws: NFCError.self) { try TagDump.importLibNFCMFD([UInt8](repeating: 0, count: 1024)) }
        #expect(error?.code == "malformed_dump")
    }

    @Test func proxmarkWithoutWholePagesIsRefused() {
        let error = #expect(throws: NFCError.self) { try TagDump.importProxmark3MFU([1, 2, 3, 4, 5]) }
        #expect(error?.code == "malformed_dump")
    }

    @Test func unrecognisedBytesAreRefused() {
        #expect(DumpImporter.detectFormat(Array("hello".utf8)) == nil)
        let error = #expect(throws: NFCError.self) { try DumpImporter.importDump(Array("hello".utf8)) }
        #expect(error?.code == "malformed_dump")
    }

    @Test func jsonImportErrors() {
        for json in ["{", #"{"cardType":"Nope","uid":"00"}"#, #"{"cardType":"NTAG213","uid":"XY"}"#,
                     #"{"cardType":"NTAG213","uid":"00","capabilities":["Flying"]}"#]
        {
            let error = #expect(throws: NFCError.self) { try TagDump.importJSON(Array(json.utf8)) }
            #expect(error?.code == "malformed_dump")
        }
    }

    /// Imports read the NDEF message out of the TLV area and type the tag by its GET_VERSION answer,
    /// as a dump of the tag would.
    @Test func importsFindNDEFAndTheExactProduct() throws {
        let pages = ExportFixtures.interopPages + [
            ExportFixtures.page(3, "E1101200"), ExportFixtures.page(4, "0309D101"), ExportFixtures.page(5, "05540265"),
            ExportFixtures.page(6, "6E4869FE"),
        ]
        var dump = ExportFixtures.filled(ExportFixtures.interopDump(pages: pages))
        dump.cardInfo.version = [0x00, 0x04, 0x04, 0x04, 0x01, 0x00, 0x0F, 0x03]
        let imports = [
            try TagDump.importFlipperNFC(try dump.exportFlipperNFC()),
            try TagDump.importProxmark3MFU(try dump.exportProxmark3MFU()),
            try TagDump.importLibNFCMFD(try dump.exportLibNFCMFD()),
        ]
        for imported in imports {
            #expect(imported.ndefMessage == [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69])
            #expect(imported.summary.technicalSummary.hasSuffix(" · 1 NDEF records"))
            #expect(imported.cardInfo.type == .ntag213)
        }
        #expect(imports[0].cardInfo.product?.name == "NTAG213F")
        #expect(imports[1].cardInfo.product?.name == "NTAG213F")
        #expect(imports[2].cardInfo.product == nil)
    }
}
