import Foundation
import Testing
@testable import NFCCore
@testable import PN532Sim

/// The Flipper `ISO15693-3` / `SLIX` import (Families/ISO15693/Formats/FlipperISO15693Import.swift),
/// against dumps of PN532Sim's ``VirtualISO15693Tag`` and a file from Flipper's own repository.
@Suite struct ISO15693FlipperImportTests {
    /// A dump of `tag` as NFCBridge reads it (identification, then the family's dump).
    static func dumpOf(_ tag: ISO15693TagLink) async throws -> TagDump {
        try await TagDumper.dump(info: try await TagIdentifier.identify(tag), transport: tag)
    }

    static func importFlipper(_ text: String) throws -> TagDump {
        try DumpImporter.importDump(Array(text.utf8))
    }

    /// What an import of `dump`'s Flipper file must be: the dump itself, less what Flipper's file cannot
    /// carry (the refinement probes), with `Imported From` as its first fact.
    static func expectedImport(of dump: TagDump) -> TagDump {
        var expected = dump
        expected.cardInfo.probes = []
        expected.facts.insert(Fact(key: "Imported From", value: "Flipper Zero .nfc"), at: 0)
        return expected
    }

    /// ICODE SLIX-class (28 blocks, LOCK BLOCK) and ST25DV-class tags (ST25DV04K, 128 blocks: the
    /// ST25DV64K's 2048 do not fit Flipper's file, `ExportISO15693FlipperTests`): export → import →
    /// export is byte-identical, and the import is the dump but for what the file cannot hold.
    @Test(arguments: [
        (VirtualISO15693Model.icodeSLIX, ISO15693TestTags.slixUID, 0x00 as UInt8, 0x00 as UInt8),
        (VirtualISO15693Model.plain("ST25DV04K", uid: ISO15693TestTags.st25dv04kUID, blockCount: 128, icReference: 0x24),
         ISO15693TestTags.st25dv04kUID, 0x26 as UInt8, 0x07 as UInt8),
    ])
    func exportImportExportIsByteIdentical(model: VirtualISO15693Model, uid: [UInt8], dsfid: UInt8, afi: UInt8) async throws {
        let message = ISO15693Tests.textMessage("flipper")
        // A Type 5 CC (E1 40, MLEN, 01), the NDEF TLV, then a pattern to the end of the memory.
        let area: [UInt8] = [0xE1, 0x40, UInt8(model.blockCount * 4 / 8 - 1), 0x01, 0x03, UInt8(message.count)] + message + [0xFE]
        let memory = area + (area.count..<(model.blockCount * 4)).map { UInt8(truncatingIfNeeded: $0 * 13) }
        let tag = try ISO15693TagLink(model, uid: uid, memory: memory)
        tag.tag.dsfid = dsfid
        tag.tag.afi = afi
        tag.setLocked(1)
        tag.setLocked(model.blockCount - 1)
        let dump = try await Self.dumpOf(tag)
        #expect(dump.blocks.count == model.blockCount)
        #expect(dump.ndefMessage == message)

        let file = try dump.exportFlipperNFC()
        let imported = try Self.importFlipper(file)
        #expect(try imported.exportFlipperNFC() == file)
        #expect(imported == Self.expectedImport(of: dump))
        #expect(try imported.exportJSON() == Self.expectedImport(of: dump).exportJSON())
        // Field by field, what Flipper's file carries comes back as the tag gave it.
        #expect(imported.cardInfo.uid == uid)
        #expect(imported.cardInfo.type == dump.cardInfo.type)
        #expect(imported.cardInfo.product?.name == model.name)
        #expect(imported.blocks == dump.blocks)
        #expect(imported.blocks.filter(\.locked).map(\.number) == [1, model.blockCount - 1])
        #expect(imported.ndefMessage == message)
        #expect(imported.family == dump.family)
        #expect(imported.iso15693System?.dsfidLocked == nil)
        #expect(imported.capabilities == [.readable])
        // … and what it cannot (the probes) is absent, not made up.
        #expect(!dump.cardInfo.probes.isEmpty)
        #expect(imported.cardInfo.probes.isEmpty)
        // JSON → Flipper of the import is the same file too.
        #expect(try TagDump.importJSON(Array(imported.exportJSON().utf8)).exportFlipperNFC() == file)
    }

