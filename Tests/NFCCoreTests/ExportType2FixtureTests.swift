import Testing
@testable import NFCCore

/// Every page format, byte for byte, for every Type 2 product, against files written by an
/// independent implementation (Fixtures/make_type2_fixtures.py); then each file read back.
@Suite struct ExportType2FixtureTests {
    @Test(arguments: ExportFixtures.type2Keys)
    func flipperMatchesFixture(key: String) throws {
        let dump = try ExportFixtures.type2Dump(key)
        #expect(try dump.exportFlipperNFC() == ExportFixtures.text("type2/\(key).nfc"))
    }

    @Test(arguments: ExportFixtures.type2Keys)
    func proxmarkMatchesFixture(key: String) throws {
        let dump = try ExportFixtures.type2Dump(key)
        #expect(try dump.exportProxmark3MFU() == ExportFixtures.bytes("type2/\(key).pm3.bin"))
    }

    @Test(arguments: ExportFixtures.type2Keys)
    func mfdMatchesFixture(key: String) throws {
        let dump = try ExportFixtures.type2Dump(key)
        #expect(try dump.exportLibNFCMFD() == ExportFixtures.bytes("type2/\(key).mfd"))
    }

    @Test(arguments: [
        ("ultralight", 64), ("ul11", 80), ("ntag210", 80), ("ul21", 164), ("ntag212", 164), ("ntag203", 168),
        ("ulc", 176), ("ntag213", 180), ("ntag215", 540), ("ntag216", 924),
    ])
    func mfdSizesAreWhatNfcMfultralightUses(key: String, size: Int) throws {
        #expect(try ExportFixtures.type2Dump(key).exportLibNFCMFD().count == size)
    }

    /// Flipper file → dump: everything the file carries comes back; unknown counters were written as 0.
    @Test(arguments: ExportFixtures.type2Keys)
    func flipperRoundTrip(key: String) throws {
        let original = try ExportFixtures.type2Dump(key)
        let imported = try TagDump.importFlipperNFC(try original.exportFlipperNFC())
        let total = try #require(original.type2?.totalPages)
        let readable = try #require(Type2MemoryMap.forType(original.cardInfo.type)).readablePages
        let expected = TagDump(
            cardInfo: CardInfo(type: original.cardInfo.type, uid: original.cardInfo.uid, atqa: [0x00, 0x44], sak: 0x00,
                               product: original.cardInfo.product, version: original.cardInfo.version),
            pages: original.pages,
            ndefMessage: NFCForumTLV.extractMessage(from: original.pages),
            facts: [Fact(key: "Imported From", value: "Flipper Zero .nfc"), Fact(key: "Pages Total", value: "\(total)")],
            capabilities: original.pages.count < readable ? [.authenticationRequired, .partiallyReadable] : [.readable],
            family: .type2(Type2Extras(signature: original.type2?.signature, counters: (original.type2?.counters ?? []).map { $0 ?? 0 },
                                       tearing: (original.type2?.tearing ?? []).map { $0 ?? 0 }, totalPages: total))
        )
        #expect(imported == expected)
        // And the re-export is the same file.
        #expect(try imported.exportFlipperNFC() == original.exportFlipperNFC())
    }

    @Test(arguments: ExportFixtures.type2Keys)
    func proxmarkRoundTrip(key: String) throws {
        let original = try ExportFixtures.type2Dump(key)
        let imported = try TagDump.importProxmark3MFU(try original.exportProxmark3MFU())
        let expected = TagDump(
            cardInfo: CardInfo(type: original.cardInfo.type, uid: original.cardInfo.uid, atqa: [0x00, 0x44], sak: 0x00,
                               product: original.cardInfo.product, version: original.cardInfo.version),
            pages: original.pages,
            ndefMessage: NFCForumTLV.extractMessage(from: original.pages),
            facts: [Fact(key: "Imported From", value: "Proxmark3 MFU"),
                    Fact(key: "Pages Total", value: "\(original.pages.count)")],
            capabilities: [.readable],
            family: .type2(Type2Extras(signature: original.type2?.signature, counters: (original.type2?.counters ?? []).map { $0 ?? 0 },
                                       tearing: (original.type2?.tearing ?? []).map { $0 ?? 0 }, totalPages: original.type2?.totalPages))
        )
        #expect(imported == expected)
        #expect(try imported.exportProxmark3MFU() == original.exportProxmark3MFU())
    }

