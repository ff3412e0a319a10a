import Testing
@testable import PN532Sim

/// PN532Sim's own Ultralight AES (``VirtualType2Product/ultralightAES``; its sources and what is
/// UNVERIFIED are in that type's comment): GET_VERSION, READ / FAST_READ over pages 00h–2Fh, READ_SIG
/// with 48 bytes (MF0AES(H)20 §10.7), and NAK 0h + IDLE for what it refuses.
@Suite struct VirtualUltralightAESTests {
    static let uid: [UInt8] = [0x04, 0x5E, 0x4C, 0xC2, 0x45, 0x13, 0x90]

    static func fresh() -> VirtualType2Tag {
        let tag = VirtualType2Tag(model: .ultralightAES, uid: uid)
        _ = tag.activate()
        return tag
    }

    @Test func getVersionNamesAnUltralightAES() {
        #expect(Self.fresh().receive([0x60]) == .data([0x00, 0x04, 0x03, 0x01, 0x04, 0x00, 0x0F, 0x03]))
        #expect(VirtualType2Product.answering([0x00, 0x04, 0x03, 0x02, 0x04, 0x00, 0x0F, 0x03])?.name == "Ultralight AES")
    }

    @Test func readSignatureAnswers48Bytes() {
        let tag = Self.fresh()
        let signature = (0..<48).map { UInt8($0) }
        tag.signature = signature
        #expect(tag.receive([0x3C, 0x00]) == .data(signature))
        #expect(Self.fresh().signature.count == 48, "the made-up signature has the chip's length too")
    }

    @Test func readAndFastReadReachPage2FhAndNoFurther() {
        let tag = Self.fresh()
        guard case let .data(first) = tag.receive([0x30, 0x00]) else {
            Issue.record("READ 00h refused")
            return
        }
        #expect(Array(first.prefix(3)) == Array(Self.uid.prefix(3)))
        guard case let .data(all) = tag.receive([0x3A, 0x00, 0x2F]) else {
            Issue.record("FAST_READ 00h–2Fh refused")
            return
        }
        #expect(all.count == 48 * 4)
        #expect(tag.receive([0x30, 0x30]) == .nak(0))
        #expect(tag.receive([0x30, 0x00]) == .silent, "IDLE after the NAK")
        let other = Self.fresh()
        #expect(other.receive([0x3A, 0x2E, 0x30]) == .nak(0))
    }

    /// PWD_AUTH and CHECK_TEARING_EVENT are refused (NAK 0h, then IDLE); so are the commands the model
    /// does not simulate (AES AUTHENTICATE 1Ah, READ_CNT 39h): the chip answers those.
    @Test(arguments: [[0x1B, 0xFF, 0xFF, 0xFF, 0xFF], [0x3E, 0x00], [0x1A, 0x00], [0x39, 0x02]] as [[UInt8]])
    func refusedCommandsNAKAndLeaveTheTagIdle(frame: [UInt8]) {
        let tag = Self.fresh()
        #expect(tag.receive(frame) == .nak(0))
        #expect(tag.receive([0x30, 0x00]) == .silent)
    }

    @Test func aScenarioTakesA48ByteSignatureAndRefusesA32ByteOne() throws {
        let signature = String(repeating: "AB", count: 48)
        let scenario = try Scenario.parse("tags:\n  - {id: a, type: ultralight_aes, uid: 045E4CC2451390, signature: \(signature)}", file: "t.yaml")
        #expect(scenario.tags.first?.signature?.count == 48)
        #expect(throws: (any Error).self) {
            try Scenario.parse("tags:\n  - {id: a, type: ultralight_aes, signature: \(String(repeating: "AB", count: 32))}", file: "t.yaml")
        }
    }
}
