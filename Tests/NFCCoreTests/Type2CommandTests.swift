import NFCCore
import PN532Sim
import Testing

@Suite struct Type2CommandTests {
    static let uid: [UInt8] = [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81]

    @Test func framesAndFraming() {
        #expect(Type2Command.read(page: 4).bytes == [0x30, 0x04])
        #expect(Type2Command.fastRead(start: 4, end: 6).bytes == [0x3A, 0x04, 0x06])
        #expect(Type2Command.fastRead(start: 4, end: 6).expectedAnswerLength == 12)
        #expect(Type2Command.write(page: 4, data: [1, 2, 3, 4]).bytes == [0xA2, 0x04, 0x01, 0x02, 0x03, 0x04])
        #expect(Type2Command.compatibilityWriteAddress(page: 5).bytes == [0xA0, 0x05])
        #expect(Type2Command.getVersion.bytes == [0x60])
        #expect(Type2Command.readSignature.bytes == [0x3C, 0x00])
        #expect(Type2Command.readCounter(2).bytes == [0x39, 0x02])
        #expect(Type2Command.checkTearingEvent(1).bytes == [0x3E, 0x01])
        #expect(Type2Command.pwdAuth(password: [1, 2, 3, 4]).bytes == [0x1B, 0x01, 0x02, 0x03, 0x04])
        // PN53x would take 60h/1Bh for MIFARE Classic commands: they go raw.
        #expect(Type2Command.getVersion.framing == .raw)
        #expect(Type2Command.pwdAuth(password: [1, 2, 3, 4]).framing == .raw)
        #expect(Type2Command.read(page: 0).framing == .standard)
        #expect(Type2Command.readCounter(2).framing == .standard)
    }

    @Test func readWriteAndFastReadOnAVirtualTag() async throws {
        let tag = VirtualType2Tag(model: .ntag213, uid: Self.uid)
        let transport = VirtualTagTransport(tag: tag)
        try await Type2Command.write(page: 4, data: [0x01, 0x02, 0x03, 0x04], to: transport)
        #expect(try await Type2Command.read(page: 4, from: transport).prefix(4) == [0x01, 0x02, 0x03, 0x04])
        #expect(try await Type2Command.fastRead(pages: 4...6, from: transport).count == 12)
        await #expect(throws: NFCError.invalidArgument("A Type 2 page holds 4 bytes, not 3")) {
            try await Type2Command.write(page: 4, data: [1, 2, 3], to: transport)
        }
        await #expect(throws: NFCError.invalidArgument("Page 300 is outside 0-255")) {
            try await Type2Command.read(page: 300, from: transport)
        }
    }

    @Test func refusedWriteIsWriteFailed() async throws {
        let transport = VirtualTagTransport(tag: VirtualType2Tag(model: .ntag213, uid: Self.uid))
        await #expect(throws: NFCError.writeFailed(page: 0)) {
            try await Type2Command.write(page: 0, data: [0, 0, 0, 0], to: transport)
        }
    }

    @Test func compatibilityWriteIsTwoFrames() async throws {
        // Upstream [BUG]: one 18-byte frame, which a real tag NAKs.
        let tag = VirtualType2Tag(model: .ultralight, uid: Self.uid)
        let transport = VirtualTagTransport(tag: tag)
        try await Type2Command.compatibilityWrite(page: 5, data: [0xAA, 0xBB, 0xCC, 0xDD], to: transport)
        #expect(transport.sentCommands == [[0xA0, 0x05], [0xAA, 0xBB, 0xCC, 0xDD] + [UInt8](repeating: 0, count: 12)])
        #expect(Array(tag.memory[20..<24]) == [0xAA, 0xBB, 0xCC, 0xDD])

        // The one-frame form upstream sent is refused.
        let single = [0xA0, 0x06, 0x11, 0x22, 0x33, 0x44] + [UInt8](repeating: 0, count: 12)
        await #expect(throws: NFCError.commandRefused(command: 0xA0, nak: 0)) {
            try await transport.transceive(single)
        }
    }

    @Test func getVersionSignatureAndCounters() async throws {
        let tag = VirtualType2Tag(model: .ultralightEV1_11, uid: Self.uid)
        tag.counters = [0x030201, 0, 5]
        let transport = VirtualTagTransport(tag: tag)
        #expect(try await Type2Command.getVersion(from: transport) == [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03])
        #expect(try await Type2Command.readSignature(from: transport, length: Type2Product.ultralightEV1_MF0UL11.signatureLength ?? 0) == tag.signature)
        // Upstream vector: READ_CNT answer 01 02 03 ⇒ 197121 (little-endian).
        #expect(try await Type2Command.readCounter(0, from: transport) == 197_121)
        #expect(try await Type2Command.readCounter(2, from: transport) == 5)
        #expect(try await Type2Command.checkTearingEvent(1, from: transport) == 0xBD)
        #expect(tag.signature.count == 32)
        // Ultralight AES answers 48 bytes (MF0AES(H)20 §10.7): all of them are returned.
        let aes = VirtualType2Tag(model: .ultralightAES, uid: Self.uid)
        let signature = try await Type2Command.readSignature(from: VirtualTagTransport(tag: aes), length: Type2Product.ultralightAES.signatureLength ?? 0)
        #expect(signature.count == 48 && signature == aes.signature)
    }

    @Test func pwdAuthReturnsPackAndRefusalIsAuthenticationFailed() async throws {
        let tag = VirtualType2Tag(model: .ntag215, uid: Self.uid)
        tag.setPassword([0xAB, 0xCD, 0xEF, 0xFF], pack: [0x12, 0x34])
        let transport = VirtualTagTransport(tag: tag)
        #expect(try await Type2Command.pwdAuth(password: [0xAB, 0xCD, 0xEF, 0xFF], on: transport) == [0x12, 0x34])
        #expect(tag.isAuthenticated)
        await #expect(throws: NFCError.authenticationFailed) {
            try await Type2Command.pwdAuth(password: [0x01, 0x23, 0x45, 0x67], on: transport)
        }
        await #expect(throws: NFCError.invalidArgument("A PWD_AUTH password is 4 bytes, not 5")) {
            try await Type2Command.pwdAuth(password: [1, 2, 3, 4, 5], on: transport)
        }
    }

    @Test func shortAnswerIsInvalidResponse() async throws {
        struct ShortTransport: TagTransport {
            let target = Target(uid: [1, 2, 3, 4, 5, 6, 7], atqa: [0x00, 0x44], sak: 0)
            func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] { [0x01] }
            func reselect() async throws {}
        }
        await #expect(throws: NFCError.invalidResponse([0x01])) {
            try await Type2Command.read(page: 0, from: ShortTransport())
        }
        await #expect(throws: NFCError.writeFailed(page: 4)) {
            try await Type2Command.write(page: 4, data: [0, 0, 0, 0], to: ShortTransport())
        }
    }
}
