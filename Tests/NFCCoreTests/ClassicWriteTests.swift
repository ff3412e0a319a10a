import NFCCore
import PN532Sim
import Testing

/// ``ClassicBlockWriter``: raw block writes against the in-process virtual Classic, whose own access
/// tables refuse what a real card refuses.
@Suite struct ClassicBlockWriterTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
    static let factoryKey: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    static let keyA: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
    static let keyB: [UInt8] = [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]

    private func identified(_ tag: VirtualClassicTag) async throws -> (CardInfo, VirtualTagTransport) {
        let transport = VirtualTagTransport(tag: tag)
        return (try await TagIdentifier.identify(transport), transport)
    }

    private func bytes(_ value: UInt8) -> [UInt8] { [UInt8](repeating: value, count: 16) }

    @Test func writesDataBlocksAndReadsThemBack() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let (info, transport) = try await identified(tag)
        let report = try await ClassicBlockWriter.write(
            [ClassicBlockData(block: 9, data: bytes(0x22)), ClassicBlockData(block: 4, data: bytes(0x11))],
            key: Self.factoryKey, keyType: .a, allowTrailer: false, to: transport, info: info)
        #expect(report.blocksWritten == [4, 9])
        #expect(report.uid == Self.uid && report.cardType == .mifareClassic1K)
        #expect(tag.block(4) == bytes(0x11))
        #expect(tag.block(9) == bytes(0x22))
        // The access bits were read (trailer READ) before the first WRITE of each sector.
        let sent = transport.sentCommands
        let firstWrite = try #require(sent.firstIndex { $0.first == 0xA0 })
        #expect(sent[..<firstWrite].contains([0x30, 0x07]) && sent[..<firstWrite].contains([0x30, 0x0B]))
    }

    @Test func requestProblemsAreRefusedBeforeTheTag() throws {
        let good = bytes(0)
        #expect(throws: NFCError.self) { try ClassicBlockWriter.validate([], allowTrailer: false) }
        #expect(throws: NFCError.invalidArgument("Block 4: a MIFARE Classic block holds 16 bytes, not 15")) {
            try ClassicBlockWriter.validate([ClassicBlockData(block: 4, data: Array(good.prefix(15)))], allowTrailer: false)
        }
        #expect(throws: NFCError.invalidArgument("Block 0 is the manufacturer block: it is read-only (MF1S50yyX §8.6.1)")) {
            try ClassicBlockWriter.validate([ClassicBlockData(block: 0, data: good)], allowTrailer: true)
        }
        #expect(throws: NFCError.self) {
            try ClassicBlockWriter.validate([ClassicBlockData(block: 256, data: good)], allowTrailer: false)
        }
        #expect(throws: NFCError.invalidArgument("Block 5 is given twice")) {
            try ClassicBlockWriter.validate([ClassicBlockData(block: 5, data: good), ClassicBlockData(block: 5, data: good)],
                                            allowTrailer: false)
        }
        // Trailers of 4-block and of 16-block sectors (4K: sector 32 ends at block 143).
        for trailer in [3, 7, 127, 143, 255] {
            #expect(throws: NFCError.self) { try ClassicBlockWriter.validate([ClassicBlockData(block: trailer, data: good)], allowTrailer: false) }
        }
        for data in [128, 142, 254] {
            try ClassicBlockWriter.validate([ClassicBlockData(block: data, data: good)], allowTrailer: false)
        }
        // FF 07 81: C3 of the trailer and its inverted copy disagree.
        let broken = Self.factoryKey + [0xFF, 0x07, 0x81, 0x69] + Self.factoryKey
        #expect(throws: NFCError.self) { try ClassicBlockWriter.validate([ClassicBlockData(block: 7, data: broken)], allowTrailer: true) }
        let fine = Self.factoryKey + [0xFF, 0x07, 0x80, 0x69] + Self.factoryKey
        try ClassicBlockWriter.validate([ClassicBlockData(block: 7, data: fine)], allowTrailer: true)
    }

    @Test func aTrailerIsRefusedWithoutAllowTrailerAndTheTagIsUntouched() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let before = tag.memory
        let (info, transport) = try await identified(tag)
        let sent = transport.sentCommands.count
        let trailer = Self.keyA + [0xFF, 0x07, 0x80, 0x69] + Self.factoryKey
        await #expect(throws: TagOperationError(.invalidArgument(
            "Block 7 is the trailer of sector 1 (keys and access bits): writing it needs allow_trailer"))) {
            try await ClassicBlockWriter.write([ClassicBlockData(block: 7, data: trailer)], key: Self.factoryKey, keyType: .a,
                                               allowTrailer: false, to: transport, info: info)
        }
        #expect(transport.sentCommands.count == sent)
        #expect(tag.memory == before)
    }

    @Test func aTrailerWriteChangesTheKeyAndIsVerifiedWithIt() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let (info, transport) = try await identified(tag)
        let trailer = Self.keyA + [0x7F, 0x07, 0x88, 0x40] + Self.keyB
        let report = try await ClassicBlockWriter.write([ClassicBlockData(block: 7, data: trailer)], key: Self.factoryKey,
                                                        keyType: .a, allowTrailer: true, to: transport, info: info)
        #expect(report.blocksWritten == [7])
        #expect(tag.block(7) == trailer)
        // Read back after authenticating with the new key A.
        #expect(transport.sentCommands.suffix(2) == [[0x60, 0x07] + Self.keyA, [0x30, 0x07]])
    }

    @Test func theAccessBitsRefuseWhatTheKeyMayNotWrite() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        // Sector 1 as a MAD sector: data 100 (write with key B only), trailer 011.
        tag.setKeys(sector: 1, a: Self.keyA, b: Self.keyB, accessBits: [0x78, 0x77, 0x88, 0xC1])
        let before = tag.memory
        let (info, transport) = try await identified(tag)
        await #expect(throws: TagOperationError(.accessDenied(
            "The access bits of sector 1 do not let key A write block 5: its condition is 100, written by key B only (MF1S50yyX §8.7.3)"))) {
            try await ClassicBlockWriter.write([ClassicBlockData(block: 5, data: bytes(1))], key: Self.keyA, keyType: .a,
                                               allowTrailer: false, to: transport, info: info)
        }
        #expect(!transport.sentCommands.contains { $0.first == 0xA0 })
        #expect(tag.memory == before)
        // The check is the card's own rule: the virtual card NAKs the same WRITE.
        try await transport.reselect()
        try await transport.authenticate(block: 7, keyType: .a, key: Self.keyA)
        await #expect(throws: NFCError.self) { try await transport.transceive([0xA0, 0x05] + bytes(1)) }
        // Key B may.
        try await transport.reselect()
        let report = try await ClassicBlockWriter.write([ClassicBlockData(block: 5, data: bytes(1))], key: Self.keyB, keyType: .b,
                                                        allowTrailer: false, to: transport, info: info)
        #expect(report.blocksWritten == [5])
        #expect(tag.block(5) == bytes(1))
    }

    @Test func aTrailerPartTheKeyCannotWriteIsRefused() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        // Trailer 011: key A writes nothing of the trailer.
        tag.setKeys(sector: 2, a: Self.keyA, b: Self.keyB, accessBits: [0x7F, 0x07, 0x88, 0x40])
        let (info, transport) = try await identified(tag)
        let trailer = Self.keyA + [0x7F, 0x07, 0x88, 0x43] + Self.keyB
        await #expect(throws: TagOperationError.self) {
            try await ClassicBlockWriter.write([ClassicBlockData(block: 11, data: trailer)], key: Self.keyA, keyType: .a,
                                               allowTrailer: true, to: transport, info: info)
        }
        #expect(tag.block(11) == Self.keyA + [0x7F, 0x07, 0x88, 0x40] + Self.keyB)
        // Key B writes the general-purpose byte (with the access bits).
        let report = try await ClassicBlockWriter.write([ClassicBlockData(block: 11, data: trailer)], key: Self.keyB, keyType: .b,
                                                        allowTrailer: true, to: transport, info: info)
        #expect(report.blocksWritten == [11])
        #expect(tag.block(11) == trailer)
    }

    @Test func aReadableKeyBOpensNothing() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let (info, transport) = try await identified(tag)
        // Transport configuration: key B is readable, so authenticating with it grants nothing.
        await #expect(throws: TagOperationError.self) {
            try await ClassicBlockWriter.write([ClassicBlockData(block: 4, data: bytes(1))], key: Self.factoryKey, keyType: .b,
                                               allowTrailer: false, to: transport, info: info)
        }
        #expect(tag.block(4) == bytes(0))
    }

    @Test func aWrongKeyIsAnAuthenticationFailureAndNothingIsWritten() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let (info, transport) = try await identified(tag)
        // The refusal names the key, the sector and its blocks (issue 23: it named none).
        let refusal = TagOperationError(.authenticationFailed,
                                        detail: "key A does not open sector 1 (blocks 4–7); nothing of that sector was written")
        await #expect(throws: refusal) {
            try await ClassicBlockWriter.write(
                [ClassicBlockData(block: 4, data: bytes(1)), ClassicBlockData(block: 8, data: bytes(2))], key: Self.keyA,
                keyType: .a, allowTrailer: false, to: transport, info: info)
        }
        #expect(refusal.message == "Authentication failed: key A does not open sector 1 (blocks 4–7); nothing of that sector was written")
        #expect(tag.block(4) == bytes(0))
    }

    @Test func aLaterSectorsRefusalStopsBeforeTheFirstWrite() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        // Sector 2 read-only for key A (data 010).
        tag.setKeys(sector: 2, a: Self.factoryKey, b: Self.keyB, accessBits: [0x07, 0x8F, 0x0F, 0x43])
        let (info, transport) = try await identified(tag)
        await #expect(throws: TagOperationError.self) {
            try await ClassicBlockWriter.write(
                [ClassicBlockData(block: 4, data: bytes(1)), ClassicBlockData(block: 8, data: bytes(2))], key: Self.factoryKey,
                keyType: .a, allowTrailer: false, to: transport, info: info)
        }
        #expect(tag.block(4) == bytes(0))
    }

    @Test func aTagPulledMidWriteReportsTheBlocksWritten() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let (info, transport) = try await identified(tag)
        // Pass 1: AUTH + READ per sector (4); pass 2: AUTH, WRITE 4, READ 4, then the tag leaves.
        transport.remove(afterCommands: 7)
        do {
            _ = try await ClassicBlockWriter.write(
                [ClassicBlockData(block: 4, data: bytes(1)), ClassicBlockData(block: 8, data: bytes(2))], key: Self.factoryKey,
                keyType: .a, allowTrailer: false, to: transport, info: info)
            Issue.record("the write went through")
        } catch {
            #expect(error.error == .tagRemoved)
            #expect(error.pagesWritten == [4])
        }
    }

    @Test func nonClassicTagsAreRefused() async throws {
        let tag = VirtualType2Tag(model: .ntag215, uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        await #expect(throws: TagOperationError.self) {
            try await ClassicBlockWriter.write([ClassicBlockData(block: 4, data: bytes(1))], key: Self.factoryKey, keyType: .a,
                                               allowTrailer: false, to: transport, info: info)
        }
    }
}

