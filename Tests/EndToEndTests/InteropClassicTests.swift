import Foundation
import NFCCore
import Testing
import TestSupport

extension LibNFCToolsTests {
    /// Our MIFARE Classic dumps and libnfc's `nfc-mfclassic` (Debian's 1.8.0) read each other's MFD
    /// files, and the tool's MFD converts to a Flipper file that marks what the tool did not know.
    @Suite struct InteropClassicTests {
        typealias Product = Interop.Product

        /// Classic products `nfc-mfclassic` sizes by ATQA/SAK (peers-nfc.md §3.6).
        static let products = [
            Product(kind: "classic_mini", type: .mifareMini), Product(kind: "classic_1k", type: .mifareClassic1K),
            Product(kind: "classic_4k", type: .mifareClassic4K),
        ]

        /// `source`: every data block but block 0 holds a pattern, sector 1 has other keys (found by both
        /// dictionaries: A0A1A2A3A4A5 is libnfc's third key); `target`: factory-fresh. Only `placed` is in
        /// the field at the start.
        ///
        /// The last sector of a 4K opens with D3F7D3F7D3F7 (libnfc's second key), to get around a libnfc
        /// 1.8.0 bug: on a 4K, `nfc-mfclassic` first probes for a "DirectWrite" card by writing block 0
        /// back (`is_directwrite`); a genuine card refuses and halts, the tool does not re-select, and
        /// `read_card` spends its first dictionary key, FFFFFFFFFFFF, on the halted card before
        /// re-selecting for the next key — so a factory 4K ends with "authentication failed for block
        /// 0xff". With the second key the re-select comes first and the read goes through.
        static func scenario(_ product: Product, placed: String) throws -> String {
            let layout = try #require(product.layout)
            var keys = ["{sector: 1, a: A0A1A2A3A4A5, b: B0B1B2B3B4B5}"]
            if product.type == .mifareClassic4K { keys.append("{sector: 39, a: D3F7D3F7D3F7, b: FFFFFFFFFFFF}") }
            var blocks: [String] = []
            for sector in 0..<layout.sectorCount {
                let numbers = layout.blocks(ofSector: sector).dropLast().filter { $0 != 0 }
                guard let first = numbers.first else { continue }
                let data = numbers.flatMap { number in (0..<16).map { UInt8(truncatingIfNeeded: number * 5 + $0 + 1) } }
                blocks.append("      \(first): \(data.hexString)")
            }
            return """
                tags:
                  - id: source
                    type: \(product.kind)
                    uid: DEADBEEF
                    keys: [\(keys.joined(separator: ", "))]
                    blocks:
                \(blocks.joined(separator: "\n"))
                  - id: target
                    type: \(product.kind)
                    uid: 01020304
                timeline: [{at: 0, place: \(placed)}]
                """
        }

        /// c. `nfc-mfclassic r a u out.mfd` → `nfcbridge import out.mfd` → the blocks `nfcbridge dump`
        /// reads from the same tag, with key B as the tool writes it: zeros (it authenticates with key A
        /// only and stores the key it used). The import names those key B unknown, and a Flipper file
        /// made from it says `??` there.
        @Test(arguments: products)
        func toolReadImportsAsOurDump(product: Product) throws {
            let simulator = try SimulatorProcess(scenario: try Self.scenario(product, placed: "source"))
            defer { simulator.stop() }
            let layout = try #require(product.layout)
            let path = LibNFCTools.file("tool.mfd", in: simulator)
            let tool = try LibNFCTools.run("nfc-mfclassic", ["r", "a", "u", path], on: simulator)
            #expect(tool.status == 0, "\(tool.out)\(tool.err)")
            #expect(tool.out.contains("Done, \(layout.totalBlocks) of \(layout.totalBlocks) blocks read."), "\(tool.out)")
            #expect(try Interop.bytes(path).count == layout.totalBytes)

            let imported = try Interop.importFile(path)
            let ours = try Interop.dump(on: simulator)
            #expect(imported.cardInfo.type == product.type)
            #expect(ours.cardInfo.type == product.type)
            #expect(imported.cardInfo.uid == [0xDE, 0xAD, 0xBE, 0xEF])
            #expect(imported.cardInfo.uid == ours.cardInfo.uid)
            #expect(ours.blocks.count == layout.totalBlocks)

            var expected = Interop.blocks(ours)
            for sector in 0..<layout.sectorCount {
                guard let trailer = layout.trailerBlock(ofSector: sector) else { continue }
                expected[trailer]?.replaceSubrange(10..<16, with: [0, 0, 0, 0, 0, 0])
            }
            #expect(Interop.blocks(imported) == expected)
            // Our dump knows both keys of every sector; the tool's file only key A.
            #expect(ours.fact("Sectors Without Key B") == nil)
            #expect(imported.fact("Sectors Without Key B") == "0-\(layout.sectorCount - 1)")
            #expect(imported.fact("Sectors Without Key A") == nil)
            let sector1 = try #require(layout.trailerBlock(ofSector: 1))
            #expect(Interop.blocks(imported)[sector1]?.prefix(6) == [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5])

            let nfc = LibNFCTools.file("tool.nfc", in: simulator)
            let flipper = String(decoding: try Interop.export(path, format: "flipper", to: nfc), as: UTF8.self)
            #expect(flipper.contains("Block \(sector1): A0 A1 A2 A3 A4 A5 FF 07 80 69 ?? ?? ?? ?? ?? ??\n"))
            #expect(flipper.components(separatedBy: "?? ?? ?? ?? ?? ??\n").count - 1 == layout.sectorCount)
        }

