import NFCCore
import PN532Sim
import Synchronization
import Testing

private func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex) ?? [] }

/// Hands out fixed `UInt64` values: ``UltralightCAuthentication`` takes RndA as one big-endian draw.
private struct PinnedRandom: RandomNumberGenerator {
    var values: [UInt64]

    mutating func next() -> UInt64 {
        guard !values.isEmpty else {
            Issue.record("PinnedRandom ran out of values")
            return 0
        }
        return values.removeFirst()
    }
}

/// A Type 2 transport that plays a script (nfcpy's transcript-test shape): each frame must be the next
/// expected one, sent raw, and gets the scripted answer or error. Unexpected or leftover frames fail.
private final class ScriptedFrameTransport: TagTransport, Sendable {
    enum Reply: Sendable {
        case bytes(String)
        case error(NFCError)
    }

    let target = Target(uid: bytes("04 11 22 33 44 55 66"), atqa: [0x00, 0x44], sak: 0x00)
    private let steps: Mutex<[(expected: String, reply: Reply)]>

    init(_ script: [(String, Reply)]) {
        steps = Mutex(script.map { (bytes($0.0).hexString, $0.1) })
    }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        let step: (expected: String, reply: Reply)? = steps.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let step else {
            Issue.record("unexpected frame \(command.hexString) after the script ended")
            throw NFCError.timeout
        }
        #expect(command.hexString == step.expected)
        #expect(framing == .raw)
        switch step.reply {
        case let .bytes(hex): return bytes(hex)
        case let .error(error): throw error
        }
    }

    func reselect() async throws {
        Issue.record("authentication must leave re-selecting to the caller")
    }

    func verifyAllConsumed() {
        let left = steps.withLock { $0.map(\.expected) }
        #expect(left.isEmpty, "script steps left: \(left)")
    }
}

/// RndA as the single `UInt64` draw that yields it.
private func draw(_ rndA: String) -> UInt64 {
    bytes(rndA).reduce(0) { $0 << 8 | UInt64($1) }
}

@Suite struct UltralightCAuthTranscriptTests {
    /// nfcpy tests/test_tag_tt2_nxp.py (peers-nfc §1.10 b): nfcpy's password "BREAKMEIFYOUCAN!" is the
    /// memory order of pages 2Ch–2Fh, i.e. cipher key 49454D4B41455242 214E4143554F5946; RndA 00…07.
    @Test func nfcpyTranscript() async throws {
        let key = try UltralightCAuthentication.cipherKey(fromKeyPages: Array("BREAKMEIFYOUCAN!".utf8))
        #expect(key == UltralightCAuthentication.factoryKey)
        let tag = ScriptedFrameTransport([
            ("1A 00", .bytes("AF F7DFC7FA617C7F1D")),
            ("AF AB7EFBE63F40394010D04F018F8F48C3", .bytes("00 0355F3C176DCD1B1")),
        ])
        var random = PinnedRandom(values: [draw("0001020304050607")])
        try await UltralightCAuthentication.authenticate(key: key, transport: tag, using: &random)
        tag.verifyAllConsumed()
    }

