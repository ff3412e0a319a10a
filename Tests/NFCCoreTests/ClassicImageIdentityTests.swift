import PN532Sim
import Testing
@testable import NFCCore

/// A cut (`--partial`) MIFARE Classic image is its own product, read as partial, even when its size is
/// another product's whole memory (issue 23): the SAK in the manufacturer block (MF1S50yyX §8.6.1) or
/// the Proxmark3 JSON `Card.SAK` decides (``ClassicImageIdentity``).
@Suite struct ClassicImageIdentityTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
    static let secret: [UInt8] = [0x13, 0x57, 0x9B, 0xDF, 0x24, 0x68]

    /// A card of `model` whose sector `locked` opens with no dictionary key, dumped in process.
    static func dump(_ model: VirtualClassicTag.Model, locked: Int) async throws -> TagDump {
        let tag = try VirtualClassicTag(model: model, uid: uid)
        tag.setKeys(sector: locked, a: secret, b: secret, accessBits: [0x7F, 0x07, 0x88, 0x69])
        return try await ExportClassicTests.dumpOf(tag)
    }

    static func expectCut(_ dump: TagDump, _ type: CardType, read: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(dump.cardInfo.type == type, sourceLocation: sourceLocation)
        #expect(dump.fact("Blocks Read") == read, sourceLocation: sourceLocation)
        #expect(dump.capabilities.contains(.partiallyReadable), sourceLocation: sourceLocation)
    }

    /// A 1K cut before sector 5 is 320 bytes, a Mini's size: still a 1K, 20 of 64 blocks, through every
    /// reader of block images (detected, MFD, Proxmark3 `hf mf`, `.eml`). Before: "MIFARE Mini", complete.
    @Test func aOneKCutOfMiniSizeIsAOneK() async throws {
        let dump = try await Self.dump(.classic1K, locked: 5)
        let image = try dump.exportClassicMFD(partial: true)
        #expect(image.count == 320)
        Self.expectCut(try DumpImporter.importDump(image), .mifareClassic1K, read: "20 of 64")
        Self.expectCut(try DumpImporter.importDump(image, format: .mfd), .mifareClassic1K, read: "20 of 64")
        Self.expectCut(try DumpImporter.importDump(image, format: .pm3), .mifareClassic1K, read: "20 of 64")
        let eml = try dump.exportProxmark3ClassicEML(partial: true)
        Self.expectCut(try DumpImporter.importDump(Array(eml.utf8)), .mifareClassic1K, read: "20 of 64")
        let json = try dump.exportClassicProxmarkJSON(partial: true)
        Self.expectCut(try DumpImporter.importDump(Array(json.utf8)), .mifareClassic1K, read: "20 of 64")
        #expect(try DumpImporter.importDump(image).blocks == dump.blocks.filter { $0.number < 20 })
    }

    /// A 4K cut before sector 32 is 2048 bytes, a Plus 2K's size: still a 4K (SAK 18h), 128 of 256.
    @Test func aFourKCutOfPlus2KSizeIsAFourK() async throws {
        let dump = try await Self.dump(.classic4K, locked: 32)
        let image = try dump.exportClassicMFD(partial: true)
        #expect(image.count == 2048)
        Self.expectCut(try DumpImporter.importDump(image), .mifareClassic4K, read: "128 of 256")
    }

    /// A 4K cut before sector 35 (2816 bytes, no product's size) named `--format pm3` is a 4K, not a
    /// Proxmark3 MFU file; a 1K cut before sector 7 (448 bytes) is a 1K.
    @Test func cutsOfNoProductsSizeAreRead() async throws {
        let fourK = try await Self.dump(.classic4K, locked: 35).exportClassicMFD(partial: true)
        #expect(fourK.count == 2816)
        Self.expectCut(try DumpImporter.importDump(fourK, format: .pm3), .mifareClassic4K, read: "176 of 256")
        Self.expectCut(try DumpImporter.importDump(fourK), .mifareClassic4K, read: "176 of 256")
        let oneK = try await Self.dump(.classic1K, locked: 7).exportClassicMFD(partial: true)
        Self.expectCut(try DumpImporter.importDump(oneK, format: .mfd), .mifareClassic1K, read: "28 of 64")
    }

    /// Whole images stay what their size and SAK say: a Mini (SAK 09h) is a Mini, a 2048-byte image
    /// with SAK 08h a Plus 2K, a 1K with a clone's SAK byte that names nothing larger a 1K.
    @Test func wholeImagesKeepTheirProduct() async throws {
        let mini = try await ExportClassicTests.dumpOf(try VirtualClassicTag(model: .mini, uid: Self.uid))
        let miniImport = try DumpImporter.importDump(try mini.exportClassicMFD())
        #expect(miniImport.cardInfo.type == .mifareMini)
        #expect(!miniImport.capabilities.contains(.partiallyReadable))
        #expect(ClassicImageIdentity(byteCount: 2048, sak: 0x08)?.fileType.type == .mifarePlusSL1_2K)
        #expect(ClassicImageIdentity(byteCount: 1024, sak: 0x09)?.fileType.type == .mifareClassic1K)
        #expect(ClassicImageIdentity(byteCount: 1024, sak: 0x18) == ClassicImageIdentity(byteCount: 1024, sak: 0x18))
        #expect(ClassicImageIdentity(byteCount: 1024, sak: 0x18)?.fileType.type == .mifareClassic4K)
    }

    /// The rule's edges: a cut ends at a sector's first block of the SAK's product; no SAK, no cut.
    @Test func cutsNeedTheSAKAndASectorBoundary() {
        #expect(ClassicImageIdentity(byteCount: 448, sak: nil) == nil)
        #expect(ClassicImageIdentity(byteCount: 448 + 16, sak: 0x08) == nil)  // inside sector 7
        #expect(ClassicImageIdentity(byteCount: 1536, sak: 0x08)?.fileType.type == .mifarePlusSL1_2K)
        #expect(ClassicImageIdentity(byteCount: 2048 + 64, sak: 0x18) == nil)  // inside sector 32 (16 blocks)
        #expect(ClassicImageIdentity(byteCount: 0, sak: 0x08) == nil)
        #expect(ClassicImageIdentity(byteCount: 4096 + 256, sak: 0x18) == nil)
        let error = #expect(throws: NFCError.self) { try TagDump.importClassicMFD([UInt8](repeating: 0x11, count: 448)) }
        #expect(error?.message.contains("a cut (--partial) image needs the SAK in its manufacturer block") == true,
                "\(error?.message ?? "")")
    }

    /// A Type 2 page image (valid BCC0 and BCC1) is never read as a Classic cut, whatever its UID bytes.
    @Test func aType2PageImageIsNoClassicCut() {
        // UID 04 11 22 88 08 33 44: BCC0 = 88^04^11^22, BCC1 = 88^08^33^44; bytes 0–3 XOR to 88h, so
        // byte 4 passes the Classic BCC check and byte 5 reads as SAK 08h.
        let uid: [UInt8] = [0x04, 0x11, 0x22, 0x88, 0x08, 0x33, 0x44]
        let page0 = Array(uid[0..<3]) + [ISO14443.bcc([0x88] + uid[0..<3])]
        let page1 = Array(uid[3..<7])
        var image = page0 + page1 + [ISO14443.bcc(page1), 0x48, 0, 0] + [0xE1, 0x10, 0x06, 0x00]
        image += [UInt8](repeating: 0, count: 64 - image.count)
        #expect(ClassicImageIdentity.sakInManufacturerBlock(image) == 0x08)
        #expect(ClassicImageIdentity(image: image) == nil)
        #expect(DumpImporter.detectFormat(image) == .mfd)
        #expect((try? DumpImporter.importDump(image))?.cardInfo.type == .mifareUltralight)
    }
}