    /// A file without the system information fields: the import has none of them (the tag's DSFID or
    /// AFI are not invented), and the export writes none.
    @Test func fieldsTheFileLeavesOutStayAbsent() throws {
        let file = """
            Filetype: Flipper NFC device
            Version: 4
            Device type: ISO15693-3
            UID: E0 16 01 02 03 04 05 06
            Lock DSFID: false
            Lock AFI: false
            Block Count: 2
            Block Size: 08
            Data Content: 00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F

            """
        let dump = try Self.importFlipper(file)
        #expect(dump.cardInfo.type == .iso15693_generic)
        #expect(dump.cardInfo.product == nil)
        #expect(dump.family == .iso15693(ISO15693SystemInfo(uid: dump.cardInfo.uid, blockCount: 2, blockSize: 8)))
        #expect(dump.blocks.map(\.data) == [Array(0..<8), Array(8..<16)])
        // No Security Status: Flipper's loader takes none too; the blocks are not known to be locked.
        #expect(dump.blocks.allSatisfy { !$0.locked })
        #expect(dump.facts.map(\.key) == ["Imported From", "IC Manufacturer", "Block Size", "Blocks"])
        let again = try dump.exportFlipperNFC()
        #expect(!again.contains("\nDSFID:") && !again.contains("\nAFI:") && !again.contains("\nIC Reference:"))
        #expect(again.contains("Block Size: 08\n"))
    }

    /// `Lock DSFID: true` is kept (a `false` cannot tell "unlocked" from "not known"), through JSON too.
    @Test func locksTheFileKnowsAreKept() throws {
        let file = """
            Filetype: Flipper NFC device
            Version: 4
            Device type: ISO15693-3
            UID: E0 04 01 50 12 34 56 78
            Lock DSFID: true
            Lock AFI: false
            Block Count: 1
            Block Size: 04
            Data Content: 01 02 03 04
            Security Status: 01

            """
        let dump = try Self.importFlipper(file)
        let system = try #require(dump.iso15693System)
        #expect(system.dsfidLocked == true)
        #expect(system.afiLocked == nil)
        #expect(dump.blocks == [Block(number: 0, data: [1, 2, 3, 4], locked: true)])
        #expect(dump.fact("DSFID Lock") == "Locked")
        #expect(dump.fact("AFI Lock") == nil)
        #expect(try dump.exportFlipperNFC() == file)
        let json = try dump.exportJSON(prettyPrinted: false)
        #expect(json.contains("\"dsfidLocked\":true"))
        #expect(!json.contains("afiLocked"))
        #expect(try TagDump.importJSON(Array(json.utf8)) == dump)
    }

    /// Flipper's legacy layout (no Lock keys): `Security Status` starts with the lock byte, bit 0 DSFID,
    /// bit 1 AFI; file Version 3 names the device `ISO15693`.
    @Test func theLegacySecurityLayoutAndDeviceTypeAreRead() throws {
        let dump = try Self.importFlipper("""
            Filetype: Flipper NFC device
            Version: 3
            Device type: ISO15693
            UID: E0 04 01 50 12 34 56 78
            DSFID: 00
            Block Count: 3
            Block Size: 04
            Data Content: 00 00 00 00 11 11 11 11 22 22 22 22
            Security Status: 02 00 01 00

            """)
        let system = try #require(dump.iso15693System)
        #expect(system.dsfidLocked == nil)
        #expect(system.afiLocked == true)
        #expect(system.dsfid == 0 && system.afi == nil)
        #expect(dump.blocks.filter(\.locked).map(\.number) == [1])
        #expect(dump.blocks[2].data == [0x22, 0x22, 0x22, 0x22])
    }

    // MARK: A file from Flipper's repository

