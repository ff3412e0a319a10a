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

    /// The first block of the sector holding the first block `dump` lacks: where an MFD of it is cut
    /// (nil when every block was read).
    static func cut(_ dump: TagDump) -> Int? {
        let present = Set(dump.blocks.map(\.number))
        guard let layout = ClassicLayout.forType(dump.cardInfo.type),
            let missing = (0..<layout.totalBlocks).first(where: { !present.contains($0) }),
            let sector = layout.sector(ofBlock: missing)
        else { return nil }
        return layout.firstBlock(ofSector: sector)
    }

    /// The fixture MFDs hold zeros for unread sectors (the convention before issue 10, still what
    /// `nfc-mfclassic` and the import understand). A dump read in full exports the fixture; a dump
    /// with unread sectors (1K, 4K, Plus 2K) is refused with `partial_dump`, and with `partial` gives
    /// the fixture's bytes up to the sector of the first block not read.
    @Test(arguments: keys)
    func mfdMatchesFixture(key: String) throws {
        let dump = try Self.dump("\(key).input.json")
        let fixture = try ExportFixtures.bytes("classic/\(key).mfd")
        guard let cut = Self.cut(dump) else {
            #expect(try dump.exportLibNFCMFD() == fixture)
            return
        }
        let error = #expect(throws: NFCError.self) { try dump.exportLibNFCMFD() }
        #expect(error?.code == "partial_dump")
        #expect(try dump.exportLibNFCMFD(partial: true) == Array(fixture.prefix(cut * 16)))
    }

    @Test(arguments: keys)
    func flipperMatchesFixture(key: String) throws {
        #expect(try Self.dump("\(key).input.json").exportFlipperNFC() == ExportFixtures.text("classic/\(key).nfc"))
    }

    /// Full size for a dump read in full (the fixture dumps with unread sectors filled in from the
    /// fixture MFD's zeros: a sector of zeros is what such a card would read).
    @Test(arguments: [("mini", 320), ("1k", 1024), ("plus2k", 2048), ("4k", 4096)])
    func mfdSizesAreWhatNfcMfclassicUses(key: String, size: Int) throws {
        var dump = try Self.dump("\(key).input.json")
        let present = Set(dump.blocks.map(\.number))
        dump.blocks += (0..<size / 16).filter { !present.contains($0) }.map { Block(number: $0, data: [UInt8](repeating: 0, count: 16)) }
        #expect(try dump.exportClassicMFD().count == size)
        #expect(try dump.exportProxmark3MFU().count == size)
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
        #expect(try imported.exportLibNFCMFD(partial: true) == original.exportLibNFCMFD(partial: true))
    }

    /// MFD cannot say "unknown": unread sectors and unknown parts come back as unread and unknown,
    /// except a known all-zero key (1K sector 9), which reads back as unknown.
    @Test(arguments: keys)
    /// (The fixture MFD is what the export wrote before issue 10 — unread sectors as zeros; the export
    /// now refuses those dumps or cuts them with `partial`, and both sides of the round trip agree.)
    func mfdRoundTrip(key: String) throws {
        let original = try Self.dump("\(key).input.json")
        let mfd = try ExportFixtures.bytes("classic/\(key).mfd")
        let imported = try DumpImporter.importDump(mfd)
        #expect(imported.blocks == original.blocks)
        var gaps = try ClassicTrailerGaps(facts: original.facts)
        if key == "1k" { gaps.keyA.insert(9) }
        #expect(try ClassicTrailerGaps(facts: imported.facts) == gaps)
        #expect(try imported.exportLibNFCMFD(partial: true) == original.exportLibNFCMFD(partial: true))
        if Self.cut(original) == nil { #expect(try imported.exportLibNFCMFD() == mfd) }
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
