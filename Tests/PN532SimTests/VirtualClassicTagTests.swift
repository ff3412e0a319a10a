import NFCCore
import Testing
@testable import PN532Sim

@Suite struct VirtualClassicTagTests {
    let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
    let factoryKey = VirtualClassicTag.factoryKey

    @Test func factory1KHasManufacturerBlockAndTransportTrailers() throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: uid)
        #expect(tag.target.atqa == [0x00, 0x04])
        #expect(tag.target.sak == 0x08)
        let memory = tag.memory
        #expect(memory.count == 64)
        let bcc: UInt8 = 0xDE ^ 0xAD ^ 0xBE ^ 0xEF
        #expect(memory[0] == uid + [bcc, 0x08, 0x04, 0x00, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69])
        for trailer in stride(from: 3, to: 64, by: 4) {
            #expect(memory[trailer].hexString == "FFFFFFFFFFFFFF078069FFFFFFFFFFFF")
        }
        #expect(memory[1] == [UInt8](repeating: 0, count: 16))
    }

    @Test func modelsHaveTheirSizesAndSAK() throws {
        let mini = try VirtualClassicTag(model: .mini, uid: uid)
        let big = try VirtualClassicTag(model: .classic4K, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        #expect(mini.memory.count == 20)
        #expect(mini.target.sak == 0x09)
        #expect(big.memory.count == 256)
        #expect(big.target.sak == 0x18)
        #expect(big.target.atqa == [0x00, 0x42])
        // 7-byte UIDs have no BCC in block 0 (UID, SAK, ATQA LSB first).
        #expect(Array(big.memory[0].prefix(10)) == [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x18, 0x42, 0x00])
        #expect(big.memory[255].hexString == "FFFFFFFFFFFFFF078069FFFFFFFFFFFF")
        #expect(big.memory[143].hexString == "FFFFFFFFFFFFFF078069FFFFFFFFFFFF")
        #expect(throws: NFCError.self) { try VirtualClassicTag(model: .classic1K, uid: [1, 2, 3]) }
    }

    @Test func rightKeyAuthenticatesAndReadsTheSectorOnly() throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: uid)
        _ = tag.activate()
        #expect(tag.authenticate(block: 7, keyType: .a, key: factoryKey, uid: uid))
        // Trailer: key A reads back as zeros; key B is readable in the transport configuration.
        #expect(tag.receive([0x30, 0x07]) == .data([0, 0, 0, 0, 0, 0, 0xFF, 0x07, 0x80, 0x69] + factoryKey))
        #expect(tag.receive([0x30, 0x04]) == .data([UInt8](repeating: 0, count: 16)))
        // Outside the authenticated sector: NAK, then the card is halted.
        #expect(tag.receive([0x30, 0x08]) == .nak(0x4))
        #expect(tag.receive([0x30, 0x04]) == .silent)
    }

    @Test func wrongKeyOrUIDHaltsTheCard() throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: uid)
        _ = tag.activate()
        #expect(!tag.authenticate(block: 0, keyType: .a, key: [0, 0, 0, 0, 0, 0], uid: uid))
        #expect(tag.receive([0x30, 0x00]) == .silent)
        #expect(!tag.authenticate(block: 0, keyType: .a, key: factoryKey, uid: uid), "halted until activated")
        _ = tag.activate()
        #expect(!tag.authenticate(block: 0, keyType: .a, key: factoryKey, uid: [1, 2, 3, 4]))
        _ = tag.activate()
        #expect(tag.authenticate(block: 0, keyType: .a, key: factoryKey, uid: uid))
    }

    @Test func writesInOneFrameAndInTwoFrames() throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: uid)
        _ = tag.activate()
        #expect(tag.authenticate(block: 4, keyType: .a, key: factoryKey, uid: uid))
        let data = [UInt8](0x10..<0x20)
        // libnfc MC_WRITE: InDataExchange carries A0 blk + 16 bytes at once.
        #expect(tag.receive([0xA0, 0x05] + data) == .ack)
        #expect(tag.receive([0xA0, 0x06]) == .ack)
        #expect(tag.receive(data.reversed()) == .ack)
        #expect(tag.block(5) == data)
        #expect(tag.block(6) == data.reversed())
        // The manufacturer block is read-only.
        #expect(tag.authenticate(block: 0, keyType: .a, key: factoryKey, uid: uid))
        #expect(tag.receive([0xA0, 0x00] + data) == .nak(0x4))
    }

    @Test func readableKeyBCannotBeUsedForAccess() throws {
        // Transport trailer (001) leaves key B readable: authentication succeeds, every access is refused.
        let tag = try VirtualClassicTag(model: .classic1K, uid: uid)
        _ = tag.activate()
        #expect(tag.authenticate(block: 4, keyType: .b, key: factoryKey, uid: uid))
        #expect(tag.receive([0x30, 0x04]) == .nak(0x4))
    }

    @Test func accessConditionsAreHonoured() throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: uid)
        let keyA: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
        let keyB: [UInt8] = [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]
        // MAD-style sector: data 100 (read A|B, write B), trailer 011 (key B not readable).
        tag.setKeys(sector: 1, a: keyA, b: keyB, accessBits: [0x78, 0x77, 0x88, 0xC1])
        _ = tag.activate()
        #expect(tag.authenticate(block: 4, keyType: .a, key: keyA, uid: uid))
        #expect(tag.receive([0x30, 0x07]) == .data([0, 0, 0, 0, 0, 0, 0x78, 0x77, 0x88, 0xC1, 0, 0, 0, 0, 0, 0]))
        #expect(tag.receive([0x30, 0x05]) == .data([UInt8](repeating: 0, count: 16)))
        #expect(tag.receive([0xA0, 0x05] + [UInt8](repeating: 1, count: 16)) == .nak(0x4))
        _ = tag.activate()
        #expect(tag.authenticate(block: 4, keyType: .b, key: keyB, uid: uid))
        #expect(tag.receive([0xA0, 0x05] + [UInt8](repeating: 1, count: 16)) == .ack)
        // Trailer 011: key B writes key A, access bits and key B.
        let newTrailer = [UInt8](repeating: 0x11, count: 6) + [0xFF, 0x07, 0x80, 0x69] + keyB
        #expect(tag.receive([0xA0, 0x07] + newTrailer) == .ack)
        #expect(tag.block(7) == newTrailer)
    }

    @Test func authenticationThroughTheTransport() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: uid)
        let transport = VirtualTagTransport(tag: tag)
        await #expect(throws: NFCError.authenticationFailed) {
            try await transport.authenticate(block: 3, keyType: .a, key: [1, 2, 3, 4, 5, 6])
        }
        await #expect(throws: NFCError.timeout) { try await transport.transceive([0x30, 0x00]) }
        try await transport.reselect()
        try await transport.authenticate(block: 3, keyType: .a, key: factoryKey)
        #expect(try await transport.transceive([0x30, 0x01]) == [UInt8](repeating: 0, count: 16))
        #expect(try await transport.transceive([0xA0, 0x01] + [UInt8](repeating: 7, count: 16)) == [0x0A])
    }
}

@Suite struct VirtualClassicTagFrameTests {
    @Test func ratsAndHaltAreAnsweredBySilence() throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF])
        _ = tag.activate()
        #expect(tag.receive([0xE0, 0x50]) == .silent)
        #expect(tag.receive([0x30, 0x00]) == .silent, "halted after the unknown frame")
        _ = tag.activate()
        #expect(tag.receive([0x30, 0x00]) == .nak(0x4), "READ without authentication")
        _ = tag.activate()
        #expect(tag.receive([0x50, 0x00]) == .silent)
        #expect(!tag.authenticate(block: 0, keyType: .a, key: VirtualClassicTag.factoryKey, uid: [0xDE, 0xAD, 0xBE, 0xEF]))
    }
}
