import Testing
@testable import NFCCore

/// Flipper's `ISO15693-3` file (flipperzero-firmware `lib/nfc/protocols/iso15693_3/iso15693_3.c`).
@Suite struct ExportISO15693FlipperTests {
    static let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x56, 0x78]

    /// An ICODE SLIX-like dump of `count` blocks (block n holds n, n+1, n+2, n+3; block 2 locked).
    static func dump(count: Int = 4, read: Int? = nil, system: Bool = true) -> TagDump {
        let blocks = (0..<(read ?? count)).map { number in
            Block(number: number, data: (0..<4).map { UInt8(truncatingIfNeeded: number + $0) }, locked: number == 2)
        }
        let info = ISO15693SystemInfo(uid: uid, dsfid: 0x26, afi: 0x00, blockCount: count, blockSize: 4, icReference: 0x01)
        return TagDump(cardInfo: CardInfo(type: .iso15693_ICODE_SLIX, uid: uid), blocks: blocks,
                       family: system ? .iso15693(info) : .none)
    }

    @Test func writesTheKeysFlippersLoaderReads() throws {
        #expect(try Self.dump().exportFlipperNFC() == """
            Filetype: Flipper NFC device
            Version: 4
            Device type: ISO15693-3
            UID: E0 04 01 50 12 34 56 78
            DSFID: 26
            AFI: 00
            IC Reference: 01
            Lock DSFID: false
            Lock AFI: false
            Block Count: 4
            Block Size: 04
            Data Content: 00 01 02 03 01 02 03 04 02 03 04 05 03 04 05 06
            Security Status: 00 00 01 00

            """)
        // Without system information the blocks give the count and size; DSFID, AFI, IC Reference are left out.
        let bare = try Self.dump(system: false).exportFlipperNFC()
        #expect(bare.contains("Block Count: 4\nBlock Size: 04\n"))
        #expect(!bare.contains("\nDSFID:") && !bare.contains("\nAFI:"))
    }

    @Test func aTagNotReadInFullIsRefused() {
        DumpBoundsTests.expectError("partial_dump", "block 3 of 4 was not read") { try Self.dump(read: 3).exportFlipperNFC() }
    }

    /// An ST25DV64K (2048 blocks) does not fit Flipper's file.
    @Test func moreThan256BlocksAreUnsupported() {
        DumpBoundsTests.expectError("unsupported", "at most 256 blocks; this ICODE SLIX (ISO 15693) has 2048") {
            try Self.dump(count: 2048).exportFlipperNFC()
        }
        #expect((try? Self.dump(count: 256).exportFlipperNFC()) != nil)
    }

    /// The JSON file of a reviewed crash: `"blockCount": -1` entered unchecked and the Flipper export
    /// trapped on `0..<-1`. The JSON import bounds the `iso15693` key where it enters: ISO/IEC 15693-3
    /// has 1–65536 blocks (EXTENDED GET SYSTEM INFORMATION: blocks − 1 in 2 bytes) of 1–32 bytes.
    @Test(arguments: [
        (#""blockCount":-1,"blockSize":4"#, "iso15693.blockCount -1"),
        (#""blockCount":0"#, "iso15693.blockCount 0"),
        (#""blockCount":65537"#, "iso15693.blockCount 65537"),
        (#""blockCount":9223372036854775807"#, "iso15693.blockCount 9223372036854775807"),
        (#""blockSize":0"#, "iso15693.blockSize 0"),
        (#""blockSize":33"#, "iso15693.blockSize 33"),
        (#""blockCount":28,"blockSize":-4"#, "iso15693.blockSize -4"),
    ] as [(String, String)])
    func jsonImportRefusesACountOrSizeNoTagHas(keys: String, text: String) {
        let json = #"{"cardType":"ICODE SLIX (ISO 15693)","uid":"E004015012345678","blocks":[{"number":0,"data":"00112233"}],"#
            + #""iso15693":{\#(keys)}}"#
        DumpBoundsTests.expectError("malformed_dump", text) { try DumpImporter.importDump(Array(json.utf8)) }
        DumpBoundsTests.expectError("malformed_dump", text) { try TagDump.importJSON(Array(json.utf8)) }
    }

    /// The exporter does not trust its dump either: a block count or block numbers no tag has (a dump
    /// built in code) are refused, never a trap, and the file-format table does not offer Flipper for them.
    @Test func exportRefusesACountNoTagHas() {
        for count in [-1, 0, Int.min] {
            var dump = Self.dump()
            dump.family = .iso15693(ISO15693SystemInfo(uid: Self.uid, blockCount: count, blockSize: 4))
            DumpBoundsTests.expectError("malformed_dump", "block count \(count)") { try dump.exportFlipperNFC() }
            #expect(!ExportFormat.flipper.holds(dump))
        }
        // Without system information the count is one past the highest block: no overflow at Int.max.
        let farBlock = TagDump(cardInfo: CardInfo(type: .iso15693_ICODE_SLIX, uid: Self.uid),
                               blocks: [Block(number: Int.max, data: [0, 1, 2, 3])])
        DumpBoundsTests.expectError("unsupported", "at most 256 blocks") { try farBlock.exportFlipperNFC() }
        let negativeBlock = TagDump(cardInfo: CardInfo(type: .iso15693_ICODE_SLIX, uid: Self.uid),
                                    blocks: [Block(number: -5, data: [0, 1, 2, 3])])
        DumpBoundsTests.expectError("malformed_dump", "block count -4") { try negativeBlock.exportFlipperNFC() }
    }
}
