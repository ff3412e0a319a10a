import NFCCore
import Testing
@testable import PN532Sim

/// The ISO 15693 virtual tags (ST25DV64K, ICODE SLIX) and what the emulated PC/SC reader makes of
/// them: the ATR, Get Data, Read/Update Binary by block number (EXTENDED commands from block 256 on),
/// and raw ISO/IEC 15693-3 frames through the transparent session.
@Suite struct PCSCISO15693Tests {
    let field = RFField()
    let catalog = TagCatalog()

    func reader(_ yaml: String) throws -> PCSCReaderEmulation {
        let scenario = try Scenario.parse(yaml, file: "test.yaml")
        for spec in scenario.tags { try catalog.define(spec) }
        let id = try #require(scenario.tags.first?.id)
        let reader = PCSCReaderEmulation(field: field)
        reader.insert(field.place(try #require(catalog.tag(id: id)), id: id))
        return reader
    }

    func send(_ reader: PCSCReaderEmulation, _ hex: String) throws -> String {
        reader.process(try #require([UInt8](hex: hex))).hexString
    }

    /// Transparent exchange of `frame` (hex) inside a session; the card's answer (data object 97) in hex.
    func transceive(_ reader: PCSCReaderEmulation, _ frame: String) throws -> String {
        let bytes = try #require([UInt8](hex: frame))
        _ = reader.process([0xFF, 0xC2, 0x00, 0x00, 0x02, 0x81, 0x00])
        let answer = reader.process([0xFF, 0xC2, 0x00, 0x01, UInt8(bytes.count + 2), 0x95, UInt8(bytes.count)] + bytes)
        let prefix: [UInt8] = [0xC0, 0x03, 0x00, 0x90, 0x00, 0x92, 0x01, 0x00, 0x96, 0x02, 0x00, 0x00, 0x97]
        guard answer.starts(with: prefix) else { return "no answer: " + answer.hexString }
        return Array(answer.dropFirst(prefix.count + 1).dropLast(2)).hexString
    }

    static let st25dv = """
        tags:
          - id: sensor
            type: st25dv64k
            uid: E002260011223344
            ndef:
              - uri: https://example.com
        """

    @Test func st25dv64kHas2048BlocksReachedThroughTheExtendedCommands() throws {
        let reader = try reader(Self.st25dv)
        let tag = try #require(catalog.tag(id: "sensor") as? VirtualISO15693Tag)
        // Part 3 ATR: standard 0B (ISO 15693 part 3), no registered card name; TCK 63.
        #expect(reader.atr?.hexString == "3B8F8001804F0CA0000003060B00000000000063")
        #expect(try send(reader, "FFCA000000") == "44332211002602E09000", "the UID as on the air, LSB first")
        // An 8-byte CC (E2: two-byte addresses; MLEN 03FF) and the URI record's TLV.
        #expect(try send(reader, "FFB0000004") == "E24000019000")
        #expect(try send(reader, "FFB0000104") == "000003FF9000")
        #expect(try send(reader, "FFB0000204").hasPrefix("03"))
        #expect(try send(reader, "FFD607FF04CAFEF00D") == "9000")
        #expect(try send(reader, "FFB007FF04") == "CAFEF00D9000")
        #expect(Array(tag.memory.suffix(4)) == [0xCA, 0xFE, 0xF0, 0x0D])
        #expect(try send(reader, "FFD6010004DEADBEEF") == "9000")
        #expect(Array(tag.memory[1024..<1028]) == [0xDE, 0xAD, 0xBE, 0xEF], "block 256 is the first extended one")
        #expect(try send(reader, "FFB0080004") == "6A82", "block 2048 does not exist")
        #expect(try send(reader, "FFD6000003DEADBE") == "6700")
        #expect(try send(reader, "FFB0000005") == "6700")
    }

    @Test func st25dv64kSystemInformationNeedsTheExtendedCommand() throws {
        let reader = try reader(Self.st25dv)
        // GET SYSTEM INFORMATION: info flags 0B (no memory size), UID LSB first, DSFID, AFI, IC_REF 26.
        #expect(try transceive(reader, "022B") == "000B" + "44332211002602E0" + "0000" + "26")
        // EXTENDED GET SYSTEM INFORMATION for DSFID, AFI, size, IC reference: 2048 blocks (07FF LSB first), 4 bytes.
        #expect(try transceive(reader, "023B0F") == "000F" + "44332211002602E0" + "0000" + "FF0703" + "26")
        // Addressed EXTENDED READ SINGLE BLOCK of block 2047 after the write, and no LOCK BLOCK on an ST25DV.
        _ = try send(reader, "FFD607FF0401020304")
        #expect(try transceive(reader, "2230" + "44332211002602E0" + "FF07") == "0001020304")
        #expect(try transceive(reader, "2222" + "44332211002602E0" + "05") == "0101")
        // Addressed to another UID: no answer.
        #expect(try transceive(reader, "2220" + "0000000000000000" + "00").hasPrefix("no answer: C00301640"))
    }

    static let slix = """
        tags:
          - id: label
            type: icode_slix
            uid: E004011011223344
            ndef:
              - text: hi
            blocks:
              20: 0102030405060708
            locked_blocks: [21]
        """

    @Test func icodeSLIXHas28BlocksLockBlockAndNoExtendedCommands() throws {
        let reader = try reader(Self.slix)
        let tag = try #require(catalog.tag(id: "label") as? VirtualISO15693Tag)
        #expect(reader.atr?.hexString == "3B8F8001804F0CA0000003060B00140000000077", "card name 00 14 ICODE SLI")
        // A 4-byte CC: E1, version 1.0, MLEN 0D (108 bytes / 8), READ MULTIPLE BLOCKS + LOCK BLOCK.
        #expect(try send(reader, "FFB0000004") == "E1400D099000")
        #expect(try send(reader, "FFB0001404") == "010203049000")
        #expect(try send(reader, "FFB0001B04").hasSuffix("9000"))
        #expect(try send(reader, "FFB0001C04") == "6A82", "block 28 does not exist")
        #expect(try send(reader, "FFD6001504DEADBEEF") == "6986", "block 21 is locked")
        #expect(tag.lockedBlocks == [21])
        #expect(try transceive(reader, "022B") == "000F" + "44332211100104E0" + "0000" + "1B03" + "01")
        #expect(try transceive(reader, "023B0F") == "0101", "EXTENDED GET SYSTEM INFORMATION: command not supported")
        #expect(try transceive(reader, "02300000") == "0101")
        // LOCK BLOCK, then the block is read-only; locking again: already locked (11h).
        #expect(try transceive(reader, "2222" + "44332211100104E0" + "06") == "00")
        #expect(try transceive(reader, "2222" + "44332211100104E0" + "06") == "0111")
        #expect(try send(reader, "FFD6000604DEADBEEF") == "6986")
        #expect(tag.lockedBlocks == [6, 21])
        // READ SINGLE BLOCK with the option flag: the block security status first.
        #expect(try transceive(reader, "4220" + "06") == "0001" + "00000000")
        #expect(try transceive(reader, "4220" + "05") == "0000" + "00000000")
        // READ MULTIPLE BLOCKS 20 and 21.
        #expect(try transceive(reader, "02231401") == "00" + "0102030405060708")
    }

    /// The reader side's view: NFCCore's ISO 15693 family (its own tables) names both models the way
    /// the simulator's datasheet rows describe them, and dumps every block.
    @Test func nfcCoreIdentifiesAndDumpsTheVirtualTags() async throws {
        _ = try reader(Self.st25dv)
        let st25dv = VirtualTagTransport(tag: try #require(catalog.tag(id: "sensor")))
        let info = try await TagIdentifier.identify(st25dv)
        #expect(info.type == .iso15693_ST25DV)
        #expect(info.product?.name == "ST25DV64K")
        #expect(info.probes == ["GET SYSTEM INFORMATION: no size", "EXTENDED GET SYSTEM INFORMATION: 2048 blocks"])
        let dump = try await TagDumper.dump(info: info, transport: st25dv)
        #expect(dump.blocks.count == 2048)
        #expect(dump.blocks.prefix(2).flatMap(\.data) == [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0x03, 0xFF])
        let slixSpec = try Scenario.parse(Self.slix, file: "slix.yaml").tags[0]
        let slix = VirtualTagTransport(tag: try catalog.define(slixSpec))
        let slixInfo = try await TagIdentifier.identify(slix)
        #expect(slixInfo.type == .iso15693_ICODE_SLIX)
        #expect(slixInfo.product?.name == "ICODE SLIX")
        let slixDump = try await TagDumper.dump(info: slixInfo, transport: slix)
        #expect(slixDump.blocks.count == 28)
        #expect(slixDump.blocks.filter(\.locked).map(\.number) == [21])
        #expect(slixDump.blocks[20].data == [1, 2, 3, 4])
    }

    @Test func scenarioChecksISO15693Fields() throws {
        #expect(throws: SimulatorError.self) {
            try Scenario.parse("tags:\n  - id: a\n    type: icode_slix\n    uid: E004011011\n", file: "x.yaml")
        }
        #expect(throws: SimulatorError.self) {
            try catalog.define(Scenario.parse("tags:\n  - id: a\n    type: icode_slix\n    uid: E002260011223344\n", file: "x.yaml").tags[0])
        }
        #expect(throws: SimulatorError.self) {
            try Scenario.parse("tags:\n  - id: a\n    type: icode_slix\n    blocks:\n      0: 010203\n", file: "x.yaml")
        }
        #expect(throws: SimulatorError.self) {
            try catalog.define(Scenario.parse("tags:\n  - id: a\n    type: icode_slix\n    locked_blocks: [28]\n", file: "x.yaml").tags[0])
        }
        let spec = try Scenario.parse("tags:\n  - id: a\n    type: icode_slix\n", file: "x.yaml").tags[0]
        let tag = try #require(try catalog.define(spec) as? VirtualISO15693Tag)
        #expect(tag.target.uid.prefix(4) == [0xE0, 0x04, 0x01, 0x10], "a made-up UID keeps the SLIX prefix")
        let dump = try #require(TagMemoryDump.make(tag))
        #expect(dump.unit == 4)
        #expect(dump.memory.count == 112)
        #expect(TagKind(name: "ST25DV64K") == .st25dv64k)
    }
}