    /// MF0ICU2 §7.5.6 "3DES Authentication example", factory key: RndB 51E764602678DF2B, RndA A8AF3B256C75ED40.
    @Test func datasheetTranscript() async throws {
        let tag = ScriptedFrameTransport([
            ("1A 00", .bytes("AF 577293FD2F34CA51")),
            ("AF 0A638559FC7737F9F15D7862EBBE967A", .bytes("00 3B884FA07C137CE1")),
        ])
        var random = PinnedRandom(values: [draw("A8AF3B256C75ED40")])
        try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: tag,
                                                         using: &random)
        tag.verifyAllConsumed()
    }

    /// CoreExtendedNFC UltralightTests (coreextendednfc §7): key 49454D4B…5946 used as the cipher key, RndA
    /// 0011223344556677, RndB 214E4143554F5946. Upstream derives the tag's answers at test time with its own
    /// cipher (same chaining as here); the bytes below were computed independently (pyca/cryptography).
    @Test func upstreamVector() async throws {
        let tag = ScriptedFrameTransport([
            ("1A 00", .bytes("AF F23830BD8F8F4A82")),
            ("AF 7D1E1B2362DEE977F1C0BCA673C442CA", .bytes("00 B3288E5C08D964F7")),
        ])
        var random = PinnedRandom(values: [draw("0011223344556677")])
        try await UltralightCAuthentication.authenticate(key: bytes("49454D4B41455242214E4143554F5946"),
                                                         transport: tag, using: &random)
        tag.verifyAllConsumed()
    }

    @Test func aTagThatDoesNotProveTheKeyFails() async throws {
        let tag = ScriptedFrameTransport([
            ("1A 00", .bytes("AF F7DFC7FA617C7F1D")),
            ("AF AB7EFBE63F40394010D04F018F8F48C3", .bytes("00 0355F3C176DCD1B2")),
        ])
        var random = PinnedRandom(values: [draw("0001020304050607")])
        await #expect(throws: NFCError.authenticationFailed) {
            try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: tag,
                                                             using: &random)
        }
        tag.verifyAllConsumed()
    }

    @Test func wrongKeyIsNAKedAndReportedAsAuthenticationFailed() async throws {
        // The tag decrypts a wrong RndB' and NAKs part 2 (MF0ICU2 §7.5.5 step 4).
        let tag = ScriptedFrameTransport([
            ("1A 00", .bytes("AF F7DFC7FA617C7F1D")),
            ("AF AB7EFBE63F40394010D04F018F8F48C3", .error(.commandRefused(command: 0xAF, nak: 0x0))),
        ])
        var random = PinnedRandom(values: [draw("0001020304050607")])
        await #expect(throws: NFCError.authenticationFailed) {
            try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: tag,
                                                             using: &random)
        }
        tag.verifyAllConsumed()
    }

    @Test func silenceOnPartOneIsAuthenticationFailed() async throws {
        let tag = ScriptedFrameTransport([("1A 00", .error(.timeout))])
        await #expect(throws: NFCError.authenticationFailed) {
            try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: tag)
        }
        tag.verifyAllConsumed()
    }

    @Test func removalPassesThrough() async throws {
        let tag = ScriptedFrameTransport([("1A 00", .error(.tagRemoved))])
        await #expect(throws: NFCError.tagRemoved) {
            try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: tag)
        }
    }

    @Test(arguments: ["00 F7DFC7FA617C7F1D", "AF F7DFC7FA617C7F", "AF F7DFC7FA617C7F1D00", ""])
    func badlyShapedAnswerIsInvalidResponse(answer: String) async throws {
        let tag = ScriptedFrameTransport([("1A 00", .bytes(answer))])
        await #expect(throws: NFCError.invalidResponse(bytes(answer))) {
            try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: tag)
        }
    }

    @Test func keyOfTheWrongLengthSendsNothing() async throws {
        let tag = ScriptedFrameTransport([])
        for length in [0, 8, 15, 17, 24] {
            await #expect(throws: NFCError.self) {
                try await UltralightCAuthentication.authenticate(key: [UInt8](repeating: 0, count: length),
                                                                 transport: tag)
            }
        }
        tag.verifyAllConsumed()
    }

    /// MF0ICU2 §7.5.7: Key1 = 0001020304050607, Key2 = 08090A0B0C0D0E0F are written as 07 06 05 04,
    /// 03 02 01 00, 0F 0E 0D 0C, 0B 0A 09 08 to pages 2Ch–2Fh.
    @Test func keyPageOrder() throws {
        let key = bytes("000102030405060708090A0B0C0D0E0F")
        let pages = try UltralightCAuthentication.keyPages(forCipherKey: key)
        #expect(pages.hexString == "07060504030201000F0E0D0C0B0A0908")
        #expect(try UltralightCAuthentication.cipherKey(fromKeyPages: pages) == key)
        #expect(throws: NFCError.self) { try UltralightCAuthentication.keyPages(forCipherKey: [1, 2, 3]) }
        #expect(throws: NFCError.self) { try UltralightCAuthentication.cipherKey(fromKeyPages: []) }
        #expect(UltralightCAuthentication.rotatedLeft([1, 2, 3]) == [2, 3, 1])
        #expect(UltralightCAuthentication.rotatedLeft([]) == [])
    }
}

/// End to end in process: ``UltralightCAuthentication`` against the virtual Ultralight C.
@Suite struct UltralightCAuthVirtualTagTests {
    static let uid = bytes("04 C1 C2 C3 C4 C5 C6")

