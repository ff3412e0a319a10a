import Foundation
import NFCCore
import Testing
import TestSupport

extension LibNFCToolsTests {
    /// `nfc-mfultralight r` reads exactly the virtual NTAG's memory; `w` writes a dump back into it.
    @Suite struct UltralightTests {
        static let scenario = """
            tags:
              - id: sticker
                type: ntag215
                uid: 04A1B2C3D4E5F6
                ndef:
                  - uri: https://example.com/nfcbridge
                  - text: Hello from the simulator
            timeline: [{at: 0, place: sticker}]
            """

        /// NTAG215 pages whose READ answers zeros whatever they hold (PWD, PACK: NTAG213/215/216 §8.8.1).
        static let unreadablePages = [Type2MemoryMap.forType(.ntag215)?.passwordPage, Type2MemoryMap.forType(.ntag215)?.packPage]
            .compactMap { $0 }

        static func readable(_ memory: [UInt8]) -> [UInt8] {
            var memory = memory
            for page in unreadablePages { memory.replaceSubrange(page * 4..<page * 4 + 4, with: [0, 0, 0, 0]) }
            return memory
        }

        @Test func readGivesTheVirtualMemory() throws {
            let simulator = try SimulatorProcess(scenario: Self.scenario)
            defer { simulator.stop() }
            let dumpPath = LibNFCTools.file("sticker.mfd", in: simulator)
            let result = try LibNFCTools.run("nfc-mfultralight", ["r", dumpPath], on: simulator)
            #expect(result.status == 0, "\(result.out)\(result.err)")
            #expect(result.out.contains("NTAG215"), "\(result.out)")
            #expect(result.out.contains("135 of 135 pages read"), "\(result.out)")

            let dump = try #require(FileManager.default.contents(atPath: dumpPath))
            let memory = try LibNFCTools.memory(of: "sticker", on: simulator)
            #expect(memory.count == 135 * 4)
            #expect([UInt8](dump) == Self.readable(memory))
        }

        @Test func writeStoresTheDumpInTheTag() throws {
            let simulator = try SimulatorProcess(scenario: Self.scenario)
            defer { simulator.stop() }
            let dumpPath = LibNFCTools.file("sticker.mfd", in: simulator)
            #expect(try LibNFCTools.run("nfc-mfultralight", ["r", dumpPath], on: simulator).status == 0)

            // New user data: pages 4…129 get a counting pattern.
            var dump = [UInt8](try #require(FileManager.default.contents(atPath: dumpPath)))
            for offset in (4 * 4)..<(130 * 4) { dump[offset] = UInt8(truncatingIfNeeded: offset * 7) }
            try Data(dump).write(to: URL(fileURLWithPath: dumpPath))

            // Answer "no" to the OTP, lock, dynamic lock and UID questions.
            let result = try LibNFCTools.run("nfc-mfultralight", ["w", dumpPath], on: simulator, input: "n\nn\nn\nn\n")
            #expect(result.status == 0, "\(result.out)\(result.err)")
            #expect(result.out.contains("0 pages failed"), "\(result.out)")

            let memory = try LibNFCTools.memory(of: "sticker", on: simulator)
            #expect(Array(memory[(4 * 4)..<(130 * 4)]) == Array(dump[(4 * 4)..<(130 * 4)]))
            // UID pages were skipped, so they still hold the UID.
            #expect(Array(memory[0..<3]) == [0x04, 0xA1, 0xB2])
        }
    }
}