    /// `Slix_cap_default.nfc`, a test asset of Flipper's own unit tests (flipperdevices/flipperzero-firmware,
    /// `applications/debug/unit_tests/resources/unit_tests/nfc/Slix_cap_default.nfc`, commit 2ac5bee8):
    /// an ICODE SLIX2 saved by a Flipper, its content as published (comment lines included).
    static let flipperSLIX2 = """
        Filetype: Flipper NFC device
        Version: 4
        # Device type can be ISO14443-3A, ISO14443-3B, ISO14443-4A, ISO14443-4B, ISO15693-3, FeliCa, NTAG/Ultralight, Mifare Classic, Mifare DESFire, SLIX, ST25TB
        Device type: SLIX
        # UID is common for all formats
        UID: E0 04 01 08 49 D0 DC 81
        # ISO15693-3 specific data
        # Data Storage Format Identifier
        DSFID: 01
        # Application Family Identifier
        AFI: 3D
        # IC Reference - Vendor specific meaning
        IC Reference: 01
        # Lock Bits
        Lock DSFID: true
        Lock AFI: true
        # Number of memory blocks, valid range = 1..256
        Block Count: 80
        # Size of a single memory block, valid range = 01...20 (hex)
        Block Size: 04
        Data Content: 03 0A 82 ED 86 39 61 D2 03 14 1E 32 B6 CA 00 3C 36 42 0C 33 53 30 37 32 32 34 30 30 00 00 00 00 00 FF 04 01 01 00 00 00 A3 03 1E 00 26 00 00 00 00 00 0F 00 76 03 65 01 00 00 00 00 85 01 34 00 75 09 05 00 01 00 00 00 00 00 00 00 00 00 00 00 D7 FA 00 1C 9E 1C 67 27 00 30 30 30 30 30 30 30 30 30 30 00 00 00 97 25 55 08 00 00 00 00 00 00 00 00 00 00 00 00 00 00 32 8C 00 30 53 48 80 DE 00 00 00 00 F4 C3 58 2B 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 11 F3 00 2C DD C3 3E 91 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 E5 FF 00 01
        # Block Security Status: 01 = locked, 00 = not locked
        Security Status: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
        # SLIX specific data
        # SLIX capabilities field affects emulation modes. Possible options: Default, Accept all passwords
        Capabilities: Default
        # Passwords are optional. If a password is omitted, a default value will be used
        Password Read: 00 00 00 00
        Password Write: 00 00 00 00
        Password Privacy: 0F 0F 0F 0F
        Password Destroy: 0F 0F 0F 0F
        Password EAS: 00 00 00 00
        # This is the card's secp128r1 elliptic curve signature. It can not be calculated without knowing NXP's private key.
        Signature: A6 25 54 03 74 24 C4 38 36 F4 89 70 76 1A 72 27 54 D9 E7 3D 38 CB 4C 1B 3E FD 0E DF 8A F6 7E 3D
        Privacy Mode: false
        # Protection pointer configuration
        Protection Pointer: 32
        Protection Condition: 02
        # SLIX Lock Bits
        Lock EAS: true
        Lock PPL: true

        """

