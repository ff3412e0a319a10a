import Foundation
import PN532Sim
import Testing
@testable import NFCCore

/// MIFARE Classic exports and imports: what is unknown stays unknown (`??` in Flipper files, zeros in
/// MFD), the dump's gap facts, errors on bad dumps and files, and routing through the shared entry
/// points (`exportLibNFCMFD`, `exportFlipperNFC`, `DumpImporter`, `exportAll`).
@Suite struct ExportClassicTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
    static let secretKey: [UInt8] = [0x13, 0x57, 0x9B, 0xDF, 0x24, 0x68]
    /// Trailer condition 011 (MF1S50yyX Table 7): key B not readable, so it is a real key.
    static let keyBNotReadable: [UInt8] = [0x7F, 0x07, 0x88, 0x69]

    /// A 1K whose sector 2 key A and sector 5 key B are in no dictionary, and whose sector 9 opens
    /// with no key at all.
    static func partlyKnownCard() throws -> VirtualClassicTag {
        let tag = try VirtualClassicTag(model: .classic1K, uid: uid)
        let factory = VirtualClassicTag.factoryKey
        tag.setBlock(8, Array(0x10..<0x20))
        tag.setKeys(sector: 2, a: secretKey, b: factory, accessBits: keyBNotReadable)
        tag.setKeys(sector: 5, a: factory, b: secretKey, accessBits: keyBNotReadable)
        tag.setKeys(sector: 9, a: secretKey, b: secretKey, accessBits: keyBNotReadable)
        return tag
    }

    static func dumpOf(_ tag: VirtualClassicTag) async throws -> TagDump {
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        return try await TagDumper.dump(info: info, transport: transport)
    }

    @Test func classicDumpNamesTheUnknownKeys() async throws {
        let dump = try await Self.dumpOf(try Self.partlyKnownCard())
        #expect(dump.fact("Sectors Without Key A") == "2")
        #expect(dump.fact("Sectors Without Key B") == "5")
        #expect(dump.fact("Sectors Without Access Bits") == nil)
        #expect(!dump.blocks.contains { (36...39).contains($0.number) })
        // The trailer holds zeros where the key is unknown.
        #expect(dump.blocks.first { $0.number == 11 }?.data == [0, 0, 0, 0, 0, 0] + Self.keyBNotReadable + VirtualClassicTag.factoryKey)
    }

    @Test func flipperMarksUnknownBytesOfARealDump() async throws {
        let dump = try await Self.dumpOf(try Self.partlyKnownCard())
        let text = try dump.exportFlipperNFC()
        #expect(text.contains("Block 8: 10 11 12 13 14 15 16 17 18 19 1A 1B 1C 1D 1E 1F\n"))
        #expect(text.contains("Block 11: ?? ?? ?? ?? ?? ?? 7F 07 88 69 FF FF FF FF FF FF\n"))
        #expect(text.contains("Block 23: FF FF FF FF FF FF 7F 07 88 69 ?? ?? ?? ?? ?? ??\n"))
        #expect(text.contains("Block 36: " + Array(repeating: "??", count: 16).joined(separator: " ") + "\n"))
        #expect(text.contains("Block 39: " + Array(repeating: "??", count: 16).joined(separator: " ") + "\n"))
        let imported = try TagDump.importFlipperClassicNFC(text)
        #expect(imported.blocks == dump.blocks)
        #expect(try ClassicTrailerGaps(facts: imported.facts) == ClassicTrailerGaps(keyA: [2], keyB: [5]))
    }

    /// Sector 9 opened with no key: the MFD is refused naming its first block (issue 10: zeros written
    /// back lock the sector), unless `partial`, which stops before it; unknown keys stay zeros.
    @Test func mfdRefusesUnreadSectorsAndZeroFillsUnknownKeys() async throws {
        let dump = try await Self.dumpOf(try Self.partlyKnownCard())
        let error = #expect(throws: NFCError.self) { try dump.exportLibNFCMFD() }
        #expect(error?.code == "partial_dump")
        #expect(error?.message.contains("block 36 (sector 9) of 64 was not read") == true, "\(error?.message ?? "")")
        let mfd = try dump.exportLibNFCMFD(partial: true)
        #expect(mfd.count == 9 * 4 * 16)
        #expect(Array(mfd[(11 * 16)..<(11 * 16 + 6)]) == [0, 0, 0, 0, 0, 0])
        // Filled to the full size with the zeros an MFD writer without the refusal put there, the
        // import reads the zero sector as unread.
        let imported = try TagDump.importClassicMFD(mfd + [UInt8](repeating: 0, count: 1024 - mfd.count))
        #expect(imported.blocks == dump.blocks.filter { $0.number < 36 })
        #expect(try ClassicTrailerGaps(facts: imported.facts) == ClassicTrailerGaps(keyA: [2], keyB: [5]))
        #expect(imported.fact("Blocks Read") == "36 of 64")
        #expect(imported.capabilities == [.readable, .authenticationRequired, .partiallyReadable])
    }

    /// The exporters write zeros / `??` for unknown parts even when the dump holds other bytes there.
    @Test func unknownPartsAreNotWrittenEvenWhenTheDumpHoldsBytes() throws {
        let trailer: [UInt8] = [1, 2, 3, 4, 5, 6] + [0xFF, 0x07, 0x80, 0x69] + [7, 8, 9, 10, 11, 12]
        // Sector 0 in full (the MFD refuses a sector not read), the other sectors not read.
        let dataBlocks = (0..<3).map { Block(number: $0, data: [UInt8](repeating: UInt8($0 + 1), count: 16)) }
        let dump = TagDump(
            cardInfo: CardInfo(type: .mifareMini, uid: Self.uid), blocks: dataBlocks + [Block(number: 3, data: trailer)],
            facts: ClassicTrailerGaps(keyB: [0]).facts, family: .classic(ClassicTrailerGaps(keyB: [0])))
        #expect(Array(try dump.exportClassicMFD(partial: true)[48..<64]) == [1, 2, 3, 4, 5, 6, 0xFF, 0x07, 0x80, 0x69, 0, 0, 0, 0, 0, 0])
        #expect(try dump.exportFlipperNFC().contains("Block 3: 01 02 03 04 05 06 FF 07 80 69 ?? ?? ?? ?? ?? ??\n"))
    }

    /// Flipper's loader searches keys forward: the Classic type must come before the data format line,
    /// or the file loads as the old format with every block forgotten.
    @Test func flipperWritesTheTypeBeforeTheDataFormat() throws {
        let dump = TagDump(cardInfo: CardInfo(type: .mifareClassic4K, uid: Self.uid))
        let lines = try dump.exportFlipperNFC().split(separator: "\n")
        #expect(Array(lines.prefix(8)) == [
            "Filetype: Flipper NFC device", "Version: 4", "Device type: Mifare Classic", "UID: DE AD BE EF",
            "ATQA: 00 02", "SAK: 18", "Mifare Classic type: 4K", "Data format version: 2",
        ])
        #expect(lines.count == 8 + 256)
    }

    @Test(arguments: [
        (CardType.mifareMini, [UInt8]([0x00, 0x04]), UInt8(0x09), "MINI"), (.mifareClassic1K, [0x00, 0x04], 0x08, "1K"),
        (.mifareClassic4K, [0x00, 0x02], 0x18, "4K"), (.mifarePlusSL1_2K, [0x00, 0x04], 0x08, "Plus 2K"),
        (.mifarePlusSL1_4K, [0x00, 0x02], 0x18, "4K"),
    ])
    func productDefaultsWhenTheDumpHasNoATQAOrSAK(type: CardType, atqa: [UInt8], sak: UInt8, name: String) throws {
        let text = try TagDump(cardInfo: CardInfo(type: type, uid: Self.uid)).exportFlipperNFC()
        #expect(text.contains("ATQA: \(atqa.spacedHexString)\nSAK: \(sak.hexString)\nMifare Classic type: \(name)\n"))
        let sevenByte = try TagDump(cardInfo: CardInfo(type: type, uid: [0x04, 1, 2, 3, 4, 5, 6])).exportFlipperNFC()
        #expect(sevenByte.contains("ATQA: 00 \((atqa[1] | 0x40).hexString)\n"))
    }

    @Test func uidFromBlock0WhenTheDumpHasNone() throws {
        let block0: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x04, 0x08, 0x04, 0x00] + [UInt8](repeating: 0x62, count: 8)
        let dump = TagDump(cardInfo: CardInfo(type: .mifareClassic1K, uid: []), blocks: [Block(number: 0, data: block0)])
        #expect(try dump.exportFlipperNFC().contains("UID: 01 02 03 04\n"))
        let sevenByte = TagDump(cardInfo: CardInfo(type: .mifareClassic1K, uid: []),
                                blocks: [Block(number: 0, data: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x08, 0x44, 0x00] + [UInt8](repeating: 0, count: 6))])
        #expect(try sevenByte.exportFlipperNFC().contains("UID: 04 11 22 33 44 55 66\n"))
        let none = TagDump(cardInfo: CardInfo(type: .mifareClassic1K, uid: []))
        #expect(throws: NFCError.self) { try none.exportFlipperNFC() }
    }

    /// The partly known card has a sector never read: the block images (MFD, Proxmark3 `.bin`, JSON and
    /// `.eml`) refuse it (issue 10) and are left out; Flipper and the key file (FF for unknown keys) are
    /// offered. A card read in full gets them all.
    @Test func exportAllOffersMFDAndFlipperForClassic() async throws {
        let dump = try await Self.dumpOf(try Self.partlyKnownCard())
        let names = try dump.exportAll().map(\.fileName)
        #expect(names == ["mifare-classic-deadbeef.txt", "mifare-classic-deadbeef.json", "mifare-classic-deadbeef.bin",
                          "mifare-classic-deadbeef.nfc", "mifare-classic-deadbeef-key.bin"])
        let full = try await Self.dumpOf(try VirtualClassicTag(model: .classic1K, uid: Self.uid))
        #expect(try full.exportAll().map(\.fileName) == [
            "mifare-classic-deadbeef.txt", "mifare-classic-deadbeef.json", "mifare-classic-deadbeef.bin",
            "mifare-classic-deadbeef.mfd", "mifare-classic-deadbeef.nfc", "mifare-classic-deadbeef-proxmark3.bin",
            "mifare-classic-deadbeef-proxmark3.json", "mifare-classic-deadbeef-key.bin", "mifare-classic-deadbeef.eml",
        ])
    }

    @Test func jsonKeepsTheGaps() async throws {
        let dump = try await Self.dumpOf(try Self.partlyKnownCard())
        #expect(try TagDump.importJSON(Array(dump.exportJSON().utf8)) == dump)
    }

    // MARK: - Gap facts

    static let sectorLists: [(Set<Int>, String)] = [
        ([], ""), ([7], "7"), ([0, 1, 2, 3, 7], "0-3, 7"), ([1, 3, 4, 9, 10, 11, 39], "1, 3-4, 9-11, 39"),
    ]

    @Test(arguments: sectorLists)
    func sectorListsFormatAndParse(sectors: Set<Int>, text: String) throws {
        #expect(ClassicTrailerGaps.format(sectors) == text)
        #expect(try ClassicTrailerGaps.parse(text, key: "k") == sectors)
    }

    @Test(arguments: ["x", "3-1", "1,,2", "-4", "40", "1 - ", "0-99"])
    func malformedSectorListsAreRefused(text: String) throws {
        // The facts are for people: the sector-list parser of the tests refuses the text…
        #expect(throws: NFCError.self) { try ClassicTrailerGaps.parse(text, key: "Sectors Without Key B") }
        // …and a JSON file's gaps come from its `trailerGaps` key, whose malformed lists are refused where
        // the file is read (sector numbers are 0-39; a list holds numbers).
        let dump = TagDump(cardInfo: CardInfo(type: .mifareClassic1K, uid: Self.uid),
                           facts: [Fact(key: "Sectors Without Key B", value: text)])
        let json = try dump.exportJSON(prettyPrinted: false)
        #expect(json.contains(#""trailerGaps":{"accessBits":[],"keyA":[],"keyB":[]}"#))
        for bad in [#"{"accessBits":[],"keyA":[],"keyB":[40]}"#, #"{"accessBits":[-1],"keyA":[],"keyB":[]}"#,
                    #"{"accessBits":[],"keyA":["\#(text)"],"keyB":[]}"#, #""\#(text)""#] {
            let file = Array(json.replacingOccurrences(of: #"{"accessBits":[],"keyA":[],"keyB":[]}"#, with: bad).utf8)
            #expect(throws: NFCError.self) { try TagDump.importJSON(file) }
            #expect(throws: NFCError.self) { try DumpImporter.importDump(file) }
        }
    }

    /// A JSON dump's gaps are its `trailerGaps` key's, whatever its facts say: facts edited by hand (or
    /// by a tool that rewrites the text) change nothing of what the exports write.
    @Test func jsonGapsComeFromTheKeyNotTheFacts() async throws {
        let dump = try await Self.dumpOf(try Self.partlyKnownCard())
        #expect(dump.classicTrailerGaps == ClassicTrailerGaps(keyA: [2], keyB: [5]))
        var json = try dump.exportJSON(prettyPrinted: false)
        #expect(json.contains(#""trailerGaps":{"accessBits":[],"keyA":[2],"keyB":[5]}"#))
        for (key, value) in [("Sectors Without Key A", "2"), ("Sectors Without Key B", "5")] {
            let fact = #"{"key":"\#(key)","monospaced":false,"value":"\#(value)"}"#
            #expect(json.contains(fact))
            json = json.replacingOccurrences(of: fact, with: #"{"key":"\#(key)","monospaced":false,"value":"0-15"}"#)
        }
        let imported = try TagDump.importJSON(Array(json.utf8))
        #expect(imported.fact("Sectors Without Key B") == "0-15")
        #expect(imported.classicTrailerGaps == ClassicTrailerGaps(keyA: [2], keyB: [5]))
        #expect(try imported.exportClassicMFD(partial: true) == dump.exportClassicMFD(partial: true))
        #expect(try imported.exportFlipperNFC() == dump.exportFlipperNFC())
        // Without the facts at all, the key still gives the gaps.
        let noFacts = json.replacingOccurrences(of: #"{"key":"Sectors Without Key A","monospaced":false,"value":"0-15"},"#, with: "")
            .replacingOccurrences(of: #",{"key":"Sectors Without Key B","monospaced":false,"value":"0-15"}"#, with: "")
        #expect(!noFacts.contains("Sectors Without"))
        #expect(try TagDump.importJSON(Array(noFacts.utf8)).classicTrailerGaps == ClassicTrailerGaps(keyA: [2], keyB: [5]))
    }

    /// A JSON file written before `trailerGaps` existed: its gaps are what its trailers show (all-zero
    /// parts are unknown, as in an MFD file), not what its facts say.
    @Test func oldJSONGapsComeFromTheTrailers() async throws {
        let dump = try await Self.dumpOf(try Self.partlyKnownCard())
        let json = try dump.exportJSON(prettyPrinted: false)
            .replacingOccurrences(of: #","trailerGaps":{"accessBits":[],"keyA":[2],"keyB":[5]}"#, with: "")
            .replacingOccurrences(of: #""value":"5"}"#, with: #""value":"0-15"}"#)
        #expect(!json.contains("trailerGaps"))
        let imported = try TagDump.importJSON(Array(json.utf8))
        // The MFD of the sectors read, filled with the zeros older writers put for the rest.
        let mfd = try dump.exportClassicMFD(partial: true)
        let fromMFD = try TagDump.importClassicMFD(mfd + [UInt8](repeating: 0, count: 1024 - mfd.count)).classicTrailerGaps
        #expect(imported.classicTrailerGaps == fromMFD)
        #expect(imported.classicTrailerGaps.keyB.isSuperset(of: [5]))
        #expect(!imported.classicTrailerGaps.keyB.contains(15))
    }

    @Test func emptyGapsWriteNoFacts() {
        #expect(ClassicTrailerGaps().facts.isEmpty)
        #expect(ClassicTrailerGaps(keyA: [1], accessBits: [2], keyB: [3]).facts.map(\.key)
            == ["Sectors Without Key A", "Sectors Without Access Bits", "Sectors Without Key B"])
    }

    // MARK: - Errors

    /// A `Block N:` token is two hex digits or `??`; anything else is refused.
    @Test(arguments: ["0G", "0x", "A:", "::", "ABC", "?"])
    func flipperBlockTokensAreHexBytesOrUnknown(token: String) throws {
        let good = [String](repeating: "00", count: 15)
        #expect(try FlipperClassicFormat.parseBlock((["??", "AB"] + good.dropFirst()).joined(separator: " "), number: 1)
            == [nil, 0xAB] + [UInt8?](repeating: 0, count: 14))
        #expect(throws: NFCError.self) { try FlipperClassicFormat.parseBlock(([token] + good).joined(separator: " "), number: 1) }
    }

    @Test func badBlocksAreRefused() throws {
        let info = CardInfo(type: .mifareClassic1K, uid: Self.uid)
        let short = TagDump(cardInfo: info, blocks: [Block(number: 1, data: [1, 2, 3])])
        let outside = TagDump(cardInfo: info, blocks: [Block(number: 64, data: [UInt8](repeating: 0, count: 16))])
        let twice = TagDump(cardInfo: info, blocks: [Block(number: 1, data: [UInt8](repeating: 0, count: 16)),
                                                     Block(number: 1, data: [UInt8](repeating: 1, count: 16))])
        for dump in [short, outside, twice] {
            expectError("malformed_dump") { try dump.exportLibNFCMFD() }
            expectError("malformed_dump") { try dump.exportFlipperNFC() }
        }
    }

    @Test func otherFamiliesAreNotClassic() throws {
        let type2 = TagDump(cardInfo: CardInfo(type: .ntag213, uid: [4, 1, 2, 3, 4, 5, 6]),
                            pages: [Page(number: 0, data: [4, 1, 2, 0x89])])
        expectError("unsupported") { try type2.exportClassicMFD() }
        expectError("unsupported") { try type2.exportFlipperClassicNFC() }
        // The Type 2 exports still take Type 2 dumps: this one holds page 0 only, so the 180-byte MFD it
        // got before (179 bytes of zeros) is refused as partial, and its read part is page 0 (issue 10).
        expectError("partial_dump") { try type2.exportLibNFCMFD() }
        #expect(try type2.exportLibNFCMFD(partial: true) == [4, 1, 2, 0x89])
    }

    @Test(arguments: [0, 64, 1000, 1023, 4097])
    func mfdOfAnotherSizeIsRefused(size: Int) {
        expectError("malformed_dump") { try TagDump.importClassicMFD([UInt8](repeating: 0x11, count: size)) }
    }

    @Test func classicAndType2MFDSizesDoNotOverlap() {
        #expect(ClassicFileType.mfdSizes.isDisjoint(with: Type2FileIdentity.mfdSizes))
        #expect(ClassicFileType.mfdSizes == [320, 1024, 2048, 4096])
        for row in ClassicFileType.rows { #expect(ClassicLayout.forType(row.type) != nil) }
    }

    static let header = """
        Filetype: Flipper NFC device
        Version: 4
        Device type: Mifare Classic
        UID: DE AD BE EF
        ATQA: 00 04
        SAK: 09
        Mifare Classic type: MINI
        Data format version: 2

        """

    static func miniFile(replacing line: Int? = nil, with text: String? = nil) -> String {
        var blocks = (0..<20).map { "Block \($0): " + Array(repeating: "00", count: 16).joined(separator: " ") }
        if let line { blocks[line] = text ?? "" }
        return header + blocks.joined(separator: "\n") + "\n"
    }

    @Test func flipperFileOfAMiniImports() throws {
        let dump = try DumpImporter.importDump(Array(Self.miniFile().utf8))
        #expect(dump.cardInfo.type == .mifareMini)
        #expect(dump.cardInfo.sak == 0x09)
        #expect(dump.blocks.count == 20)
        // Saved by a Windows editor: a byte-order mark first and CR LF line ends.
        let windows = "\u{FEFF}" + Self.miniFile().split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        #expect(try DumpImporter.importDump(Array(windows.utf8)).blocks == dump.blocks)
    }

    @Test(arguments: [
        (3, "Block 3: 00 00"), (4, "Block 4: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 ZZ"),
        (5, "Block 5: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 0"), (6, "# no block 6"),
        (7, "Block 7: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 +1"),
    ])
    func malformedFlipperBlocksAreRefused(line: Int, text: String) {
        expectError("malformed_dump") { try TagDump.importFlipperClassicNFC(Self.miniFile(replacing: line, with: text)) }
    }

    /// A data block with some `??` is unread, as Flipper loads it; a trailer keeps its known parts.
    @Test func partlyUnknownBlocks() throws {
        let data = "Block 1: 11 ?? 11 11 11 11 11 11 11 11 11 11 11 11 11 11"
        let trailer = "Block 3: ?? 00 00 00 00 00 FF 07 80 69 01 02 03 04 05 06"
        let text = Self.miniFile(replacing: 1, with: data).replacingOccurrences(
            of: "Block 3: " + Array(repeating: "00", count: 16).joined(separator: " "), with: trailer)
        let dump = try TagDump.importFlipperClassicNFC(text)
        #expect(!dump.blocks.contains { $0.number == 1 })
        #expect(dump.blocks.first { $0.number == 3 }?.data == [0, 0, 0, 0, 0, 0, 0xFF, 0x07, 0x80, 0x69, 1, 2, 3, 4, 5, 6])
        #expect(try ClassicTrailerGaps(facts: dump.facts) == ClassicTrailerGaps(keyA: [0]))
    }

    @Test func unknownClassicTypeAndOtherProtocolsAreUnsupported() {
        let plus4K = Self.miniFile().replacingOccurrences(of: "Mifare Classic type: MINI", with: "Mifare Classic type: 8K")
        expectError("unsupported") { try TagDump.importFlipperClassicNFC(plus4K) }
        let desfire = Self.miniFile().replacingOccurrences(of: "Device type: Mifare Classic", with: "Device type: Mifare DESFire")
        expectError("unsupported") { try TagDump.importFlipperClassicNFC(desfire) }
        expectError("unsupported") { try DumpImporter.importDump(Array(desfire.utf8)) }
        let noType = Self.miniFile().replacingOccurrences(of: "Mifare Classic type: MINI\n", with: "")
        expectError("malformed_dump") { try TagDump.importFlipperClassicNFC(noType) }
    }

    /// Proxmark3 saves `hf mf` dumps as raw blocks: `--format pm3` reads a Classic-sized file as one.
    @Test func proxmarkClassicDumpIsTheBlockImage() throws {
        let mfd = try ExportFixtures.bytes("classic/1k.mfd")
        let dump = try DumpImporter.importDump(mfd, format: .pm3)
        #expect(dump.blocks == (try TagDump.importClassicMFD(mfd)).blocks)
        #expect(dump.fact("Imported From") == "Proxmark3 MFC")
    }

    /// Expects `body` to throw an ``NFCError`` with `code`.
    private func expectError<T>(_ code: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) {
        let error = #expect(throws: NFCError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.code == code, sourceLocation: sourceLocation)
    }
}