/// ``TagOperations`` write and format on MIFARE Classic per NXP AN1305.
@Suite struct ClassicNDEFWriteTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
    static let factoryKey: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]

    private func identified(_ tag: VirtualClassicTag) async throws -> (CardInfo, VirtualTagTransport) {
        let transport = VirtualTagTransport(tag: tag)
        return (try await TagIdentifier.identify(transport), transport)
    }

    @Test func formatGivesTheAN1305LayoutOnA1K() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let (info, transport) = try await identified(tag)
        #expect(NDEFMapping.forType(info.type) == .mifareClassic)
        let report = try await TagOperations.format(transport, info: info)
        // MAD1: CRC, info 01, sectors 1–15 = 03 E1 (the CRC computed independently of ClassicMAD).
        let body: [UInt8] = [0x01] + Array([[UInt8]](repeating: [0x03, 0xE1], count: 15).joined())
        let mad1 = [ClassicNDEFFormatter.crc(body)] + body
        #expect(tag.block(1) == Array(mad1[0..<16]))
        #expect(tag.block(2) == Array(mad1[16..<32]))
        #expect(tag.block(3) == ClassicNDEFFormatter.madKey + [0x78, 0x77, 0x88, 0xC1] + Self.factoryKey)
        for sector in 1..<16 {
            #expect(tag.block(sector * 4 + 3) == ClassicNDEFFormatter.ndefKey + [0x7F, 0x07, 0x88, 0x40] + Self.factoryKey)
        }
        #expect(tag.block(4) == [0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 13))
        #expect(report.messageLength == 0)
        #expect(report.capabilityContainer == mad1)
        // MAD last: the NDEF sectors' trailers come first in the write order.
        #expect(report.pagesWritten.first == 4 && report.pagesWritten.suffix(3) == [1, 2, 3])
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message([]))
    }

    @Test func formatOfA4KWritesMAD2AndLeavesSector16ToIt() async throws {
        let tag = try VirtualClassicTag(model: .classic4K, uid: Self.uid)
        let (info, transport) = try await identified(tag)
        _ = try await TagOperations.format(transport, info: info)
        #expect(tag.block(3).map { Array($0[6..<10]) } == [0x78, 0x77, 0x88, 0xC2])
        #expect(tag.block(67).map { Array($0[0..<6]) } == ClassicNDEFFormatter.madKey)
        let body: [UInt8] = [0x00] + Array([[UInt8]](repeating: [0x03, 0xE1], count: 23).joined())
        let mad2 = [ClassicNDEFFormatter.crc(body)] + body
        #expect([64, 65, 66].compactMap { tag.block($0) }.flatMap { $0 } == mad2)
        #expect(tag.block(255) == ClassicNDEFFormatter.ndefKey + [0x7F, 0x07, 0x88, 0x40] + Self.factoryKey)
        // A message across the 4-block sectors and into the 16-block ones, read back by the MAD reader.
        let message = ndefMessage(length: 2000)
        _ = try await TagOperations.write(ndef: message, to: transport, info: info)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message(message))
    }

    @Test func writeOnACardFormattedElsewhereReadsBack() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        ClassicNDEFFormatter.format(tag, message: ndefMessage(length: 20), ndefSectors: [2, 3, 5])
        let (info, transport) = try await identified(tag)
        let message = ndefMessage(length: 100)
        let report = try await TagOperations.write(ndef: message, to: transport, info: info)
        // 104 bytes of TLV: 7 blocks of sectors 2, 3 and 5 (not sector 4).
        #expect(report.pagesWritten == [8, 9, 10, 12, 13, 14, 20])
        #expect(report.bytesWritten == 7 * 16)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message(message))
    }

    @Test func aMessageTooLongForTheNDEFSectorsWritesNothing() async throws {
        let tag = try VirtualClassicTag(model: .mini, uid: Self.uid)
        let (info, transport) = try await identified(tag)
        _ = try await TagOperations.format(transport, info: info)
        let before = tag.memory
        // A Mini has 4 NDEF sectors of 48 bytes.
        await #expect(throws: TagOperationError(.capacityExceeded(needed: 203, available: 192))) {
            try await TagOperations.write(ndef: ndefMessage(length: 200), to: transport, info: info)
        }
        #expect(tag.memory == before)
    }

    @Test func writeOnAnUnformattedCardSaysFormatFirst() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        let (info, transport) = try await identified(tag)
        await #expect(throws: TagOperationError(.unsupportedOperation(
            "The MIFARE Classic is not NFC Forum formatted (no MAD): format it first"))) {
            try await TagOperations.write(ndef: ndefMessage(length: 20), to: transport, info: info)
        }
        #expect(tag.block(3) == Self.factoryKey + [0xFF, 0x07, 0x80, 0x69] + Self.factoryKey)
    }

    @Test func aReadOnlyNDEFSectorIsLocked() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        ClassicNDEFFormatter.format(tag, message: ndefMessage(length: 20), ndefSectors: [1])
        // AN1305 read-only sector: access bits 07 8F 0F, GPB 43h (write access 11b).
        tag.setKeys(sector: 1, a: ClassicNDEFFormatter.ndefKey, b: Self.factoryKey, accessBits: [0x07, 0x8F, 0x0F, 0x43])
        let before = tag.memory
        let (info, transport) = try await identified(tag)
        await #expect(throws: TagOperationError(.tagLocked)) {
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: transport, info: info)
        }
        #expect(tag.memory == before)
    }

    @Test func formatRefusesACardWithOtherKeys() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        tag.setKeys(sector: 9, a: [1, 2, 3, 4, 5, 6], b: [1, 2, 3, 4, 5, 6])
        let before = tag.memory
        let (info, transport) = try await identified(tag)
        await #expect(throws: TagOperationError(.unsupportedOperation(
            "Sector 9 does not open with the factory key A FFFFFFFFFFFF: only a factory-fresh MIFARE Classic is NFC Forum formatted (AN1305)"))) {
            try await TagOperations.format(transport, info: info)
        }
        #expect(tag.memory == before)
    }

    @Test func formatOfAFormattedCardEmptiesItsMessage() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        ClassicNDEFFormatter.format(tag, message: ndefMessage(length: 60), ndefSectors: [1, 2])
        let (info, transport) = try await identified(tag)
        let report = try await TagOperations.format(transport, info: info)
        #expect(report.pagesWritten == [4])
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message([]))
    }

    @Test func lockIsRefusedAndWritesNothing() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: Self.uid)
        ClassicNDEFFormatter.format(tag, message: ndefMessage(length: 20), ndefSectors: [1])
        let before = tag.memory
        let (info, transport) = try await identified(tag)
        await #expect(throws: TagOperationError(.unsupportedOperation("Locking the NDEF sectors of MIFARE Classic 1K is not supported"))) {
            try await TagOperations.lock(transport, info: info, expectedUID: Self.uid)
        }
        #expect(tag.memory == before)
    }

    @Test func madEncodingRoundTrips() throws {
        let aids: [UInt16] = [0xE103, 0, 0xE103] + [UInt16](repeating: 0, count: 12)
        let bytes = ClassicMAD.encode(aids: aids, count: 15, info: 0x01)
        #expect(bytes.count == 32)
        #expect(Array(bytes[1..<8]) == [0x01, 0x03, 0xE1, 0x00, 0x00, 0x03, 0xE1])
        #expect(try ClassicMAD(sector0: bytes).sectors(of: ClassicMAD.ndefAID) == [1, 3])
    }
}
