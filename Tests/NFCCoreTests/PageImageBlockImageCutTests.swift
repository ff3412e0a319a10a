@testable import NFCCore
import Testing

/// `Type2PageImage.readPageCount` and `ClassicBlockImage.readBlockCount`, the one cut rule of the
/// fixed-offset images (``FixedImageCut``) in each family's words: the count written when the dump is
/// whole, the cut with `partial`, and every `partial_dump` message in full, byte for byte.
@Suite struct PageImageBlockImageCutTests {
    static let pageRisk = "written back to a tag they overwrite its data and configuration"
    static let blockRisk = "written back to a card, a trailer of zeros locks its sector"

    static func pages(_ type: CardType, _ numbers: some Sequence<Int>) throws -> Type2PageImage {
        let dump = TagDump(cardInfo: CardInfo(type: type, uid: [0x04, 1, 2, 3, 4, 5, 6]),
                           pages: numbers.map { Page(number: $0, data: [UInt8(truncatingIfNeeded: $0), 1, 2, 3]) })
        return try Type2PageImage(dump, unsupportedMessage: "no pages")
    }

    static func blocks(_ type: CardType, _ numbers: some Sequence<Int>) throws -> ClassicBlockImage {
        let blocks = numbers.map { Block(number: $0, data: [UInt8](repeating: UInt8(truncatingIfNeeded: $0), count: 16)) }
        let dump = TagDump(cardInfo: CardInfo(type: type, uid: [0x5A, 0x10, 0x20, 0x30]), blocks: blocks)
        return try ClassicBlockImage(dump, unsupportedMessage: "no blocks")
    }

    static func message(_ body: () throws -> Int) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as NFCError {
            guard case let .partialDump(message) = error else { return "not partial_dump: \(error)" }
            return message
        } catch {
            return "not an NFCError: \(error)"
        }
    }

    @Test func aWholePageImageIsWrittenWhole() throws {
        let image = try Self.pages(.ntag213, 0..<45)
        #expect(try image.readPageCount(45, partial: false, format: "an MFD file") == 45)
        #expect(try image.readPageCount(45, partial: true, format: "an MFD file") == 45)
        #expect(try image.readPageCount(16, partial: false, format: "an MFD file") == 16)
    }

    @Test func aPageImageIsCutAtItsFirstMissingPage() throws {
        let image = try Self.pages(.ntag213, Array(0..<10) + Array(12..<45))
        #expect(try image.readPageCount(45, partial: true, format: "an MFD file") == 10)
        #expect(Self.message { try image.readPageCount(45, partial: false, format: "an MFD file") }
            == "page 10 of 45 was not read; an MFD file has no mark for unread pages and would hold zeros there ("
            + Self.pageRisk + "). Export only pages 0–9 (partial), or use JSON or Flipper .nfc")
        let noPage0 = try Self.pages(.ntag213, 1..<45)
        let empty = "page 0 of 45 was not read; a Proxmark3 MFU file has no mark for unread pages and would hold zeros there ("
            + Self.pageRisk + "), and page 0 is missing: nothing to write. Use JSON or Flipper .nfc"
        for partial in [false, true] {
            #expect(Self.message { try noPage0.readPageCount(45, partial: partial, format: "a Proxmark3 MFU file") } == empty)
        }
    }

    @Test func aWholeBlockImageIsWrittenWhole() throws {
        for (type, total) in [(CardType.mifareMini, 20), (.mifareClassic1K, 64), (.mifareClassic4K, 256)] {
            let image = try Self.blocks(type, 0..<total)
            #expect(try image.readBlockCount(partial: false, format: "an MFD file") == total)
            #expect(try image.readBlockCount(partial: true, format: "an MFD file") == total)
        }
    }

    /// Classic cuts at the first block of the sector holding the block not read: 4 blocks a sector
    /// below block 128 of a 4K, 16 from sector 32 on (MF1S70yyX §8.6).
    @Test(arguments: [
        (CardType.mifareClassic1K, 14, 3, 12, 64),
        (.mifareClassic1K, 4, 1, 4, 64),
        (.mifareClassic4K, 130, 32, 128, 256),
        (.mifareClassic4K, 200, 36, 192, 256),
    ])
    func aBlockImageIsCutAtTheSectorOfItsFirstUnreadBlock(
        type: CardType, missing: Int, sector: Int, cut: Int, total: Int
    ) throws {
        let image = try Self.blocks(type, (0..<total).filter { $0 != missing })
        #expect(try image.readBlockCount(partial: true, format: "an .eml file") == cut)
        #expect(Self.message { try image.readBlockCount(partial: false, format: "an .eml file") }
            == "block \(missing) (sector \(sector)) of \(total) was not read; an .eml file has no mark for unread blocks and "
            + "would hold zeros there (\(Self.blockRisk)). Export only sectors 0–\(sector - 1) (partial), "
            + "or use JSON or Flipper .nfc")
    }

    @Test func aBlockImageMissingPartOfSector0HasNothingToWrite() throws {
        let image = try Self.blocks(.mifareClassic1K, (0..<64).filter { $0 != 2 })
        let empty = "block 2 (sector 0) of 64 was not read; an MFD file has no mark for unread blocks and would hold zeros "
            + "there (\(Self.blockRisk)), and sector 0 is incomplete: nothing to write. Use JSON or Flipper .nfc"
        for partial in [false, true] {
            #expect(Self.message { try image.readBlockCount(partial: partial, format: "an MFD file") } == empty)
        }
    }
}