    @Test func factoryKeyAuthenticates() async throws {
        let tag = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        let transport = VirtualTagTransport(tag: tag)
        #expect(!tag.isAuthenticated)
        try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: transport)
        #expect(tag.isAuthenticated)
        #expect(transport.sentCommands.map(\.first) == [0x1A, 0xAF])
    }

    @Test func wrongKeyFailsAndTheTagGoesIdle() async throws {
        let tag = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        let transport = VirtualTagTransport(tag: tag)
        // The memory-order bytes are not the cipher key: the classic mix-up fails like any wrong key.
        await #expect(throws: NFCError.authenticationFailed) {
            try await UltralightCAuthentication.authenticate(key: Array("BREAKMEIFYOUCAN!".utf8), transport: transport)
        }
        #expect(!tag.isAuthenticated)
        // IDLE after the NAK: nothing answers until the caller re-selects.
        await #expect(throws: NFCError.timeout) { try await Type2Command.read(page: 0, from: transport) }
        try await transport.reselect()
        try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: transport)
        #expect(tag.isAuthenticated)
    }

    @Test func authenticationOpensReadProtectedPages() async throws {
        let tag = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        tag.setAuth0(0x10)
        tag.setReadProtection(true)
        let transport = VirtualTagTransport(tag: tag)
        await #expect(throws: NFCError.self) { try await Type2Command.read(page: 0x10, from: transport) }
        try await transport.reselect()
        try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: transport)
        let pages = try await Type2Command.read(page: 0x10, from: transport)
        #expect(pages.count == 16)
        // Re-selecting drops the authentication again.
        try await transport.reselect()
        #expect(!tag.isAuthenticated)
        await #expect(throws: NFCError.self) { try await Type2Command.read(page: 0x10, from: transport) }
    }

    /// The datasheet's key programming example (§7.5.7) written with WRITE, then used as a cipher key.
    @Test func keyWrittenToPages44To47IsUsed() async throws {
        let tag = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        let transport = VirtualTagTransport(tag: tag)
        for (page, data) in [(0x2C, "07060504"), (0x2D, "03020100"), (0x2E, "0F0E0D0C"), (0x2F, "0B0A0908")] {
            try await Type2Command.write(page: page, data: bytes(data), to: transport)
        }
        await #expect(throws: NFCError.authenticationFailed) {
            try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey,
                                                             transport: transport)
        }
        try await transport.reselect()
        try await UltralightCAuthentication.authenticate(key: bytes("000102030405060708090A0B0C0D0E0F"),
                                                         transport: transport)
        #expect(tag.isAuthenticated)

        let other = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        other.setUltralightCKey(bytes("000102030405060708090A0B0C0D0E0F"))
        #expect(Array(other.memory[0x2C * 4..<0x30 * 4]) == Array(tag.memory[0x2C * 4..<0x30 * 4]))
    }

    /// The virtual tag answers the datasheet example byte for byte once RndB is pinned.
    @Test func virtualTagReproducesTheDatasheetTranscript() async throws {
        let tag = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        tag.pinUltralightCChallenge(bytes("51E764602678DF2B"))
        _ = tag.activate()
        #expect(tag.receive([0x1A, 0x00]) == .data(bytes("AF 577293FD2F34CA51")))
        #expect(tag.receive(bytes("AF 0A638559FC7737F9F15D7862EBBE967A")) == .data(bytes("00 3B884FA07C137CE1")))
        #expect(tag.isAuthenticated)

        // Pinned RndB and RndA through the authenticator: the same frames go out.
        let again = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        again.pinUltralightCChallenge(bytes("51E764602678DF2B"))
        let transport = VirtualTagTransport(tag: again)
        var random = PinnedRandom(values: [draw("A8AF3B256C75ED40")])
        try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey,
                                                         transport: transport, using: &random)
        #expect(transport.sentCommands == [[0x1A, 0x00], bytes("AF 0A638559FC7737F9F15D7862EBBE967A")])
    }

    @Test func anotherFrameBetweenTheTwoStepsAbortsTheAuthentication() {
        let tag = VirtualType2Tag(model: .ultralightC, uid: Self.uid)
        tag.pinUltralightCChallenge(bytes("51E764602678DF2B"))
        _ = tag.activate()
        #expect(tag.receive([0x1A, 0x00]) == .data(bytes("AF 577293FD2F34CA51")))
        if case .data = tag.receive([0x30, 0x04]) {} else { Issue.record("READ between the steps must still work") }
        #expect(tag.receive(bytes("AF 0A638559FC7737F9F15D7862EBBE967A")) == .nak(0x0))
        #expect(!tag.isAuthenticated)
    }

    @Test func tagsWithout3DESRefuseAuthenticate() async throws {
        // NTAG213 NAKs 1Ah; the original Ultralight stays silent. Both end as authenticationFailed.
        for model in [VirtualType2Model.ntag213, .ultralight] {
            let transport = VirtualTagTransport(tag: VirtualType2Tag(model: model, uid: Self.uid))
            await #expect(throws: NFCError.authenticationFailed) {
                try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey,
                                                                 transport: transport)
            }
        }
    }
}
