import NFCCore
import Synchronization
import PN532Sim
import Testing

@Suite struct ClassicLayoutTests {
    @Test func layoutsPerProduct() {
        #expect(ClassicLayout.mini.sectorCount == 5)
        #expect(ClassicLayout.mini.totalBlocks == 20)
        #expect(ClassicLayout.classic1K.totalBlocks == 64)
        #expect(ClassicLayout.classic1K.sector(ofBlock: 63) == 15)
        #expect(ClassicLayout.classic1K.sector(ofBlock: 64) == nil)
        let k4 = ClassicLayout.classic4K
        #expect(k4.sectorCount == 40)
        #expect(k4.totalBlocks == 256)
        #expect(k4.totalBytes == 4096)
        #expect(k4.firstBlock(ofSector: 31) == 124)
        #expect(k4.firstBlock(ofSector: 32) == 128)
        #expect(k4.trailerBlock(ofSector: 32) == 143)
        #expect(k4.trailerBlock(ofSector: 39) == 255)
        #expect(k4.sector(ofBlock: 128) == 32)
        #expect(k4.sector(ofBlock: 255) == 39)
        #expect(k4.blocks(ofSector: 33) == Array(144...159))
        #expect(k4.isTrailer(143))
        #expect(!k4.isTrailer(142))
        // 16-block sectors: access groups of 5 blocks (MF1S70yyX §8.7.1).
        #expect([128, 132, 133, 137, 138, 142, 143].map { k4.accessGroup(ofBlock: $0) } == [0, 0, 1, 1, 2, 2, 3])
        #expect(k4.blockCount(ofSector: 40) == nil)
        #expect(ClassicLayout.forType(.mifarePlusSL1_2K)?.totalBlocks == 128)
        #expect(ClassicLayout.forType(.ntag215) == nil)
    }
}

@Suite struct AccessBitsTests {
    @Test(arguments: [
        // Factory/transport: data 000, trailer 001.
        ("FF0780", ["000", "000", "000", "001"]),
        // NFC Forum NDEF sector (read/write): data 000, trailer 011.
        ("7F0788", ["000", "000", "000", "011"]),
        // MAD sector: data 100 (write with key B), trailer 011.
        ("787788", ["100", "100", "100", "011"]),
        // NDEF read-only sector: data 010, trailer 110.
        ("078F0F", ["010", "010", "010", "110"]),
    ])
    func decodesVectors(hex: String, conditions: [String]) throws {
        let bytes = try #require([UInt8](hex: hex))
        let bits = try AccessBits.decode(bytes + [0x69])
        #expect(bits.conditions.map(\.description) == conditions)
        #expect(bits.bytes == bytes)
    }

    @Test func everyCombinationRoundTrips() throws {
        for value in 0..<4096 {
            let conditions = (0..<4).map { AccessCondition(UInt8((value >> ($0 * 3)) & 0x7)) }
            let bits = AccessBits(conditions: conditions)
            #expect(try AccessBits.decode(bits.bytes) == bits)
        }
    }

    @Test func rejectsInconsistentCopies() {
        #expect(throws: NFCError.invalidResponse([0xFF, 0x07, 0x81])) { try AccessBits.decode([0xFF, 0x07, 0x81]) }
        #expect(throws: NFCError.invalidResponse([0xFF, 0x07])) { try AccessBits.decode([0xFF, 0x07]) }
    }

    @Test func permissionsFollowTheDatasheetTables() {
        let transport = AccessBits.transport
        #expect(transport.isKeyBReadable)
        let a = transport.permissions(group: 0, keyType: .a)
        #expect(a.read && a.write && a.increment && a.decrement)
        #expect(transport.permissions(group: 0, keyType: .b) == ClassicBlockPermissions(), "readable key B opens nothing")
        let trailerA = transport.permissions(group: 3, keyType: .a)
        #expect(trailerA.writeKeyA && trailerA.writeAccessBits && trailerA.readKeyB && trailerA.writeKeyB)

        let mad = AccessBits(data: AccessCondition(0b100), trailer: AccessCondition(0b011))
        #expect(!mad.isKeyBReadable)
        #expect(mad.permissions(group: 1, keyType: .a).read)
        #expect(!mad.permissions(group: 1, keyType: .a).write)
        #expect(mad.permissions(group: 1, keyType: .b).write)
        let madTrailerA = mad.permissions(group: 3, keyType: .a)
        #expect(madTrailerA.readAccessBits && !madTrailerA.writesAnyTrailerPart && !madTrailerA.readKeyB)
        #expect(mad.permissions(group: 3, keyType: .b).writesAnyTrailerPart)

        let secret = AccessBits(data: AccessCondition(0b111), trailer: AccessCondition(0b111))
        #expect(secret.permissions(group: 2, keyType: .b) == ClassicBlockPermissions())
        #expect(secret.permissions(group: 3, keyType: .b).readAccessBits)
    }
}

