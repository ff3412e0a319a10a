import NFCCore
import Testing
@testable import PN532Sim

/// The simulator's ISO 15693 tags (its own datasheet rows, `VirtualTags/ISO15693`) dumped by NFCCore,
/// through Flipper's `ISO15693-3` file and back.
@Suite struct ISO15693FlipperSimulatorTests {
    let catalog = TagCatalog()

    func dump(_ yaml: String) async throws -> TagDump {
        let spec = try #require(try Scenario.parse(yaml, file: "test.yaml").tags.first)
        let transport = VirtualTagTransport(tag: try catalog.define(spec))
        return try await TagDumper.dump(info: try await TagIdentifier.identify(transport), transport: transport)
    }

    /// The ICODE SLIX of `PCSCISO15693Tests` (NDEF text, block 20 written, block 21 locked): export →
    /// import → export is byte-identical and the import holds the tag's memory, locks, system
    /// information and NDEF message.
    @Test func icodeSLIXRoundTripsThroughFlipper() async throws {
        let dump = try await dump(PCSCISO15693Tests.slix)
        let file = try dump.exportFlipperNFC()
        let imported = try DumpImporter.importDump(Array(file.utf8))
        #expect(try imported.exportFlipperNFC() == file)
        #expect(imported.blocks == dump.blocks)
        #expect(imported.blocks.filter(\.locked).map(\.number) == [21])
        #expect(imported.family == dump.family)
        #expect(imported.cardInfo.product?.name == "ICODE SLIX")
        #expect(imported.ndefMessage == dump.ndefMessage)
        #expect(imported.ndefMessage != nil)
        #expect(imported.fact("Imported From") == "Flipper Zero .nfc")
    }

    /// The ST25DV64K's 2048 blocks do not fit Flipper's file (1–256): refused, never cut.
    @Test func st25dv64kIsRefusedByTheFlipperExport() async throws {
        let dump = try await dump(PCSCISO15693Tests.st25dv)
        #expect(dump.blocks.count == 2048)
        let error = #expect(throws: NFCError.self) { try dump.exportFlipperNFC() }
        #expect(error?.code == "unsupported")
        #expect(error?.message.contains("at most 256 blocks") == true)
    }
}
