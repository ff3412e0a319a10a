import Foundation
import PN532Sim
import Testing
@testable import NFCCore

/// The Proxmark3 files (RRG client `client/src/fileutils.c`): JSON `mfu` and `mfc v2`, the Classic
/// `hf mf` dump and key file, `.eml`; and MIFARE Classic dumps with blocks never read, which the
/// fixed-offset formats refuse (`partial_dump`) unless `partial`.
@Suite struct ExportProxmarkTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]

    /// A 1K dump: sectors 0 … `read` − 1 read (block n holds n in every byte, trailers the factory
    /// keys and access bits), with `gaps`.
    static func classic1K(sectorsRead read: Int = 16, gaps: ClassicTrailerGaps = ClassicTrailerGaps()) -> TagDump {
        var blocks: [Block] = []
        for number in 0..<(read * 4) {
            if number % 4 == 3 {
                var trailer = [UInt8](repeating: 0xFF, count: 6) + [0xFF, 0x07, 0x80, 0x69] + [UInt8](repeating: 0xFF, count: 6)
                for part in ClassicTrailerGaps.Part.allCases where gaps.isUnknown(part, sector: number / 4) {
                    for index in part.bytes { trailer[index] = 0 }
                }
                blocks.append(Block(number: number, data: trailer))
            } else if number == 0 {
                blocks.append(Block(number: 0, data: uid + [0x22, 0x08, 0x04, 0x00] + Array(0x62...0x69)))
            } else {
                blocks.append(Block(number: number, data: [UInt8](repeating: UInt8(number), count: 16)))
            }
        }
        return TagDump(cardInfo: CardInfo(type: .mifareClassic1K, uid: uid, atqa: [0x00, 0x04], sak: 0x08), blocks: blocks,
                       facts: gaps.facts, family: .classic(gaps))
    }

    static func expectError<T>(_ code: String, _ text: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                               _ body: () throws -> T) {
        DumpBoundsTests.expectError(code, text, sourceLocation: sourceLocation, body)
    }

    // MARK: Classic dumps with blocks never read (issue 10)

    /// MFD, the `hf mf` dump, Proxmark3 JSON and `.eml` refuse a dump with a sector never read, naming
    /// its first block and the sector; `partial` writes the whole sectors before it and nothing after.
    @Test func unreadSectorIsRefusedOrCut() throws {
        let dump = Self.classic1K(sectorsRead: 3)
        for export in [{ try dump.exportLibNFCMFD() }, { try dump.exportProxmark3MFU() },
                       { Array(try dump.exportProxmark3JSON().utf8) }, { Array(try dump.exportProxmark3EML().utf8) }] {
            Self.expectError("partial_dump", "block 12 (sector 3) of 64 was not read") { try export() }
        }
        let mfd = try dump.exportLibNFCMFD(partial: true)
        #expect(mfd.count == 3 * 64)
        #expect(mfd == dump.blocks.flatMap(\.data))
        #expect(try dump.exportProxmark3MFU(partial: true) == mfd)
        #expect(try dump.exportProxmark3EML(partial: true).split(separator: "\n").count == 12)
        let json = try dump.exportProxmark3JSON(partial: true)
        #expect(json.contains(#""11": "FFFFFFFFFFFFFF078069FFFFFFFFFFFF""#))
        #expect(!json.contains(#""12": "#))
        // A file cut so is read back by its SAK (no Classic size) with the blocks it holds.
        let imported = try DumpImporter.importDump(Array(json.utf8))
        #expect(imported.cardInfo.type == .mifareClassic1K)
        #expect(imported.blocks == dump.blocks)
    }

    /// A hole inside a sector (a block its access bits kept from the key found) cuts before that sector.
    @Test func unreadDataBlockCutsAtItsSector() throws {
        var dump = Self.classic1K()
        dump.blocks.removeAll { $0.number == 21 }
        Self.expectError("partial_dump", "block 21 (sector 5)") { try dump.exportLibNFCMFD() }
        #expect(try dump.exportLibNFCMFD(partial: true).count == 5 * 64)
    }

    /// Sector 0 not read in full leaves nothing to write, even with `partial`.
    @Test func unreadSectorZeroLeavesNothing() {
        var dump = Self.classic1K()
        dump.blocks.removeAll { $0.number == 1 }
        Self.expectError("partial_dump", "sector 0 is incomplete: nothing to write") { try dump.exportLibNFCMFD(partial: true) }
    }

    /// A trailer whose keys are unknown is not an unread block: the MFD keeps zeros for the keys (as
    /// `nfc-mfclassic` does) and the import reads them back as unknown.
    @Test func unknownKeysKeepTheZeroConvention() throws {
        let gaps = ClassicTrailerGaps(keyA: [2], keyB: [5])
        let dump = Self.classic1K(gaps: gaps)
        let mfd = try dump.exportLibNFCMFD()
        #expect(mfd.count == 1024)
        #expect(Array(mfd[(11 * 16)..<(11 * 16 + 6)]) == [0, 0, 0, 0, 0, 0])
        #expect(try TagDump.importClassicMFD(mfd).classicTrailerGaps == gaps)
        #expect(try dump.exportProxmark3MFU() == mfd)
    }

    // MARK: Key file and .eml

    /// `hf-mf-<UID>-key.bin`: key A of all 16 sectors, then key B of all 16, FF × 6 where not known.
    @Test func keyFileLaysOutKeysAThenKeysB() throws {
        let secret: [UInt8] = [0x13, 0x57, 0x9B, 0xDF, 0x24, 0x68]
        var dump = Self.classic1K(sectorsRead: 4, gaps: ClassicTrailerGaps(keyB: [1]))
        dump.blocks[7].data.replaceSubrange(0..<6, with: secret)
        let keys = try dump.exportProxmark3Keys()
        #expect(keys.count == 2 * 16 * 6)
        #expect(Array(keys[6..<12]) == secret)
        #expect(Array(keys[0..<6]) == [UInt8](repeating: 0xFF, count: 6))
        // Key B of sector 1 is unknown: FF, not the zeros the trailer holds.
        #expect(Array(keys[(16 + 1) * 6..<(16 + 2) * 6]) == ProxmarkClassicFormat.unknownKey)
        #expect(dump.blocks[7].data[10..<16].allSatisfy { $0 == 0 })
        // Sectors 4–15 were never read: their keys are unknown.
        #expect(keys[4 * 6..<16 * 6].allSatisfy { $0 == 0xFF })
        Self.expectError("unsupported", "Proxmark3 key files hold MIFARE Classic keys and blocks; they cannot hold NTAG dumps") {
            try ExportFixtures.filled(try ExportFixtures.type2Dump("ntag213")).exportProxmark3Keys()
        }
    }

    /// `.eml`: 64 lines of 32 uppercase hex digits, no newline after the last; read back (detected) equal.
    @Test func emlRoundTrip() throws {
        let dump = Self.classic1K(gaps: ClassicTrailerGaps(keyB: [3]))
        let text = try dump.exportProxmark3EML()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 64)
        #expect(lines[0] == "DEADBEEF220804006263646566676869")
        #expect(lines[15] == "FFFFFFFFFFFFFF078069000000000000")
        #expect(!text.hasSuffix("\n"))
        #expect(DumpImporter.detectFormat(Array(text.utf8)) == .eml)
        let imported = try DumpImporter.importDump(Array(("# a comment line\n" + text + "\n").utf8))
        #expect(imported.blocks == dump.blocks)
        #expect(imported.classicTrailerGaps == ClassicTrailerGaps(keyB: [3]))
        #expect(imported.fact("Imported From") == "Proxmark3 .eml")
        // The same file saved on Windows (CR LF line ends) reads the same.
        let windows = text.split(separator: "\n").joined(separator: "\r\n") + "\r\n"
        #expect(try TagDump.importProxmark3ClassicEML(windows).blocks == dump.blocks)
        #expect(try DumpImporter.importDump(Array(windows.utf8)).blocks == dump.blocks)
        #expect(try DumpImporter.importDump(Array(("\u{FEFF}" + windows).utf8)).blocks == dump.blocks, "with a byte-order mark")
    }

    @Test func emlImportRefusesWhatIsNotOne() {
        Self.expectError("malformed_dump", ".eml line 2 'XYZ' is not one 16-byte block in hex") {
            try TagDump.importProxmark3ClassicEML("DEADBEEF220804006263646566676869\nXYZ")
        }
        Self.expectError("malformed_dump", ".eml line 2 'XYZ' is not one 16-byte block in hex") {
            try TagDump.importProxmark3ClassicEML("DEADBEEF220804006263646566676869\r\nXYZ\r\n")
        }
        // One block of a 1K (SAK 08h in block 0) ends no sector: no cut of any product.
        Self.expectError("malformed_dump", "16 bytes is not the size of a MIFARE Classic image") {
            try TagDump.importProxmark3ClassicEML("DEADBEEF220804006263646566676869")
        }
        Self.expectError("malformed_dump", "this is a JSON dump, not a Proxmark3 .eml file (eml)") {
            try DumpImporter.importDump(Array(#"{"cardType":"NTAG213","uid":"04"}"#.utf8), format: .eml)
        }
    }

    // MARK: Proxmark3 JSON, mfc v2

    /// The layout the client writes: `Created`, `FileType`, `Card` (ATQA least significant byte first),
    /// `blocks`, `SectorKeys`; jansson's two-space indent and no newline at the end.
    @Test func classicJSONLayout() throws {
        let text = try Self.classic1K(gaps: ClassicTrailerGaps(keyA: [1])).exportProxmark3JSON()
        #expect(text.hasPrefix("""
            {
              "Created": "proxmark3",
              "FileType": "mfc v2",
              "Card": {
                "UID": "DEADBEEF",
                "ATQA": "0400",
                "SAK": "08"
              },
              "blocks": {
                "0": "DEADBEEF220804006263646566676869",
                "1": "01010101010101010101010101010101",
            """))
        #expect(text.contains("""
                "63": "FFFFFFFFFFFFFF078069FFFFFFFFFFFF"
              },
              "SectorKeys": {
                "0": {
                  "KeyA": "FFFFFFFFFFFF",
                  "KeyB": "FFFFFFFFFFFF",
                  "AccessConditions": "FF078069"
                },
                "1": {
                  "KeyA": "000000000000",
            """))
        #expect(text.hasSuffix("""
                  "AccessConditions": "FF078069"
                }
              }
            }
            """))
    }

    /// Export → import gives the blocks, UID, ATQA, SAK and gaps back, detected by content.
    @Test(arguments: ["mini", "1k", "plus2k", "4k"])
    func classicJSONRoundTrip(key: String) throws {
        let original = try ExportClassicFixtureTests.dump("\(key).input.json")
        let text = try original.exportProxmark3JSON(partial: true)
        #expect(DumpImporter.detectFormat(Array(text.utf8)) == .pm3json)
        let imported = try DumpImporter.importDump(Array(text.utf8))
        let cut = try original.exportLibNFCMFD(partial: true).count / 16
        #expect(imported.blocks == original.blocks.filter { $0.number < cut })
        #expect(imported.cardInfo.type == original.cardInfo.type)
        #expect(imported.cardInfo.uid == original.cardInfo.uid)
        // The fixtures name no ATQA / SAK: the file holds the product's, which the import keeps.
        let fileType = try #require(ClassicFileType.forType(original.cardInfo.type))
        #expect(imported.cardInfo.atqa == original.cardInfo.atqa ?? fileType.atqa(uidLength: original.cardInfo.uid.count))
        #expect(imported.cardInfo.sak == original.cardInfo.sak ?? fileType.sak)
        #expect(try imported.exportProxmark3JSON(partial: true) == text)
    }

    /// `mfcard` (the older name) reads the same; blocks after a gap, stray keys, short blocks, a block
    /// count no product has and `Card` values of the wrong size are refused.
    @Test func classicJSONImportChecksItsInput() throws {
        func file(_ type: String = "mfc v2", card: String = #""SAK": "08""#, blocks: String) -> [UInt8] {
            Array(#"{"Created": "proxmark3", "FileType": "\#(type)", "Card": {\#(card)}, "blocks": {\#(blocks)}}"#.utf8)
        }
        let block0 = #""0": "DEADBEEF220804006263646566676869""#
        #expect(try DumpImporter.importDump(file("mfcard", blocks: block0)).blocks.count == 1)
        Self.expectError("malformed_dump", "blocks key '5': it does not follow blocks 0–0") {
            try DumpImporter.importDump(file(blocks: block0 + #", "5": "00000000000000000000000000000000""#))
        }
        Self.expectError("malformed_dump", "blocks key 'x'") { try DumpImporter.importDump(file(blocks: block0 + #", "x": "00""#)) }
        Self.expectError("malformed_dump", "block 0 'DEADBEEF' is not 16 bytes of hex") {
            try DumpImporter.importDump(file(blocks: #""0": "DEADBEEF""#))
        }
        Self.expectError("malformed_dump", "1 blocks is no MIFARE Classic memory") {
            try DumpImporter.importDump(file(card: "", blocks: block0))
        }
        Self.expectError("malformed_dump", "Card.ATQA has 1 bytes, not 2") {
            try DumpImporter.importDump(file(card: #""SAK": "08", "ATQA": "04""#, blocks: block0))
        }
        let tooMany = (0...256).map { #""\#($0)": "00000000000000000000000000000000""# }.joined(separator: ", ")
        Self.expectError("malformed_dump", "more than 256 blocks") { try DumpImporter.importDump(file(blocks: tooMany)) }
        Self.expectError("unsupported", "FileType 'iclass' are not read") {
            try DumpImporter.importDump(file("iclass", blocks: block0))
        }
        Self.expectError("malformed_dump", "Proxmark3 JSON:") {
            try DumpImporter.importDump(Array(#"{"Created": "proxmark3", "FileType": "mfu", "Card": [1]}"#.utf8))
        }
    }

    // MARK: Proxmark3 JSON, mfu

    /// An empty NTAG216 as `hf mfu dump` saved it (the values of Proxmark3's
    /// `traces/mifare/ntag216-empty.json`: reference/peers-nfc.md §4.4): read, it is the NTAG216 its
    /// GET_VERSION names, and written again it is the same file byte for byte.
    @Test func type2JSONReadsAndWritesTheClientsFile() throws {
        var pages = [String](repeating: "00000000", count: 231)
        for (number, hex) in [(0, "045869BD"), (1, "D29C3980"), (2, "F7480000"), (3, "E1106D00"), (4, "0300FE00"),
                              (226, "000000BD"), (227, "040000FF"), (228, "00050000"), (229, "FFFFFFFF")] {
            pages[number] = hex
        }
        let text = """
            {
              "Created": "proxmark3",
              "FileType": "mfu",
              "Card": {
                "UID": "045869D29C3980",
                "Version": "0004040201001303",
                "TBO_0": "0000",
                "TBO_1": "00",
                "Signature": "1FA9FE479435E4B60280F7A2B44293DF9127471B3251BC8942F0941AD71A1755",
                "Counter0": "000000",
                "Tearing0": "00",
                "Counter1": "000000",
                "Tearing1": "00",
                "Counter2": "000000",
                "Tearing2": "BD"
              },
              "blocks": {
            \(pages.enumerated().map { "    \"\($0.offset)\": \"\($0.element)\"" }.joined(separator: ",\n"))
              }
            }
            """
        let dump = try DumpImporter.importDump(Array(text.utf8))
        #expect(dump.cardInfo.type == .ntag216)
        #expect(dump.cardInfo.uid == [0x04, 0x58, 0x69, 0xD2, 0x9C, 0x39, 0x80])
        #expect(dump.pages.count == 231)
        #expect(dump.type2?.tearing == [0, 0, 0xBD])
        #expect(dump.type2?.signature?.first == 0x1F)
        #expect(dump.fact("Imported From") == "Proxmark3 JSON")
        #expect(try dump.exportProxmark3JSON() == text)
        // The binary holds the same header and pages.
        let binary = try dump.exportProxmark3MFU()
        #expect(try TagDump.importProxmark3MFU(binary).pages == dump.pages)
    }

    /// Every Type 2 fixture product: Proxmark3 JSON → import → the same pages, type and chip data as the
    /// Proxmark3 binary gives, and the same file again.
    @Test(arguments: ExportFixtures.type2Keys)
    func type2JSONRoundTrip(key: String) throws {
        let dump = ExportFixtures.filled(try ExportFixtures.type2Dump(key))
        let text = try dump.exportProxmark3JSON()
        let imported = try DumpImporter.importDump(Array(text.utf8))
        let viaBinary = try TagDump.importProxmark3MFU(try dump.exportProxmark3MFU())
        #expect(imported.pages == viaBinary.pages)
        #expect(imported.cardInfo.type == viaBinary.cardInfo.type)
        #expect(imported.cardInfo.uid == viaBinary.cardInfo.uid)
        #expect(imported.type2 == viaBinary.type2)
        #expect(try imported.exportProxmark3JSON() == text)
        #expect(try imported.exportProxmark3MFU() == dump.exportProxmark3MFU())
    }

    /// A partial Type 2 dump is refused as for the binary; `partial` writes the read prefix.
    @Test func type2JSONOfAPartialDump() throws {
        let dump = DumpBoundsTests.pageDump(.ntag213, 0..<16)
        Self.expectError("partial_dump", "page 16 of 45 was not read") { try dump.exportProxmark3JSON() }
        let text = try dump.exportProxmark3JSON(partial: true)
        #expect(text.contains(#""15": "0F010203""#))
        #expect(!text.contains(#""16": "#))
    }

    /// Pages after a gap, more than 256 pages and pages of another size are refused.
    @Test func type2JSONImportChecksItsInput() {
        func file(_ blocks: String) -> [UInt8] {
            Array(#"{"Created": "proxmark3", "FileType": "mfu", "Card": {}, "blocks": {\#(blocks)}}"#.utf8)
        }
        Self.expectError("malformed_dump", "blocks key '2': it does not follow pages 0–0") {
            try DumpImporter.importDump(file(#""0": "04A1B29F", "2": "00000000""#))
        }
        Self.expectError("malformed_dump", "page 0 '04A1B2' is not 4 bytes of hex") { try DumpImporter.importDump(file(#""0": "04A1B2""#)) }
        Self.expectError("malformed_dump", "no pages") { try DumpImporter.importDump(file("")) }
        let tooMany = (0...256).map { #""\#($0)": "00000000""# }.joined(separator: ", ")
        Self.expectError("malformed_dump", "more than 256 pages") { try DumpImporter.importDump(file(tooMany)) }
        Self.expectError("malformed_dump", "Card.Version has 2 bytes, not 8") {
            try DumpImporter.importDump(Array(#"{"Created": "proxmark3", "FileType": "mfu", "Card": {"Version": "0004"}, "blocks": {"0": "04A1B29F"}}"#.utf8))
        }
    }
}

/// The 64-byte MFD `nfc-mfultralight` loads for tags without GET_VERSION (libnfc
/// `utils/nfc-mfultralight.c`: `iDumpSize = sizeof(mifareul_tag)` unless GET_VERSION answers).
@Suite struct ExportMFD64Tests {
    @Test(arguments: ["ulc", "ntag203", "ultralight"])
    func pages0To15(key: String) throws {
        let dump = ExportFixtures.filled(try ExportFixtures.type2Dump(key))
        let mfd64 = try dump.exportLibNFCMFD64()
        #expect(mfd64.count == 64)
        #expect(mfd64 == Array(try dump.exportLibNFCMFD().prefix(64)))
        // Read back it is a 16-page Ultralight (the size names no other product).
        #expect(try TagDump.importLibNFCMFD(mfd64).cardInfo.type == .mifareUltralight)
    }

    @Test func productsWithGetVersionUseTheFullMFD() throws {
        let dump = ExportFixtures.filled(try ExportFixtures.type2Dump("ntag213"))
        DumpBoundsTests.expectError("unsupported", "NTAG213 dumps: use mfd") { try dump.exportLibNFCMFD64() }
        DumpBoundsTests.expectError("unsupported", "MIFARE Classic 1K dumps: use mfd") {
            try ExportProxmarkTests.classic1K().exportLibNFCMFD64()
        }
    }

    /// The refusal of a dump that `mfd` cannot hold either (DESFire files, FeliCa and ISO 15693 blocks)
    /// names only formats of the table that hold it — never `mfd` — and every one of them writes it.
    @Test(arguments: [
        TagDump(cardInfo: CardInfo(type: .mifareDesfireEV1, uid: [0x04, 1, 2, 3, 4, 5, 6]),
                files: [FileData(identifier: [0x01, 0x00, 0x00, 0x01], data: [0xCA, 0xFE], name: "000001/01")]),
        TagDump(cardInfo: CardInfo(type: .felicaLite, uid: [1, 2, 3, 4, 5, 6, 7, 8]),
                blocks: (0..<4).map { Block(number: $0, data: [UInt8](repeating: UInt8($0), count: 16)) }),
        TagDump(cardInfo: CardInfo(type: .iso15693_ICODE_SLIX, uid: [0xE0, 4, 1, 2, 3, 4, 5, 6]),
                blocks: (0..<28).map { Block(number: $0, data: [UInt8(truncatingIfNeeded: $0), 0, 0, 0]) }),
    ])
    func refusalNamesOnlyFormatsThatHoldTheDump(dump: TagDump) throws {
        let error = #expect(throws: NFCError.self) { try dump.exportLibNFCMFD64() }
        #expect(error?.code == "unsupported")
        let message = try #require(error?.message)
        let parts = message.components(separatedBy: ": use ")
        #expect(parts.count == 2, "\(message)")
        let named = (parts.last ?? "").replacingOccurrences(of: " or ", with: ", ").components(separatedBy: ", ")
        #expect(!named.contains("mfd"), "\(message)")
        #expect(named.contains("json"), "\(message)")
        for name in named {
            let format = try #require(ExportFormat(rawValue: name), "\(name) in \(message)")
            #expect(format != .mfd64)
            #expect(throws: Never.self, "\(name) in \(message)") { try format.render(dump) }
        }
        // And every other format of the table refuses it: the hint leaves none out.
        for format in ExportFormat.allCases where format != .mfd64 && !named.contains(format.rawValue) {
            #expect(throws: NFCError.self, "\(format.rawValue) for \(dump.cardInfo.type)") { try format.render(dump) }
        }
    }

    /// Every format of the table has its own file name: the files of one tag never overwrite each other.
    @Test func everyFormatHasItsOwnFileSuffix() {
        let suffixes = ExportFormat.allCases.map(\.fileSuffix)
        #expect(Set(suffixes).count == suffixes.count, "\(suffixes)")
        #expect(ExportFormat.mfd.fileSuffix == ".mfd" && ExportFormat.mfd64.fileSuffix == "-64.mfd")
    }

    /// A DESFire dump without the application walk (a JSON import) has no Flipper file: the MFD and
    /// Proxmark3 refusals then name json alone, not flipper.
    @Test func desfireRefusalNamesFlipperOnlyWhenItHoldsTheDump() throws {
        let dump = TagDump(cardInfo: CardInfo(type: .mifareDesfireEV1, uid: [0x04, 1, 2, 3, 4, 5, 6]),
                           files: [FileData(identifier: [0x01, 0x00, 0x00, 0x01], data: [0xCA, 0xFE], name: "000001/01")])
        #expect(throws: NFCError.self) { try dump.exportFlipperNFC() }
        for export in [{ try dump.exportLibNFCMFD() }, { try dump.exportProxmark3MFU() }] {
            let error = #expect(throws: NFCError.self) { try export() }
            #expect(error?.code == "unsupported")
            #expect(error?.message.hasSuffix("(applications and files): use json") == true, "\(error?.message ?? "")")
        }
    }

    /// Pages 0–15 must all be there (the rest of the memory may be missing: it is not in the file).
    @Test func partialBelowPage16IsRefused() throws {
        let dump = DumpBoundsTests.pageDump(.mifareUltralightC, 0..<10)
        DumpBoundsTests.expectError("partial_dump", "page 10 of 16 was not read") { try dump.exportLibNFCMFD64() }
        #expect(try dump.exportLibNFCMFD64(partial: true).count == 40)
        #expect(try DumpBoundsTests.pageDump(.mifareUltralightC, 0..<20).exportLibNFCMFD64().count == 64)
    }
}