@Suite struct ClassicKeyDictionaryTests {
    @Test func defaultsInLibnfcOrder() {
        #expect(ClassicKeyDictionary.standard.keys.map(\.hexString) == [
            "FFFFFFFFFFFF", "D3F7D3F7D3F7", "A0A1A2A3A4A5", "B0B1B2B3B4B5", "4D3A99C351DD", "1A982C7E459A",
            "AABBCCDDEEFF", "000000000000", "ABCDEF123456",
        ])
    }

    @Test func userKeysComeFirstWithoutDuplicates() throws {
        let dictionary = try ClassicKeyDictionary(hexKeys: ["11:22:33:44:55:66", "A0A1A2A3A4A5"])
        #expect(dictionary.keys.count == 10)
        #expect(dictionary.keys.prefix(3).map(\.hexString) == ["112233445566", "A0A1A2A3A4A5", "FFFFFFFFFFFF"])
        #expect(try ClassicKeyDictionary(userKeys: [[1, 2, 3, 4, 5, 6]], includeDefaults: false).keys == [[1, 2, 3, 4, 5, 6]])
        #expect(throws: NFCError.self) { try ClassicKeyDictionary(userKeys: [[1, 2, 3]]) }
        #expect(throws: NFCError.self) { try ClassicKeyDictionary(hexKeys: ["XYZ"]) }
    }
}