    @Test func aFileFromFlippersRepositoryIsRead() throws {
        let dump = try Self.importFlipper(Self.flipperSLIX2)
        #expect(dump.cardInfo.uid == [0xE0, 0x04, 0x01, 0x08, 0x49, 0xD0, 0xDC, 0x81])
        #expect(dump.cardInfo.type == .iso15693_ICODE_SLIX2)
        #expect(dump.cardInfo.product?.name == "ICODE SLIX2")
        #expect(dump.blocks.count == 80)
        #expect(dump.blocks.allSatisfy { $0.data.count == 4 && !$0.locked })
        #expect(dump.blocks[0].data == [0x03, 0x0A, 0x82, 0xED])
        #expect(dump.blocks[1].data == [0x86, 0x39, 0x61, 0xD2])
        #expect(dump.blocks[8].data == [0x00, 0xFF, 0x04, 0x01])
        #expect(dump.blocks[79].data == [0xE5, 0xFF, 0x00, 0x01])
        #expect(dump.family == .iso15693(ISO15693SystemInfo(uid: dump.cardInfo.uid, dsfid: 0x01, afi: 0x3D, blockCount: 80,
                                                            blockSize: 4, icReference: 0x01, dsfidLocked: true,
                                                            afiLocked: true)))
        #expect(dump.ndefMessage == nil)  // block 0 is no Type 5 CC
        #expect(dump.fact("IC Manufacturer") == "NXP Semiconductors")
        #expect(dump.fact("SLIX Signature") == "A6 25 54 03 74 24 C4 38 36 F4 89 70 76 1A 72 27 54 D9 E7 3D 38 CB 4C 1B 3E FD 0E DF 8A F6 7E 3D")
        // Passwords are checked, never kept: no fact, export or JSON carries them.
        #expect(dump.fact("SLIX Password Privacy") == nil)
        #expect(dump.fact("SLIX Passwords") == "Read, Write, Privacy, Destroy, EAS in the file, not kept")
        let json = try dump.exportJSON()
        #expect(!json.contains("0F 0F 0F 0F") && !json.contains("Password Privacy"))
        #expect(dump.fact("SLIX Protection Pointer") == "32")
        #expect(dump.fact("SLIX Lock EAS") == "true")
        #expect(dump.fact("SLIX Privacy Mode") == "false")
        #expect(dump.fact("SLIX Capabilities") == "Default")
        // Written back as ISO15693-3 (NFCBridge writes no SLIX file): the same memory, locks and system
        // information, and that file reads back to the same blocks and system information.
        let file = try dump.exportFlipperNFC()
        #expect(file.contains("Device type: ISO15693-3\n"))
        #expect(file.contains("Lock DSFID: true\nLock AFI: true\nBlock Count: 80\nBlock Size: 04\nData Content: 03 0A 82 ED 86 39"))
        let again = try Self.importFlipper(file)
        #expect(again.blocks == dump.blocks)
        #expect(again.family == dump.family)
        #expect(try again.exportFlipperNFC() == file)
    }

    // MARK: Refusals

    /// The file the export writes for `ExportISO15693FlipperTests.dump()` (an ICODE SLIX-like tag of 4
    /// blocks, block 2 locked) with `line` replaced (or removed when `with` is nil).
    static func file(replacing line: String, with replacement: String?) throws -> String {
        let lines = try ExportISO15693FlipperTests.dump().exportFlipperNFC().split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix(line) }, "no line \(line)")
        return lines.compactMap { $0.hasPrefix(line) ? replacement : $0 }.joined(separator: "\n") + "\n"
    }

    @Test func theExportOfADumpReadsBackAsTheDump() throws {
        let dump = ExportISO15693FlipperTests.dump()
        let imported = try Self.importFlipper(try dump.exportFlipperNFC())
        #expect(imported.blocks == dump.blocks)
        #expect(imported.family == dump.family)
        #expect(imported.cardInfo.type == .iso15693_ICODE_SLIX)
        #expect(try imported.exportFlipperNFC() == dump.exportFlipperNFC())
        #expect(try Self.file(replacing: "DSFID:", with: "DSFID: 26") == dump.exportFlipperNFC())
        // Saved by a Windows editor: a byte-order mark first and CR LF line ends.
        let windows = "\u{FEFF}" + (try dump.exportFlipperNFC()).split(separator: "\n", omittingEmptySubsequences: false)
            .joined(separator: "\r\n")
        #expect(try Self.importFlipper(windows).blocks == dump.blocks)
    }

    @Test(arguments: [
        ("UID:", nil, "missing UID"),
        ("UID:", "UID: E0 04 01 50 12 34 56", "UID 'E0 04 01 50 12 34 56' is not an ISO 15693 UID (8 bytes, the first E0)"),
        ("UID:", "UID: E1 04 01 50 12 34 56 78", "is not an ISO 15693 UID"),
        ("UID:", "UID: E004015012345678", "UID 'E004015012345678' is not hex bytes separated by spaces"),
        ("DSFID:", "DSFID: 26 27", "DSFID has 2 bytes, not 1"),
        ("AFI:", "AFI: XY", "AFI 'XY' is not hex bytes"),
        ("Lock AFI:", nil, "Lock AFI is missing"),
        ("Lock DSFID:", "Lock DSFID: yes", "Lock DSFID 'yes' is not true or false"),
        ("Block Count:", nil, "missing Block Count"),
        ("Block Count:", "Block Count: 0", "Block Count '0' is not a decimal number of blocks, 1–256"),
        ("Block Count:", "Block Count: 257", "Block Count '257'"),
        ("Block Count:", "Block Count: 0x4", "Block Count '0x4'"),
        ("Block Count:", "Block Count: 99999999999999999999999", "Block Count '99999999999999999999'"),
        ("Block Size:", nil, "missing Block Size"),
        ("Block Size:", "Block Size: 21", "Block Size '21' is not one hex byte 01–20"),
        ("Block Size:", "Block Size: 00", "Block Size '00'"),
        ("Block Size:", "Block Size: 4", "Block Size '4' is not hex bytes"),
        ("Data Content:", nil, "missing Data Content"),
        ("Data Content:", "Data Content: 00 01 02 03 01 02 03 04 02 03 04 05 03 04 05",
         "Data Content has 15 bytes; Block Count × Block Size is 4 × 4 = 16"),
        ("Data Content:", "Data Content: 00 01 02 03 01 02 03 04 02 03 04 05 03 04 05 06 07",
         "Data Content has 17 bytes"),
        ("Data Content:", "Data Content: 00 01 02 03 01 02 03 04 02 03 04 05 03 04 05 0G", "Data Content '00 01"),
        ("Data Content:", "Data Content:", "Data Content '' is not hex bytes"),
        ("Security Status:", "Security Status: 00 00 01", "Security Status has 3 bytes; one byte per block: 4"),
        ("Security Status:", "Security Status: 00 00 02 00", "Security Status of block 2 is 02; a block is 00 (not locked) or 01 (locked)"),
    ] as [(String, String?, String)])
    func aMalformedFileIsRefusedNamingTheField(line: String, replacement: String?, message: String) throws {
        let text = try Self.file(replacing: line, with: replacement)
        DumpBoundsTests.expectError("malformed_dump", message) { try Self.importFlipper(text) }
        DumpBoundsTests.expectError("malformed_dump", message) {
            try DumpImporter.importDump(Array(text.utf8), format: .flipper)
        }
    }

    /// Legacy layout without the Lock keys: the lock byte first, so one more byte than blocks.
    @Test func aLegacySecurityStatusOfTheWrongLengthIsRefused() throws {
        let text = try Self.file(replacing: "Lock", with: nil)
        DumpBoundsTests.expectError("malformed_dump", "Security Status has 4 bytes; without Lock DSFID / Lock AFI it is a lock byte, then one byte per block: 5") {
            try Self.importFlipper(text)
        }
        let badLockByte = try Self.file(replacing: "Lock", with: nil)
            .replacingOccurrences(of: "Security Status: 00 00 01 00", with: "Security Status: 04 00 00 01 00")
        DumpBoundsTests.expectError("malformed_dump", "lock byte is 04") { try Self.importFlipper(badLockByte) }
    }

    @Test func malformedSLIXKeysAreRefused() {
        let signature = Self.flipperSLIX2.replacingOccurrences(of: "Signature: A6 25 ", with: "Signature: ")
        DumpBoundsTests.expectError("malformed_dump", "Signature has 30 bytes; a SLIX Signature has 32") {
            try Self.importFlipper(signature)
        }
        let notNXP = Self.flipperSLIX2.replacingOccurrences(of: "UID: E0 04 01 08", with: "UID: E0 02 01 08")
        DumpBoundsTests.expectError("malformed_dump", "UID 'E0 02 01 08 49 D0 DC 81' is not an NXP UID") {
            try Self.importFlipper(notNXP)
        }
        let privacy = Self.flipperSLIX2.replacingOccurrences(of: "Privacy Mode: false", with: "Privacy Mode: 0")
        DumpBoundsTests.expectError("malformed_dump", "Privacy Mode '0' is not true or false") { try Self.importFlipper(privacy) }
    }

    /// Only Version 4 names the device `ISO15693-3` / `SLIX`, only older ones `ISO15693` (Flipper's
    /// unified and legacy loaders); another name stays the other rows' (`unsupported`).
    @Test func deviceTypesOfTheWrongVersionAreNotISO15693Files() throws {
        let v4Legacy = try Self.file(replacing: "Device type:", with: "Device type: ISO15693")
        DumpBoundsTests.expectError("unsupported") { try Self.importFlipper(v4Legacy) }
        let v3Unified = try Self.file(replacing: "Version:", with: "Version: 3")
        DumpBoundsTests.expectError("unsupported") { try Self.importFlipper(v3Unified) }
        DumpBoundsTests.expectError("unsupported", "is not an ISO 15693 file") {
            try TagDump.importFlipperISO15693NFC(v4Legacy)
        }
    }
}
