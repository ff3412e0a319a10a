import NFCCore
import PN532Sim
import Testing

/// Formats a virtual MIFARE Classic as an NFC Forum tag, the way NXP AN1304 / AN10787 describe it —
/// written here independently of the reader under test: MAD sector(s) with key A A0A1A2A3A4A5, access
/// bits 78 77 88 and general-purpose byte C1h (MAD1) or C2h (MAD2); NDEF sectors with key A D3F7D3F7D3F7,
/// access bits 7F 07 88 and GPB 40h; the TLV area `03 L message FE` across the NDEF sectors' data blocks.
struct ClassicNDEFFormatter {
    static let madKey: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
    static let madKeyB: [UInt8] = [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]
    static let ndefKey: [UInt8] = [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7]
    static let factoryKey: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]

    /// Bitwise CRC-8 of AN10787 (polynomial 1Dh, preset C7h, MSB first).
    static func crc(_ bytes: [UInt8]) -> UInt8 {
        var crc: UInt8 = 0xC7
        for byte in bytes {
            for bit in (0..<8).reversed() {
                let top = (crc >> 7) ^ ((byte >> UInt8(bit)) & 1)
                crc <<= 1
                if top == 1 { crc ^= 0x1D }
            }
        }
        return crc
    }

    /// `sectors` as NDEF sectors in the MAD, `message` in their data blocks.
    static func format(_ tag: VirtualClassicTag, message: [UInt8], ndefSectors: [Int], mad2: Bool = false,
                       corruptCRC: Bool = false) {
        func directory(_ sectors: ClosedRange<Int>, info: UInt8) -> [UInt8] {
            var bytes: [UInt8] = [info]
            for sector in sectors { bytes += ndefSectors.contains(sector) ? [0x03, 0xE1] : [0x00, 0x00] }
            return [crc(bytes) ^ (corruptCRC ? 0xFF : 0x00)] + bytes
        }
        let mad1 = directory(1...15, info: 0x01)
        tag.setBlock(1, Array(mad1[0..<16]))
        tag.setBlock(2, Array(mad1[16..<32]))
        tag.setKeys(sector: 0, a: madKey, b: madKeyB, accessBits: [0x78, 0x77, 0x88, mad2 ? 0xC2 : 0xC1])
        if mad2 {
            let mad = directory(17...39, info: 0x00)
            for index in 0..<3 { tag.setBlock(64 + index, Array(mad[index * 16..<index * 16 + 16])) }
            tag.setKeys(sector: 16, a: madKey, b: madKeyB, accessBits: [0x78, 0x77, 0x88, 0x00])
        }
        var area = [0x03] + (message.count < 255 ? [UInt8(message.count)] : [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)])
            + message + [0xFE]
        for sector in ndefSectors.sorted() {
            tag.setKeys(sector: sector, a: ndefKey, b: factoryKey, accessBits: [0x7F, 0x07, 0x88, 0x40])
            for block in tag.layout.blocks(ofSector: sector).dropLast() {
                let chunk = Array(area.prefix(16))
                area.removeFirst(chunk.count)
                tag.setBlock(block, chunk + [UInt8](repeating: 0, count: 16 - chunk.count))
            }
        }
    }
}

