import NFCCore
import PN532Sim
import Testing

/// The plain (keyless) service probe of a FeliCa dump: the cyclic attributes 0Dh / 0Fh are asked for
/// (JIS X 6319-4 §7.3.3; upstream asked for 09h / 0Bh twice), and no more than 4 blocks of each service
/// are read, one READ WITHOUT ENCRYPTION (Check) per block.
@Suite struct FeliCaPlainServiceTests {
    static let idm: [UInt8] = [0x01, 0x2E, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60]

    func blocks(_ count: Int, _ fill: UInt8) -> [[UInt8]] {
        (0..<count).map { [UInt8](repeating: fill &+ UInt8($0), count: 16) }
    }

    @Test func cyclicServicesAreFoundAndReadFourBlocksAtMost() async throws {
        // Service codes: number << 6 | attribute. 004Dh = cyclic R/W #1, 008Fh = cyclic read-only #2.
        let tag = try VirtualFeliCaTag(model: .standard, idm: Self.idm,
                                       services: [0x004D: blocks(6, 0xC0), 0x008F: blocks(3, 0xD0)])
        let transport = VirtualTagTransport(tag: tag)
        let dump = try await FeliCaDump.dump(info: CardInfo(type: .felicaStandard, uid: Self.idm), transport: transport)

        let requested = transport.sentCommands.filter { $0.first == 0x02 }.flatMap { command in
            stride(from: 10, to: command.count, by: 2).map { UInt16(command[$0]) | UInt16(command[$0 + 1]) << 8 }
        }
        #expect(requested.contains(0x000D) && requested.contains(0x000F), "cyclic attributes of service 0")
        #expect(requested.contains(0x004D) && requested.contains(0x008F))

        #expect(dump.files.map(\.identifier) == [[0x4D, 0x00], [0x8F, 0x00]])
        #expect(dump.files.map(\.name) == ["Cyclic Read/Write Service #1 (4 blocks)", "Cyclic Read-Only Service #2 (3 blocks)"])
        #expect(dump.files[0].data == blocks(4, 0xC0).flatMap { $0 })
        #expect(dump.files[1].data == blocks(3, 0xD0).flatMap { $0 })

        // One block per READ; service 004Dh is asked for blocks 0–3 only, 008Fh until it refuses block 3.
        let reads = transport.sentCommands.filter { $0.first == 0x06 }
        func readBlocks(_ service: [UInt8]) -> [UInt8] {
            reads.filter { Array($0[10...11]) == service }.map { command in
                #expect(command[9] == 1 && command[12] == 1, "one service, one block: \(command.hexString)")
                return command[14]
            }
        }
        #expect(readBlocks([0x4D, 0x00]) == [0, 1, 2, 3])
        #expect(readBlocks([0x8F, 0x00]) == [0, 1, 2, 3])
        #expect(dump.fact("Plain Service Snapshots") == "2")
        #expect(dump.ndefMessage == nil)
    }
}