        /// The libnfc 1.8.0 bug the 4K scenario avoids (see ``scenario(_:placed:)``), pinned: a factory 4K
        /// cannot be read by `nfc-mfclassic r`. If this fails, the installed libnfc no longer has it.
        @Test func factory4KDefeatsNfcMfclassic180() throws {
            let simulator = try SimulatorProcess(scenario: """
                tags: [{id: card, type: classic_4k, uid: DEADBEEF}]
                timeline: [{at: 0, place: card}]
                """)
            defer { simulator.stop() }
            let tool = try LibNFCTools.run("nfc-mfclassic", ["r", "a", "u", LibNFCTools.file("card.mfd", in: simulator)], on: simulator)
            #expect(tool.out.contains("Card is not DirectWrite"), "\(tool.out)")
            #expect(tool.out.contains("Error: authentication failed for block 0xff"), "\(tool.out)")
            // Our own dump reads the same card in full.
            #expect(try Interop.dump(on: simulator).blocks.count == 256)
        }

        /// d. `nfcbridge dump` → JSON → `nfcbridge export --format mfd` → `nfc-mfclassic w a u` onto a
        /// factory tag: the blocks libnfc 1.8.0 writes hold our data.
        ///
        /// libnfc 1.8.0 bug (libnfc-pty.md §6): `write_card` sits its write inside
        /// `if (is_first_block(uiBlock))`, so it writes only the first block of each sector — blocks 4, 8,
        /// … 60 of a 1K (block 0 is skipped as read-only) — while reporting "Done, 60 of 64 blocks
        /// written". Upstream fixed it after 1.8.0. This test pins that behaviour: if it fails because
        /// the other blocks were written too, the installed libnfc has the fix and the test should
        /// expect every data block and trailer.
        @Test func ourMFDWritesWithTheTool() throws {
            let product = Product(kind: "classic_1k", type: .mifareClassic1K)
            let simulator = try SimulatorProcess(scenario: try Self.scenario(product, placed: "source"))
            defer { simulator.stop() }
            let layout = try #require(product.layout)
            let json = LibNFCTools.file("source.json", in: simulator), mfd = LibNFCTools.file("ours.mfd", in: simulator)
            try Interop.dump(on: simulator, to: json)
            let ours = try Interop.export(json, format: "mfd", to: mfd)
            #expect(ours.count == 1024)
            let source = Interop.units(try LibNFCTools.memory(of: "source", on: simulator), 16)
            // Our MFD is the source's memory: every key is known (key B readable under the factory access bits).
            #expect(Interop.units(ours, 16) == source)

            try simulator.remove("source")
            try simulator.place("target")
            let factory = Interop.units(try LibNFCTools.memory(of: "target", on: simulator), 16)
            let tool = try LibNFCTools.run("nfc-mfclassic", ["w", "a", "u", mfd], on: simulator)
            #expect(tool.status == 0, "\(tool.out)\(tool.err)")
            let target = Interop.units(try LibNFCTools.memory(of: "target", on: simulator), 16)

            let firstBlocks = Set((1..<layout.sectorCount).compactMap { layout.firstBlock(ofSector: $0) })
            for number in 0..<layout.totalBlocks {
                if firstBlocks.contains(number) {
                    #expect(target[number] == source[number], "block \(number): written by nfc-mfclassic")
                    #expect(target[number] != factory[number], "block \(number)")
                } else {
                    // Block 0 (read-only), the other data blocks and the trailers: untouched by 1.8.0.
                    #expect(target[number] == factory[number], "block \(number): libnfc 1.8.0 writes only first blocks")
                }
            }
        }
    }
}