/// ``NDEFReader`` on MIFARE Classic: MAD, then only the NDEF blocks the TLVs need.
@Suite struct NDEFReaderClassicTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]

    private func identified(_ tag: VirtualClassicTag) async throws -> (CardInfo, VirtualTagTransport, Int) {
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        return (info, transport, transport.sentCommands.count)
    }

    private func auth(_ block: UInt8, _ key: [UInt8]) -> [UInt8] { [0x60, block] + key }

    @Test func madCRCMatchesTheApplicationNoteVectors() {
        // AN10787's example directory, and two real NFC Forum cards (5 and 6 NDEF sectors) — the vectors
        // libfreefare's test_mad.c checks.
        let example: [UInt8] = [0x01, 0x01, 0x08, 0x01, 0x08, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
                                0x03, 0x10, 0x03, 0x10, 0x02, 0x10, 0x02, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x30]
        #expect(ClassicMAD.crc(example) == 0x89)
        let five: [UInt8] = [0x01] + [UInt8](repeating: 0, count: 30).enumerated().map { $0.offset < 10 ? ($0.offset % 2 == 0 ? 0x03 : 0xE1) : 0 }
        #expect(ClassicMAD.crc(five) == 0xC4)
        let six: [UInt8] = [0x01] + [UInt8](repeating: 0, count: 30).enumerated().map { $0.offset < 12 ? ($0.offset % 2 == 0 ? 0x03 : 0xE1) : 0 }
        #expect(ClassicMAD.crc(six) == 0xAB)
        for vector in [example, five, six] { #expect(ClassicNDEFFormatter.crc(vector) == ClassicMAD.crc(vector)) }
    }

    @Test func madParsingAndGeneralPurposeByte() throws {
        #expect(ClassicMAD.version(generalPurposeByte: 0xC1) == 1)
        #expect(ClassicMAD.version(generalPurposeByte: 0xC2) == 2)
        #expect(ClassicMAD.version(generalPurposeByte: 0x41) == nil)  // DA bit clear: no MAD
        #expect(ClassicMAD.version(generalPurposeByte: 0x80) == nil)  // ADV 00
        #expect(ClassicMAD.version(generalPurposeByte: 0x69) == nil)  // factory GPB
        var body: [UInt8] = [0x01] + [UInt8](repeating: 0, count: 30)
        body[1 + 2 * 2] = 0x03; body[2 + 2 * 2] = 0xE1  // sector 3
        body[1 + 2 * 4] = 0x03; body[2 + 2 * 4] = 0xE1  // sector 5
        let mad = try ClassicMAD(sector0: [ClassicNDEFFormatter.crc(body)] + body)
        #expect(mad.sectors(of: ClassicMAD.ndefAID) == [3, 5])
        #expect(throws: NFCError.crcMismatch) { try ClassicMAD(sector0: [0x00] + body) }
        #expect(throws: NFCError.self) { try ClassicMAD(sector0: [0x00]) }
    }

    @Test func aMessageAcrossThreeSectorsReadsOnlyItsBlocks() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let message = ndefMessage(length: 100)
        ClassicNDEFFormatter.format(tag, message: message, ndefSectors: Array(1...15))
        let (info, transport, before) = try await identified(tag)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message(message))
        let madKey = ClassicNDEFFormatter.madKey, ndefKey = ClassicNDEFFormatter.ndefKey
        // TLV of 103 bytes: 7 data blocks (4, 5, 6, 8, 9, 10, 12) in sectors 1–3.
        #expect(Array(transport.sentCommands.dropFirst(before)) == [
            auth(3, madKey), [0x30, 3], [0x30, 1], [0x30, 2],
            auth(7, ndefKey), [0x30, 4], [0x30, 5], [0x30, 6],
            auth(11, ndefKey), [0x30, 8], [0x30, 9], [0x30, 10],
            auth(15, ndefKey), [0x30, 12],
        ])
        // A dump of the same card sends far more.
        let dumpStart = transport.sentCommands.count
        _ = try await TagDumper.dump(info: info, transport: transport)
        #expect(transport.sentCommands.count - dumpStart > 64)
    }

    @Test func aFactoryCardHasNoMessageAfterOneRefusedAuthentication() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let (info, transport, before) = try await identified(tag)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .noMessage)
        // The failed AUTH halted the card; the reader re-selected it (logged as an empty frame).
        #expect(Array(transport.sentCommands.dropFirst(before)) == [auth(3, ClassicNDEFFormatter.madKey), []])
        // Still ACTIVE: the dump goes on.
        #expect(try await TagDumper.dump(info: info, transport: transport).blocks.count == 64)
    }

    @Test func a4KWithMAD2SkipsSector16() async throws {
        let tag = try VirtualClassicTag(model: .classic4K, uid: Self.uid)
        let message = ndefMessage(length: 120)
        ClassicNDEFFormatter.format(tag, message: message, ndefSectors: [15, 17, 18], mad2: true)
        let (info, transport, before) = try await identified(tag)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message(message))
        let commands = Array(transport.sentCommands.dropFirst(before))
        let madKey = ClassicNDEFFormatter.madKey
        #expect(commands.prefix(8) == [
            auth(3, madKey), [0x30, 3], [0x30, 1], [0x30, 2], auth(67, madKey), [0x30, 64], [0x30, 65], [0x30, 66],
        ])
        // Sectors 15 (blocks 60–62), 17 (68–70), 18 (72…): 123 bytes need 8 blocks; no block of sector 16.
        #expect(commands.dropFirst(8).filter { $0.first == 0x30 }.map { Int($0[1]) } == [60, 61, 62, 68, 69, 70, 72, 73])
        #expect(commands.dropFirst(8).filter { $0.first == 0x60 }.map { Int($0[1]) } == [63, 71, 75])
    }

    @Test func aMiniWithOneNDEFSector() async throws {
        let tag = try VirtualClassicTag(model: .mini, uid: Self.uid)
        let message = ndefMessage(length: 20)
        ClassicNDEFFormatter.format(tag, message: message, ndefSectors: [1])
        let (info, transport, _) = try await identified(tag)
        #expect(info.type == .mifareMini)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message(message))
    }

    @Test func aMADWithoutNDEFSectorsOrWithoutItsDABitHasNoMessage() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        ClassicNDEFFormatter.format(tag, message: [0xD0, 0x00, 0x00], ndefSectors: [])
        let (info, transport, _) = try await identified(tag)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .noMessage)

        let noDA = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        ClassicNDEFFormatter.format(noDA, message: [0xD0, 0x00, 0x00], ndefSectors: [1])
        noDA.setKeys(sector: 0, a: ClassicNDEFFormatter.madKey, b: ClassicNDEFFormatter.madKeyB, accessBits: [0x78, 0x77, 0x88, 0x41])
        let (noDAInfo, noDATransport, _) = try await identified(noDA)
        #expect(try await NDEFReader.read(info: noDAInfo, transport: noDATransport) == .noMessage)
    }

    @Test func aBadMADCRCIsUnreadable() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        ClassicNDEFFormatter.format(tag, message: [0xD0, 0x00, 0x00], ndefSectors: [1], corruptCRC: true)
        let (info, transport, _) = try await identified(tag)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .unreadable(.crcMismatch))
    }

    @Test func anNDEFSectorWithAnotherKeyIsUnreadableAndTheCardStaysSelected() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let message = ndefMessage(length: 60)
        ClassicNDEFFormatter.format(tag, message: message, ndefSectors: [1, 2])
        let key: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        tag.setKeys(sector: 2, a: key, b: key, accessBits: [0x7F, 0x07, 0x88, 0x40])
        let (info, transport, _) = try await identified(tag)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .unreadable(.authenticationFailed))
        let dump = try await TagDumper.dump(info: info, transport: transport)
        #expect(dump.blocks.count == 60)
    }

    @Test func aCardRemovedMidReadThrows() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        ClassicNDEFFormatter.format(tag, message: ndefMessage(length: 100), ndefSectors: [1, 2, 3])
        let (info, transport, _) = try await identified(tag)
        transport.remove(afterCommands: 6)
        await #expect(throws: NFCError.tagRemoved) { try await NDEFReader.read(info: info, transport: transport) }
    }
}