@Suite struct ClassicDumpTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
    static let factoryTrailer = "FFFFFFFFFFFFFF078069FFFFFFFFFFFF"

    func info(_ type: CardType) -> CardInfo { CardInfo(type: type, uid: Self.uid, atqa: [0x00, 0x04], sak: 0x08) }

    @Test(arguments: [
        (VirtualClassicTag.Model.classic1K, CardType.mifareClassic1K, 64),
        (.classic4K, .mifareClassic4K, 256),
        (.mini, .mifareMini, 20),
    ])
    func dumpsFactoryTags(model: VirtualClassicTag.Model, type: CardType, blocks: Int) async throws {
        let tag = try VirtualClassicTag(model: model, uid: Self.uid)
        let dump = try await ClassicDump.dump(info: info(type), transport: VirtualTagTransport(tag: tag))
        #expect(dump.blocks.count == blocks)
        #expect(dump.blocks.map(\.number) == Array(0..<blocks))
        #expect(dump.blocks.allSatisfy { $0.data.count == 16 })
        #expect(dump.blocks[0].data == tag.memory[0])
        let layout = model.layout
        for sector in 0..<layout.sectorCount {
            let trailer = try #require(layout.trailerBlock(ofSector: sector))
            #expect(dump.blocks[trailer].data.hexString == Self.factoryTrailer)
        }
        #expect(dump.fact("Sectors Read") == "\(layout.sectorCount) of \(layout.sectorCount)")
        #expect(dump.fact("Unknown Sectors") == "0")
        #expect(dump.fact("Blocks Read") == "\(blocks) of \(blocks)")
        #expect(dump.capabilities == [.readable, .authenticationRequired])
    }

    @Test func findsANonDefaultKeyAfterReselecting() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let keyA: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
        tag.setKeys(sector: 1, a: keyA, b: VirtualClassicTag.factoryKey)
        tag.setBlock(5, Array(0x50..<0x60))
        let transport = VirtualTagTransport(tag: tag)
        let dump = try await ClassicDump.dump(info: info(.mifareClassic1K), transport: transport)
        #expect(dump.blocks.count == 64)
        #expect(dump.blocks[5].data == Array(0x50..<0x60))
        #expect(dump.blocks[7].data.hexString == "A0A1A2A3A4A5FF078069FFFFFFFFFFFF")
        // Sector 1: FFFF… (last found) fails, re-select, D3F7… fails, re-select, A0A1… opens.
        let sector1 = transport.sentCommands.drop { $0 != [0x60, 0x07] + VirtualClassicTag.factoryKey }
        #expect(sector1.prefix(6).map(\.hexString) == [
            "6007FFFFFFFFFFFF", "", "6007D3F7D3F7D3F7", "", "6007A0A1A2A3A4A5", "3004",
        ])
    }

    @Test func skipsAndCountsASectorNoKeyOpens() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let secret: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        tag.setKeys(sector: 3, a: secret, b: secret, accessBits: [0x7F, 0x07, 0x88, 0x40])
        let dump = try await ClassicDump.dump(info: info(.mifareClassic1K), transport: VirtualTagTransport(tag: tag))
        #expect(dump.blocks.count == 60)
        #expect(!dump.blocks.contains { (12...15).contains($0.number) })
        #expect(dump.fact("Unknown Sectors") == "1")
        #expect(dump.fact("Sectors Read") == "15 of 16")
        #expect(dump.fact("Blocks Read") == "60 of 64")
        #expect(dump.fact("Keys Found") == "A 15/16, B 15/16")
        #expect(dump.capabilities == [.readable, .authenticationRequired, .partiallyReadable])

        // With the key given, the sector opens.
        let keys = try ClassicKeyDictionary(userKeys: [secret])
        let full = try await ClassicDump.dump(info: info(.mifareClassic1K), transport: VirtualTagTransport(tag: tag), keys: keys)
        #expect(full.blocks.count == 64)
        #expect(full.blocks[15].data.hexString == "1122334455667F078840112233445566")
    }

    @Test func usesKeyBWhereKeyAMayNotRead() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let keyA: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
        let keyB: [UInt8] = [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]
        // Data 011 (read and write with key B only), trailer 011 (key B hidden).
        let bits = AccessBits(data: AccessCondition(0b011), trailer: AccessCondition(0b011))
        tag.setKeys(sector: 2, a: keyA, b: keyB, accessBits: bits.bytes + [0x00])
        tag.setBlock(9, [UInt8](repeating: 0x99, count: 16))
        let dump = try await ClassicDump.dump(info: info(.mifareClassic1K), transport: VirtualTagTransport(tag: tag))
        #expect(dump.blocks.count == 64)
        #expect(dump.blocks[9].data == [UInt8](repeating: 0x99, count: 16))
        #expect(dump.blocks[11].data == keyA + bits.bytes + [0x00] + keyB)
        #expect(dump.fact("Keys Found") == "A 16/16, B 16/16")
    }

    @Test func rejectsNonClassicTypes() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        await #expect(throws: NFCError.self) {
            try await ClassicDump.dump(info: info(.ntag215), transport: VirtualTagTransport(tag: tag))
        }
    }

    @Test func stopsBetweenSectorsWhenCancelled() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let transport = CancellingClassicTransport(base: VirtualTagTransport(tag: tag), cancelAfter: 3)
        let cardInfo = info(.mifareClassic1K)
        // The dump runs in its own task, which the transport cancels (not the test's task).
        let dump = Task { try await ClassicDump.dump(info: cardInfo, transport: transport) }
        await #expect(throws: CancellationError.self) { try await dump.value }
        // Sector 0 (auth + 4 reads) finished; nothing of sector 1 was sent.
        #expect(transport.base.sentCommands.count == 5)
    }

    @Test func tagRemovalEndsTheDump() async throws {
        let transport = VirtualTagTransport(tag: try VirtualClassicTag(model: .classic1K, uid: Self.uid))
        transport.remove(afterCommands: 7)
        await #expect(throws: NFCError.tagRemoved) {
            try await ClassicDump.dump(info: info(.mifareClassic1K), transport: transport)
        }
    }
}

/// Wraps a transport and cancels the running task once `cancelAfter` READs were answered.
private final class CancellingClassicTransport: ClassicAuthenticating, Sendable {
    let base: VirtualTagTransport
    let cancelAfter: Int
    private let reads = Mutex(0)

    init(base: VirtualTagTransport, cancelAfter: Int) {
        self.base = base
        self.cancelAfter = cancelAfter
    }

    var target: Target { base.target }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        let answer = try await base.transceive(command, framing: framing)
        let count = reads.withLock { value -> Int in
            value += 1
            return value
        }
        if count == cancelAfter { withUnsafeCurrentTask { $0?.cancel() } }
        return answer
    }

    func reselect() async throws { try await base.reselect() }

    func authenticate(block: Int, keyType: ClassicKeyType, key: [UInt8]) async throws {
        try await base.authenticate(block: block, keyType: keyType, key: key)
    }
}
