import Foundation
import NFCCore
import Testing
import TestSupport

extension LibNFCToolsTests {
    /// Our Type 2 dumps and libnfc's `nfc-mfultralight` (Debian's 1.8.0) read each other's MFD files:
    /// the tool's dump of a virtual tag imports to the pages `nfcbridge dump` reads from the same tag,
    /// and the MFD `nfcbridge export` makes from our dump writes the same user memory onto another tag.
    @Suite struct InteropUltralightTests {
        typealias Product = Interop.Product

        /// Products `nfc-mfultralight` types by their GET_VERSION answer (peers-nfc.md §3.6).
        static let products = [
            Product(kind: "ntag213", type: .ntag213), Product(kind: "ntag215", type: .ntag215),
            Product(kind: "ntag216", type: .ntag216), Product(kind: "ultralight_ev1_11", type: .mifareUltralightEV1_MF0UL11),
            Product(kind: "ultralight_ev1_21", type: .mifareUltralightEV1_MF0UL21),
        ]

        /// Two tags of `product`: `source` with an NDEF URI and a marker in its last user page,
        /// `target` factory-fresh; `placed` is in the field from the start.
        static func scenario(_ product: Product, placed: String) throws -> String {
            let last = try #require(product.map?.userEnd)
            return """
                tags:
                  - id: source
                    type: \(product.kind)
                    uid: 04A1B2C3D4E5F6
                    ndef: [{uri: https://example.com/nfcbridge/interop}]
                    pages: {\(last): A5C3E1F0}
                  - id: target
                    type: \(product.kind)
                    uid: 04112233445566
                timeline: [{at: 0, place: \(placed)}]
                """
        }

        /// Pages a READ answers with zeros whatever they hold (PWD, PACK: NTAG21x §8.8.1, MF0ULX1 §8.8.1).
        static func unreadable(_ product: Product) -> Set<Int> {
            Set([product.map?.passwordPage, product.map?.packPage].compactMap { $0 })
        }

        /// a. `nfc-mfultralight r out.mfd` → `nfcbridge import out.mfd` → the pages `nfcbridge dump` reads
        /// and the virtual tag holds, PWD/PACK aside.
        @Test(arguments: products)
        func toolReadImportsAsOurDump(product: Product) throws {
            let simulator = try SimulatorProcess(scenario: try Self.scenario(product, placed: "source"))
            defer { simulator.stop() }
            let path = LibNFCTools.file("tool.mfd", in: simulator)
            let tool = try LibNFCTools.run("nfc-mfultralight", ["r", path], on: simulator)
            #expect(tool.status == 0, "\(tool.out)\(tool.err)")
            let map = try #require(product.map)
            #expect(tool.out.contains("\(map.totalPages) of \(map.totalPages) pages read"), "\(tool.out)")

            let imported = try Interop.importFile(path)
            let ours = try Interop.dump(on: simulator)
            let memory = Interop.units(try LibNFCTools.memory(of: "source", on: simulator), 4)
            #expect(imported.cardInfo.type == product.type)
            #expect(ours.cardInfo.type == product.type)
            #expect(imported.cardInfo.uid == ours.cardInfo.uid)
            #expect(imported.ndefMessage == ours.ndefMessage)
            #expect(imported.ndefMessage != nil)

            let importedPages = Interop.pages(imported), ourPages = Interop.pages(ours)
            #expect(importedPages.count == map.totalPages)
            for number in 0..<map.totalPages where !Self.unreadable(product).contains(number) {
                #expect(importedPages[number] == memory[number], "page \(number) vs the virtual tag")
                #expect(importedPages[number] == ourPages[number], "page \(number) vs nfcbridge dump")
            }
            for number in Self.unreadable(product) { #expect(importedPages[number] == [0, 0, 0, 0]) }
        }

        /// b. `nfcbridge dump` → JSON → `nfcbridge export --format mfd` → `nfc-mfultralight w` onto a
        /// factory tag of the same type → the target's user memory is the source's.
        ///
        /// The tool (1.8.0) needs no UID match and writes pages 4 … last, asking before the OTP/CC page,
        /// the lock bytes, the dynamic lock page and the UID (we answer no to each, as its default); it
        /// also writes the PWD/PACK pages from the file, which are zeros.
        @Test(arguments: products)
        func ourMFDWritesWithTheTool(product: Product) throws {
            let simulator = try SimulatorProcess(scenario: try Self.scenario(product, placed: "source"))
            defer { simulator.stop() }
            let json = LibNFCTools.file("source.json", in: simulator), mfd = LibNFCTools.file("ours.mfd", in: simulator)
            try Interop.dump(on: simulator, to: json)
            let map = try #require(product.map)
            #expect(try Interop.export(json, format: "mfd", to: mfd).count == map.totalPages * 4)
            let source = try LibNFCTools.memory(of: "source", on: simulator)

            try simulator.remove("source")
            try simulator.place("target")
            let tool = try LibNFCTools.run("nfc-mfultralight", ["w", mfd], on: simulator, input: "n\nn\nn\nn\n")
            #expect(tool.status == 0, "\(tool.out)\(tool.err)")
            #expect(tool.out.contains("0 pages failed"), "\(tool.out)")

            let target = try LibNFCTools.memory(of: "target", on: simulator)
            let user = (map.userStart * 4)..<((map.userEnd + 1) * 4)
            #expect(Array(target[user]) == Array(source[user]))
            #expect(Array(target[user]) != [UInt8](repeating: 0, count: user.count))
            // The UID pages were not written: the target keeps its own UID.
            #expect(Array(target[0..<3]) == [0x04, 0x11, 0x22])
            // And the tag now reads back, through our dump, as the source did.
            #expect(try Interop.dump(on: simulator).ndefMessage == TagDump.importJSON(try Interop.bytes(json)).ndefMessage)
        }
    }
}