    /// MFD holds pages only: the size gives the type (NTAG210/212 read as Ultralight EV1, as
    /// nfc-mfultralight names them).
    @Test(arguments: ExportFixtures.type2Keys)
    func mfdRoundTrip(key: String) throws {
        let original = try ExportFixtures.type2Dump(key)
        let imported = try TagDump.importLibNFCMFD(try original.exportLibNFCMFD())
        let type: CardType =
            switch original.cardInfo.type {
            case .ntag210: .mifareUltralightEV1_MF0UL11
            case .ntag212: .mifareUltralightEV1_MF0UL21
            default: original.cardInfo.type
            }
        let expected = TagDump(
            cardInfo: CardInfo(type: type, uid: original.cardInfo.uid, atqa: [0x00, 0x44], sak: 0x00),
            pages: original.pages,
            ndefMessage: NFCForumTLV.extractMessage(from: original.pages),
            facts: [Fact(key: "Imported From", value: "libnfc MFD"), Fact(key: "Pages Total", value: "\(original.pages.count)")],
            capabilities: [.readable],
            family: .type2(Type2Extras(totalPages: original.type2?.totalPages))
        )
        #expect(imported == expected)
        #expect(try imported.exportLibNFCMFD() == original.exportLibNFCMFD())
    }

    /// JSON is lossless: export → import gives the same dump (`==` covers every field).
    @Test(arguments: ExportFixtures.type2Keys)
    func jsonRoundTrip(key: String) throws {
        let original = try ExportFixtures.type2Dump(key)
        #expect(try TagDump.importJSON(Array(original.exportJSON().utf8)) == original)
        #expect(try TagDump.importJSON(Array(original.exportJSON(prettyPrinted: false).utf8)) == original)
    }

    /// Auto-detection picks the right importer for each fixture file.
    @Test(arguments: ExportFixtures.type2Keys)
    func detectsEachFixtureFormat(key: String) throws {
        #expect(DumpImporter.detectFormat(try ExportFixtures.bytes("type2/\(key).input.json")) == .json)
        #expect(DumpImporter.detectFormat(try ExportFixtures.bytes("type2/\(key).nfc")) == .flipper)
        #expect(DumpImporter.detectFormat(try ExportFixtures.bytes("type2/\(key).pm3.bin")) == .pm3)
        #expect(DumpImporter.detectFormat(try ExportFixtures.bytes("type2/\(key).mfd")) == .mfd)
    }
}

/// JSON, hex text and binary exports of every Type 2 product against the generator's files.
@Suite struct ExportType2TextFixtureTests {
    @Test(arguments: ExportFixtures.type2Keys)
    func jsonMatchesFixture(key: String) throws {
        #expect(try ExportFixtures.type2Dump(key).exportJSON(prettyPrinted: false) == ExportFixtures.text("type2/\(key).json"))
    }

    @Test(arguments: ExportFixtures.type2Keys)
    func hexMatchesFixture(key: String) throws {
        #expect(try ExportFixtures.type2Dump(key).exportHex() == ExportFixtures.text("type2/\(key).txt"))
    }

    @Test(arguments: ExportFixtures.type2Keys)
    func binaryMatchesFixture(key: String) throws {
        #expect(try ExportFixtures.type2Dump(key).exportBinary() == ExportFixtures.bytes("type2/\(key).bin"))
    }
}
