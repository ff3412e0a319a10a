import Foundation
import Testing
@testable import NFCCore

/// Flipper Zero's own sample files (its unit-test assets, Fixtures/upstream/README.md) and the Proxmark3
/// files of the same tag written from the client's formats: NFCBridge imports each, exports it back in
/// that tool's format, and what it writes loads the same way.
@Suite struct UpstreamSampleInteropTests {
    static let ntag215UID: [UInt8] = [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81]
    static let pm3Name = "upstream/hf-mfu-04515CFA6F7381-dump"

    static func flipperNTAG215() throws -> TagDump {
        try DumpImporter.importDump(try ExportFixtures.bytes("upstream/Ntag215.nfc"))
    }

    /// What both tools' files carry of a Type 2 tag: product, UID, GET_VERSION, signature, counters,
    /// tearing flags and every page.
    static func expectSameTag(_ dump: TagDump, as reference: TagDump, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(dump.cardInfo.type == reference.cardInfo.type, sourceLocation: sourceLocation)
        #expect(dump.cardInfo.uid == reference.cardInfo.uid, sourceLocation: sourceLocation)
        #expect(dump.cardInfo.version == reference.cardInfo.version, sourceLocation: sourceLocation)
        #expect(dump.type2?.signature == reference.type2?.signature, sourceLocation: sourceLocation)
        #expect(dump.type2?.counters == reference.type2?.counters, sourceLocation: sourceLocation)
        #expect(dump.type2?.tearing == reference.type2?.tearing, sourceLocation: sourceLocation)
        #expect(dump.pages == reference.pages, sourceLocation: sourceLocation)
        #expect(dump.capabilities == reference.capabilities, sourceLocation: sourceLocation)
    }

    /// Flipper's `Ntag215.nfc` (file Version 3, data format 1): read as the NTAG215 it is, then written as
    /// a current file that reads back to the same dump, with the lines Flipper's loader needs.
    @Test func flippersNTAG215ReadsAndWritesBackAsFlipperReadsIt() throws {
        let dump = try Self.flipperNTAG215()
        #expect(dump.cardInfo.type == .ntag215)
        #expect(dump.cardInfo.uid == Self.ntag215UID)
        #expect(dump.cardInfo.atqa == [0x00, 0x44] && dump.cardInfo.sak == 0x00)
        #expect(dump.pages.count == 135)
        #expect(dump.pages[130].data == [0x01, 0x00, 0x0F, 0xBD])
        #expect(dump.type2?.counters == [0, 0, 95])
        #expect(dump.ndefMessage == nil, "an amiibo: page 4 holds no NDEF TLV")

        let written = try dump.exportFlipperNFC()
        for line in ["Filetype: Flipper NFC device", "Version: 4", "Device type: NTAG/Ultralight", "UID: 04 51 5C FA 6F 73 81",
                     "ATQA: 00 44", "SAK: 00", "NTAG/Ultralight type: NTAG215", "Mifare version: 00 04 04 02 01 00 11 03",
                     "Signature: 42 21 E4 6C 79 6A 81 5E EA 0D 93 6D 85 EE 4B 0C 2A 00 D5 77 F1 C5 67 F3 63 75 F8 EB 86 48 5E 6B",
                     "Counter 2: 95", "Pages total: 135", "Pages read: 135", "Page 134: 00 00 00 00"] {
            #expect(written.split(separator: "\n").contains(Substring(line)), "\(line)")
        }
        let again = try DumpImporter.importDump(Array(written.utf8))
        #expect(again == dump)
        #expect(try again.exportFlipperNFC() == written)
    }

    /// The same tag to Proxmark3: the `.bin` NFCBridge writes is, byte for byte, the `mfu_dump_t` written
    /// from the client's format; its JSON has the client's keys and values; both read back as the tag.
    @Test func flippersNTAG215GoesToProxmark3AndBack() throws {
        let dump = try Self.flipperNTAG215()
        let bin = try ExportFixtures.bytes(Self.pm3Name + ".bin")
        #expect(try dump.exportProxmark3MFU() == bin)
        Self.expectSameTag(try DumpImporter.importDump(bin, fileName: "hf-mfu-04515CFA6F7381-dump.bin"), as: dump)

        let json = try ExportFixtures.bytes(Self.pm3Name + ".json")
        let written = try dump.exportProxmark3JSON()
        let ours = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? NSDictionary
        let theirs = try JSONSerialization.jsonObject(with: Data(json)) as? NSDictionary
        #expect(ours != nil && ours == theirs)
        Self.expectSameTag(try DumpImporter.importDump(json), as: dump)
        Self.expectSameTag(try DumpImporter.importDump(Array(written.utf8)), as: dump)
        // Proxmark3's files back to Flipper: the same file as from Flipper's own.
        #expect(try DumpImporter.importDump(bin).pages == dump.pages)
    }

    /// Flipper's `Slix_cap_accept_all_pass.nfc` (`Device type: SLIX`, an ICODE SLIX2): read, written back
    /// as Flipper's ISO 15693 file, and read again to the same dump.
    @Test func flippersSLIX2ReadsAndWritesBack() throws {
        let dump = try DumpImporter.importDump(try ExportFixtures.bytes("upstream/Slix_cap_accept_all_pass.nfc"))
        #expect(dump.cardInfo.type == .iso15693_ICODE_SLIX2)
        #expect(dump.cardInfo.uid == [0xE0, 0x04, 0x01, 0x08, 0x49, 0xD0, 0xDC, 0x81])
        #expect(dump.blocks.count == 80)
        #expect(dump.blocks[79].data == [0xE5, 0xFF, 0x00, 0x01])
        #expect(dump.fact("SLIX Capabilities") == "Accept all passwords")
        let written = try dump.exportFlipperNFC()
        for line in ["Version: 4", "UID: E0 04 01 08 49 D0 DC 81", "DSFID: 01", "AFI: 3D", "IC Reference: 01", "Block Count: 80",
                     "Block Size: 04"] {
            #expect(written.split(separator: "\n").contains(Substring(line)), "\(line)")
        }
        let again = try DumpImporter.importDump(Array(written.utf8))
        #expect(again.blocks == dump.blocks)
        #expect(again.family == dump.family)
        #expect(again.cardInfo.type == dump.cardInfo.type)
        #expect(try again.exportFlipperNFC() == written)
    }

    /// Flipper's `Felica.nfc`: a device type NFCBridge does not import, refused naming it.
    @Test func flippersFeliCaFileIsRefusedNamingItsType() throws {
        let file = try ExportFixtures.bytes("upstream/Felica.nfc")
        DumpBoundsTests.expectError("unsupported", "device type 'FeliCa' is not imported") { try DumpImporter.importDump(file) }
    }
}
