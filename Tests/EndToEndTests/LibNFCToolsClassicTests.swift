import Foundation
import Testing
import TestSupport

extension LibNFCToolsTests {
    /// `nfc-mfclassic r a u` reads a virtual MIFARE Classic 1K with the default keys, byte for byte.
    @Suite struct ClassicTests {
        static let scenario = """
            tags:
              - id: badge
                type: classic_1k
                uid: DEADBEEF
                blocks:
                  1: 00112233445566778899AABBCCDDEEFF
                  4: 4E464342726964676520626164676500
                  62: 0102030405060708090A0B0C0D0E0F10
            timeline: [{at: 0, place: badge}]
            """

        @Test func readWithDefaultKeysGivesTheVirtualMemory() throws {
            let simulator = try SimulatorProcess(scenario: Self.scenario)
            defer { simulator.stop() }
            let dumpPath = LibNFCTools.file("badge.mfd", in: simulator)
            let result = try LibNFCTools.run("nfc-mfclassic", ["r", "a", "u", dumpPath], on: simulator)
            #expect(result.status == 0, "\(result.out)\(result.err)")
            #expect(result.out.contains("Done, 64 of 64 blocks read."), "\(result.out)")

            let dump = [UInt8](try #require(FileManager.default.contents(atPath: dumpPath)))
            var expected = try LibNFCTools.memory(of: "badge", on: simulator)
            // nfc-mfclassic writes the keys it knows into the trailers, not what the card returned: key A
            // is the factory key it authenticated with (the one stored), key B it never tried (zeros).
            for sector in 0..<16 {
                let trailer = (sector * 4 + 3) * 16
                expected.replaceSubrange((trailer + 10)..<(trailer + 16), with: [UInt8](repeating: 0, count: 6))
            }
            #expect(dump == expected)
        }

        @Test func sectorWithOtherKeysIsReadWithTheDictionary() throws {
            let simulator = try SimulatorProcess(scenario: """
                tags:
                  - id: badge
                    type: classic_1k
                    uid: DEADBEEF
                    blocks: {5: CAFEBABECAFEBABECAFEBABECAFEBABE}
                    keys: [{sector: 1, a: A0A1A2A3A4A5, b: B0B1B2B3B4B5}]
                timeline: [{at: 0, place: badge}]
                """)
            defer { simulator.stop() }
            let dumpPath = LibNFCTools.file("badge.mfd", in: simulator)
            let result = try LibNFCTools.run("nfc-mfclassic", ["r", "a", "u", dumpPath], on: simulator)
            #expect(result.status == 0, "\(result.out)\(result.err)")
            let dump = [UInt8](try #require(FileManager.default.contents(atPath: dumpPath)))
            // Sector 1 opened with A0A1A2A3A4A5 (third key of libnfc's list, after two failed AUTHs).
            #expect(Array(dump[(5 * 16)..<(6 * 16)]) == [0xCA, 0xFE, 0xBA, 0xBE].repeated(4))
            #expect(Array(dump[(7 * 16)..<(7 * 16 + 6)]) == [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5])
        }
    }
}

extension Array {
    fileprivate func repeated(_ count: Int) -> [Element] { (0..<count).flatMap { _ in self } }
}
