import NFCCore
import Testing
@testable import PN532Sim

@Suite struct VirtualType2TagTests {
    static let uid: [UInt8] = [0x04, 0x58, 0x69, 0xD2, 0x9C, 0x39, 0x80]

    private func active(_ model: VirtualType2Model) -> VirtualType2Tag {
        let tag = VirtualType2Tag(model: model, uid: Self.uid)
        _ = tag.activate()
        return tag
    }

    private func page(_ tag: VirtualType2Tag, _ number: Int) -> [UInt8] {
        Array(tag.memory[number * 4..<number * 4 + 4])
    }

    // MARK: Factory state

    @Test func factoryImage() {
        let tag = VirtualType2Tag(model: .ntag216, uid: Self.uid)
        #expect(tag.target == Target(uid: Self.uid, atqa: [0x00, 0x44], sak: 0x00))
        #expect(tag.memory.count == 231 * 4)
        #expect(page(tag, 0) == [0x04, 0x58, 0x69, 0xBD])  // BCC0 = 88 ^ 04 ^ 58 ^ 69
        #expect(page(tag, 1) == [0xD2, 0x9C, 0x39, 0x80])
        #expect(page(tag, 2) == [0xF7, 0x48, 0x00, 0x00])  // BCC1 = D2 ^ 9C ^ 39 ^ 80
        #expect(page(tag, 3) == [0xE1, 0x10, 0x6D, 0x00])
        #expect(page(tag, 4) == [0x03, 0x00, 0xFE, 0x00])
        #expect(page(tag, 226) == [0x00, 0x00, 0x00, 0xBD])
        #expect(page(tag, 227) == [0x04, 0x00, 0x00, 0xFF])  // AUTH0 = FF
        #expect(page(tag, 229) == [0xFF, 0xFF, 0xFF, 0xFF])  // PWD
        let ulc = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        #expect(page(ulc, 42) == [0x30, 0x00, 0x00, 0x00])
        #expect(Array(ulc.memory[176..<192]) == Array("BREAKMEIFYOUCAN!".utf8))
        #expect(VirtualType2Tag(model: .custom(version: [0, 4, 4, 5, 2, 2, 0x15, 3], totalPages: 492), uid: Self.uid)
            .memory.count == 492 * 4)
    }

    // MARK: READ / FAST_READ

    @Test func readRollsOverAtTheEndOfMemory() {
        let tag = active(.ntag213)
        #expect(tag.receive([0x30, 0x2C]) == .data([0, 0, 0, 0] + Array(tag.memory[0..<12])))  // PACK page reads 0
        #expect(tag.receive([0x30, 0x2D]) == .nak(0))
        #expect(tag.receive([0x30, 0x00]) == .silent)  // IDLE after the NAK
        _ = tag.activate()
        #expect(tag.receive([0x30, 0x00]) == .data(Array(tag.memory[0..<16])))
    }

    @Test func ultralightCKeyPagesAreNeverRead() {
        let tag = active(.ultralightC)
        #expect(tag.receive([0x30, 0x2A]) == .data(Array(tag.memory[168..<176]) + Array(tag.memory[0..<8])))
        #expect(tag.receive([0x30, 0x2C]) == .nak(0))
    }

    @Test func fastRead() {
        let tag = active(.ntag215)
        #expect(tag.receive([0x3A, 0x00, 0x03]) == .data(Array(tag.memory[0..<16])))
        #expect(tag.receive([0x3A, 0x05, 0x04]) == .nak(0))
        _ = tag.activate()
        #expect(tag.receive([0x3A, 0x80, 0x87]) == .nak(0))  // past page 134
        let ul = active(.ultralight)
        #expect(ul.receive([0x3A, 0x00, 0x03]) == .silent)  // unknown command: original UL stays mute
        let ntag203 = active(.ntag203)
        #expect(ntag203.receive([0x3A, 0x00, 0x03]) == .nak(0))
    }

    // MARK: WRITE, COMPATIBILITY_WRITE, locks

    @Test func writeRules() {
        let tag = active(.ntag213)
        #expect(tag.receive([0xA2, 0x04, 1, 2, 3, 4]) == .ack)
        #expect(page(tag, 4) == [1, 2, 3, 4])
        #expect(tag.receive([0xA2, 0x01, 1, 2, 3, 4]) == .nak(0))  // serial number
        _ = tag.activate()
        #expect(tag.receive([0xA2, 0x2D, 1, 2, 3, 4]) == .nak(0))  // past the end
        _ = tag.activate()
        #expect(tag.receive([0xA2, 0x04, 1, 2, 3]) == .nak(0))  // short frame
    }

    @Test func ccPageIsOneTimeProgrammable() {
        let tag = active(.ultralight)
        #expect(tag.receive([0xA2, 0x03, 0x00, 0x01, 0xF0, 0x0F]) == .ack)
        #expect(page(tag, 3) == [0xE1, 0x11, 0xF6, 0x0F])  // ORed into E1 10 06 00
    }

    @Test func staticLockBitsMakePagesReadOnly() {
        let tag = active(.ultralight)
        // Byte 2 bit 4 locks page 4; byte 3 bit 0 locks page 8; page 2 bytes 0-1 cannot change.
        #expect(tag.receive([0xA2, 0x02, 0xFF, 0xFF, 0x10, 0x01]) == .ack)
        #expect(page(tag, 2) == [0xF7, 0x48, 0x10, 0x01])
        #expect(tag.receive([0xA2, 0x04, 1, 2, 3, 4]) == .nak(0))
        _ = tag.activate()
        #expect(tag.receive([0xA2, 0x05, 1, 2, 3, 4]) == .ack)
        #expect(tag.receive([0xA2, 0x08, 1, 2, 3, 4]) == .nak(0))
        _ = tag.activate()
        // Lock bits cannot be cleared.
        #expect(tag.receive([0xA2, 0x02, 0x00, 0x00, 0x00, 0x00]) == .ack)
        #expect(page(tag, 2) == [0xF7, 0x48, 0x10, 0x01])
        // L-OTP locks the CC page.
        #expect(tag.receive([0xA2, 0x02, 0x00, 0x00, 0x08, 0x00]) == .ack)
        #expect(tag.receive([0xA2, 0x03, 0x00, 0x00, 0x00, 0x01]) == .nak(0))
    }

    @Test func blockLockBitsFreezeLockBits() {
        #expect(Type2LockMap.mergeStaticLockBytes(current: [0x02, 0x00], requested: [0xF0, 0xFF]) == [0x02, 0xFC])
        #expect(Type2LockMap.mergeStaticLockBytes(current: [0x05, 0x00], requested: [0xF8, 0xFF]) == [0xF5, 0x03])
        // The simulator's own rule (MF0ICU2 §7.5.2) gives the same.
        #expect(VirtualType2StaticLock.merge(current: [0x02, 0x00], requested: [0xF0, 0xFF]) == [0x02, 0xFC])
        #expect(VirtualType2StaticLock.merge(current: [0x05, 0x00], requested: [0xF8, 0xFF]) == [0xF5, 0x03])
    }

    @Test func dynamicLockBitsMakePagesReadOnly() {
        let tag = active(.ntag213)
        // NTAG213: byte 0 bit 0 locks pages 16-17.
        #expect(tag.receive([0xA2, 0x28, 0x01, 0x00, 0x00, 0x00]) == .ack)
        #expect(page(tag, 40) == [0x01, 0x00, 0x00, 0xBD])
        #expect(tag.receive([0xA2, 0x11, 1, 2, 3, 4]) == .nak(0))
        _ = tag.activate()
        #expect(tag.receive([0xA2, 0x12, 1, 2, 3, 4]) == .ack)

        let ntag216 = active(.ntag216)
        // NTAG216: byte 1 bit 5 (bit 13) locks pages 224-225.
        #expect(ntag216.receive([0xA2, 0xE2, 0x00, 0x20, 0x00, 0x00]) == .ack)
        #expect(ntag216.receive([0xA2, 0xE1, 1, 2, 3, 4]) == .nak(0))
        _ = ntag216.activate()
        #expect(ntag216.receive([0xA2, 0xDF, 1, 2, 3, 4]) == .ack)

        let ulc = active(.ultralightC)
        // Ultralight C: byte 0 bit 5 locks pages 28-31.
        #expect(ulc.receive([0xA2, 0x28, 0x20, 0x00, 0x00, 0x00]) == .ack)
        #expect(ulc.receive([0xA2, 0x1D, 1, 2, 3, 4]) == .nak(0))
        _ = ulc.activate()
        #expect(ulc.receive([0xA2, 0x1B, 1, 2, 3, 4]) == .ack)
        #expect(Type2LockMap.dynamicBits(for: .ntag215).count == 8)
        #expect(Type2LockMap.dynamicBits(for: .ntag216).count == 14)
        #expect(Type2LockMap.dynamicBits(for: .mifareUltralightEV1_MF0UL21).count == 10)
        #expect(Type2LockMap.dynamicBits(for: .mifareUltralight).isEmpty)
        #expect(VirtualType2Product.ntag215.dynamicLockBits.count == 8)
        #expect(VirtualType2Product.ntag216.dynamicLockBits.count == 14)
        #expect(VirtualType2Product.ultralightEV1_MF0UL21.dynamicLockBits.count == 10)
        #expect(VirtualType2Product.ultralight.dynamicLockBits.isEmpty)
    }

    @Test func compatibilityWriteIsTwoFramesWithPendingState() {
        let tag = active(.ntag203)
        #expect(tag.receive([0xA0, 0x06]) == .ack)
        #expect(tag.receive([9, 8, 7, 6] + [UInt8](repeating: 0xEE, count: 12)) == .ack)
        #expect(page(tag, 6) == [9, 8, 7, 6])
        // A field reset drops the pending state: the 16 bytes are then no command at all.
        #expect(tag.receive([0xA0, 0x07]) == .ack)
        tag.powerOff()
        _ = tag.activate()
        #expect(tag.receive([1, 1, 1, 1] + [UInt8](repeating: 0, count: 12)) == .nak(0))
        #expect(page(tag, 7) == [0, 0, 0, 0])
        // A second frame of the wrong length is refused.
        _ = tag.activate()
        #expect(tag.receive([0xA0, 0x07]) == .ack)
        #expect(tag.receive([1, 2, 3, 4]) == .nak(0))
    }

    // MARK: GET_VERSION, READ_SIG, READ_CNT, CHECK_TEARING_EVENT

    @Test func getVersionOnlyWhereItExists() throws {
        #expect(active(.ntag215).receive([0x60]) == .data([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]))
        #expect(active(.ntag203).receive([0x60]) == .nak(0))
        #expect(active(.ultralightC).receive([0x60]) == .nak(0))
        #expect(active(.ultralight).receive([0x60]) == .silent)
        let version: [UInt8] = [0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x15, 0x03]
        #expect(active(.custom(version: version, totalPages: 492)).receive([0x60]) == .data(version))
        // Every named model answers the bytes NFCCore identifies as its own product.
        let models: [VirtualType2Model] = [.ultralightEV1_11, .ultralightEV1_21, .ntag210, .ntag212, .ntag213, .ntag215,
                                           .ntag216]
        for model in models {
            let answer = try #require(model.version)
            let match = try #require(GetVersionTable.lookup(answer))
            #expect(match.isExact && match.product.name == model.product.name)
        }
    }

    @Test func signatureCountersAndTearing() {
        let ev1 = active(.ultralightEV1_21)
        ev1.counters = [0x030201, 7, 0x1FF_FFFF]
        #expect(ev1.receive([0x3C, 0x00]) == .data(ev1.signature))
        #expect(ev1.receive([0x39, 0x00]) == .data([0x01, 0x02, 0x03]))
        #expect(ev1.receive([0x39, 0x02]) == .data([0xFF, 0xFF, 0xFF]))  // 24-bit
        #expect(ev1.receive([0x3E, 0x01]) == .data([0xBD]))
        #expect(ev1.receive([0x39, 0x03]) == .nak(0))

        let ntag = active(.ntag213)
        ntag.counters = [0, 0, 42]
        #expect(ntag.receive([0x39, 0x02]) == .nak(0))  // NFC_CNT_EN off at delivery
        ntag.setNFCCounterEnabled(true)
        _ = ntag.activate()
        #expect(ntag.receive([0x39, 0x00]) == .nak(0))  // only counter 2
        _ = ntag.activate()
        #expect(ntag.receive([0x39, 0x02]) == .data([42, 0, 0]))
        #expect(ntag.receive([0x3E, 0x02]) == .nak(0))  // no tearing flags on NTAG21x
        #expect(active(.ntag210).receive([0x39, 0x02]) == .nak(0))
        #expect(active(.ultralightC).receive([0x3C, 0x00]) == .nak(0))
    }

    // MARK: PWD_AUTH and AUTH0 / PROT

    @Test func pwdAuthAndProtection() {
        let tag = active(.ntag213)
        tag.setPassword([0x11, 0x22, 0x33, 0x44], pack: [0xAB, 0xCD])
        tag.setAuth0(0x10)
        // PROT = 0: reads free, writes from AUTH0 on need the password.
        #expect(tag.receive([0x30, 0x10]) == .data(Array(tag.memory[64..<80])))
        #expect(tag.receive([0xA2, 0x10, 1, 2, 3, 4]) == .nak(0))
        _ = tag.activate()
        #expect(tag.receive([0xA2, 0x0F, 1, 2, 3, 4]) == .ack)
        // PROT = 1: reads from AUTH0 on are refused; READ below it rolls over at AUTH0.
        tag.setReadProtection(true)
        #expect(tag.receive([0x30, 0x10]) == .nak(0))
        _ = tag.activate()
        #expect(tag.receive([0x30, 0x0E]) == .data(Array(tag.memory[56..<64]) + Array(tag.memory[0..<8])))
        #expect(tag.receive([0x3A, 0x0C, 0x10]) == .nak(0))
        _ = tag.activate()
        // Wrong password: NAK, IDLE.
        #expect(tag.receive([0x1B, 0xFF, 0xFF, 0xFF, 0xFF]) == .nak(0))
        #expect(tag.receive([0x30, 0x00]) == .silent)
        _ = tag.activate()
        #expect(tag.receive([0x1B, 0x11, 0x22, 0x33, 0x44]) == .data([0xAB, 0xCD]))
        #expect(tag.isAuthenticated)
        #expect(tag.receive([0x30, 0x10]) == .data(Array(tag.memory[64..<80])))
        #expect(tag.receive([0xA2, 0x10, 1, 2, 3, 4]) == .ack)
        // PWD and PACK read back as zeros even when authenticated.
        #expect(tag.receive([0x30, 0x2B]) == .data([UInt8](repeating: 0, count: 8) + Array(tag.memory[0..<8])))
        // Field off: authentication is gone.
        tag.powerOff()
        #expect(!tag.isAuthenticated)
        _ = tag.activate()
        #expect(tag.receive([0x30, 0x10]) == .nak(0))
    }

    @Test func configurationLock() {
        let tag = active(.ultralightEV1_11)
        #expect(tag.receive([0xA2, 0x11, 0x40, 0x05, 0x00, 0x00]) == .ack)  // CFGLCK
        #expect(tag.receive([0xA2, 0x10, 0x00, 0x00, 0x00, 0x04]) == .nak(0))
        _ = tag.activate()
        #expect(tag.receive([0xA2, 0x12, 1, 2, 3, 4]) == .ack)  // PWD stays writable
    }

    @Test func ultralightCAuth0AndAuth1() {
        let tag = active(.ultralightC)
        tag.setAuth0(0x10)
        tag.setReadProtection(false)  // AUTH1 bit 0 = 1: write protection only
        #expect(page(tag, 43)[0] & 1 == 1)
        #expect(tag.receive([0x30, 0x10]) == .data(Array(tag.memory[64..<80])))
        #expect(tag.receive([0xA2, 0x10, 1, 2, 3, 4]) == .nak(0))
        tag.setReadProtection(true)
        _ = tag.activate()
        #expect(tag.receive([0x30, 0x10]) == .nak(0))
        // 3DES AUTHENTICATE part 1 answers AF ‖ ek(RndB) (the full exchange: UltralightCAuthenticationTests).
        _ = tag.activate()
        guard case let .data(challenge) = tag.receive([0x1A, 0x00]) else {
            Issue.record("1A 00 must be answered")
            return
        }
        #expect(challenge.count == 9 && challenge.first == 0xAF)
        // Only key number 00 exists.
        _ = tag.activate()
        #expect(tag.receive([0x1A, 0x01]) == .nak(0))
    }

    // MARK: HALT, fault hooks, fixtures

    @Test func haltSilencesUntilWakeUp() {
        let tag = active(.ntag213)
        #expect(tag.receive([0x50, 0x00]) == .silent)
        #expect(tag.receive([0x30, 0x00]) == .silent)
        #expect(tag.activate())
        #expect(tag.receive([0x30, 0x00]) == .data(Array(tag.memory[0..<16])))
    }

    @Test func faultHooks() {
        let tag = active(.ntag215)
        tag.corruptNextWrite()
        #expect(tag.receive([0xA2, 0x04, 0x0F, 0x02, 0x03, 0x04]) == .ack)
        #expect(page(tag, 4) == [0xF0, 0x02, 0x03, 0x04])
        #expect(tag.receive([0xA2, 0x05, 0x0F, 0x02, 0x03, 0x04]) == .ack)
        #expect(page(tag, 5) == [0x0F, 0x02, 0x03, 0x04])
        tag.failWrites(fromPage: 6)
        #expect(tag.receive([0xA2, 0x06, 1, 2, 3, 4]) == .nak(5))
        _ = tag.activate()
        tag.failWrites(fromPage: nil)
        #expect(tag.receive([0xA2, 0x06, 1, 2, 3, 4]) == .ack)
    }

    @Test func memoryAccessAndNDEFFixture() throws {
        let tag = VirtualType2Tag(model: .ultralight, uid: Self.uid)
        tag.memory = [0x01]
        #expect(tag.memory.count == 64 && tag.memory[0] == 0x01 && tag.memory[1] == 0)
        try tag.writeNDEF([0xD1, 0x01, 0x01, 0x54])
        #expect(Array(tag.memory[16..<24]) == [0x03, 0x04, 0xD1, 0x01, 0x01, 0x54, 0xFE, 0x00])
        #expect(throws: NFCError.capacityExceeded(needed: 51, available: 48)) {
            try tag.writeNDEF([UInt8](repeating: 0, count: 48))
        }
    }

    @Test func worksThroughTheInProcessTransport() async throws {
        let transport = VirtualTagTransport(tag: VirtualType2Tag(model: .ntag213, uid: Self.uid))
        #expect(try await transport.transceive([0x60], framing: .raw) == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
        #expect(try await transport.transceive([0xA2, 0x04, 1, 2, 3, 4]) == [0x0A])
        await #expect(throws: NFCError.commandRefused(command: 0x30, nak: 0)) { try await transport.transceive([0x30, 0xFF]) }
        await #expect(throws: NFCError.timeout) { try await transport.transceive([0x30, 0x00]) }
        try await transport.reselect()
        #expect(try await transport.transceive([0x30, 0x04]).prefix(4) == [1, 2, 3, 4])
    }
}
