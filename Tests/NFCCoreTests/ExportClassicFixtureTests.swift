import Testing
@testable import NFCCore

/// MIFARE Classic MFD and Flipper `.nfc`, byte for byte, for every Classic product, against files
/// written by an independent implementation (Fixtures/make_classic_fixtures.py); then each file read
/// back and compared with the dump the generator says it holds.
@Suite struct ExportClassicFixtureTests {
    /// The products with a full set of fixtures in Fixtures/classic.
    static let keys = ["mini", "1k", "plus2k", "4k"]

    static func dump(_ path: String) throws -> TagDump {
        try TagDump.importJSON(try ExportFixtures.bytes("classic/\(path)"))
    }

    @Test(arguments: keys)
    func mfdMatchesFixture(key: String) throws {
        #expect(try Self.dump("\(key).input.json").exportLibNFCMFD() == ExportFixtures.bytes("classic/\(key).mfd"))
    }

    @Test(arguments: keys)
    func flipperMatchesFixture(key: String) throws {
        #expect(try Self.dump("\(key).input.json").exportFlipperNFC() == ExportFixtures.text("classic/\(key).nfc"))
    }

    @Test(arguments: [("mini", 320), ("1k", 1024), ("plus2k", 2048), ("4k", 4096)])
    func mfdSizesAreWhatNfcMfclassicUses(key: String, size: Int) throws {
        #expect(try Self.dump("\(key).input.json").exportClassicMFD().count == size)
    }

    @Test(arguments: keys)
    func mfdImportGivesTheExpectedDump(key: String) throws {
        let imported = try TagDump.importClassicMFD(try ExportFixtures.bytes("classic/\(key).mfd"))
        #expect(imported == (try Self.dump("\(key).mfd.import.json")))
    }

    @Test(arguments: keys)
    func flipperImportGivesTheExpectedDump(key: String) throws {
        let imported = try TagDump.importFlipperClassicNFC(try ExportFixtures.text("classic/\(key).nfc"))
        #expect(imported == (try Self.dump("\(key).nfc.import.json")))
    }

    /// Flipper keeps everything a dump knows and marks the rest: export → import gives the same blocks,
    /// card data and gaps, and the re-export is the same file.
    @Test(arguments: keys)
    func flipperRoundTrip(key: String) throws {
        let original = try Self.dump("\(key).input.json")
        let text = try original.exportFlipperNFC()
        let imported = try DumpImporter.importDump(Array(text.utf8))
        #expect(imported.blocks == original.blocks)
        #expect(imported.cardInfo.uid == original.cardInfo.uid)
        #expect(imported.cardInfo.type == original.cardInfo.type)
        #expect(try ClassicTrailerGaps(facts: imported.facts) == ClassicTrailerGaps(facts: original.facts))
        #expect(imported.capabilities == original.capabilities)
        #expect(try imported.exportFlipperNFC() == text)
        #expect(try imported.exportLibNFCMFD() == original.exportLibNFCMFD())
    }

    /// MFD cannot say "unknown": unread sectors and unknown parts come back as unread and unknown,
    /// except a known all-zero key (1K sector 9), which reads back as unknown.
    @Test(arguments: keys)
    func mfdRoundTrip(key: String) throws {
        let original = try Self.dump("\(key).input.json")
        let mfd = try original.exportLibNFCMFD()
        let imported = try DumpImporter.importDump(mfd)
        #expect(imported.blocks == original.blocks)
        var gaps = try ClassicTrailerGaps(facts: original.facts)
        if key == "1k" { gaps.keyA.insert(9) }
        #expect(try ClassicTrailerGaps(facts: imported.facts) == gaps)
        #expect(try imported.exportLibNFCMFD() == mfd)
    }

    /// Import-only files: what nfc-mfclassic writes, and older Flipper files.
    @Test(arguments: ["nfc-mfclassic-1k.mfd", "legacy-v2-1k.nfc", "legacy-v3-1k.nfc"])
    func importOnlyFiles(file: String) throws {
        let imported = try DumpImporter.importDump(try ExportFixtures.bytes("classic/\(file)"))
        #expect(imported == (try Self.dump("\(file).import.json")))
    }

    @Test func nfcMfclassicFileKnowsKeyANotKeyB() throws {
        let imported = try TagDump.importClassicMFD(try ExportFixtures.bytes("classic/nfc-mfclassic-1k.mfd"))
        #expect(imported.cardInfo.type == .mifareClassic1K)
        #expect(imported.cardInfo.uid == [0x11, 0x22, 0x33, 0x44])
        #expect(imported.blocks.count == 64)
        #expect(imported.fact("Sectors Without Key B") == "0-15")
        #expect(imported.fact("Sectors Without Key A") == nil)
        // In Flipper's file the unknown key B is `??`, key A and access bits are kept.
        let text = try imported.exportFlipperNFC()
        #expect(text.contains("Block 7: A0 A1 A2 A3 A4 A5 FF 07 80 69 ?? ?? ?? ?? ?? ??\n"))
    }

    @Test func flipperVersion2AtqaIsLSBFirst() throws {
        let imported = try TagDump.importFlipperClassicNFC(try ExportFixtures.text("classic/legacy-v2-1k.nfc"))
        #expect(imported.cardInfo.atqa == [0x00, 0x04])
        #expect(!imported.blocks.contains { (4...7).contains($0.number) })
    }

    @Test(arguments: keys)
    func detectsEachFixtureFormat(key: String) throws {
        #expect(DumpImporter.detectFormat(try ExportFixtures.bytes("classic/\(key).mfd")) == .mfd)
        #expect(DumpImporter.detectFormat(try ExportFixtures.bytes("classic/\(key).nfc")) == .flipper)
        #expect(DumpImporter.detectFormat(try ExportFixtures.bytes("classic/\(key).input.json")) == .json)
    }
}
