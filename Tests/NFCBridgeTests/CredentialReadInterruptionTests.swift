import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// A card that leaves during the credential's read behind a key: a PC/SC reader answers the APDU it was
/// in the middle of with its own 63 00 ("operation failed"), which is no DESFire answer. The read ends
/// the checks (``NFCError/tagRemoved``: the scan reports `check_interrupted` and an `event/error`)
/// instead of reporting a card without the credential.
@Suite struct CredentialReadInterruptionTests {
    /// A reader in front of a virtual card: after `answered` APDUs the card is gone, the reader answers
    /// 63 00 and a re-select finds nothing.
    final class LeavingCard: APDUTransport, Sendable {
        let card: VirtualTagTransport
        let left = Mutex<Int>(0)
        init(_ card: VirtualTagTransport, answered: Int) {
            self.card = card
            left.withLock { $0 = answered }
        }
        var target: Target { card.target }
        var carriesNativeDESFireFrames: Bool { false }
        var isGone: Bool { left.withLock { $0 <= 0 } }
        func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] { try await card.transceive(command, framing: framing) }
        func sendAPDU(_ apdu: [UInt8]) async throws -> [UInt8] {
            let gone = left.withLock { left -> Bool in
                left -= 1
                return left < 0
            }
            return gone ? [0x63, 0x00] : try await card.sendAPDU(apdu)
        }
        func reselect() async throws {
            if isGone { throw NFCError.tagRemoved }
            try await card.reselect()
        }
    }

    static let key: [UInt8] = Array(0..<16)
    static let credential: [UInt8] = Array(100..<132)

    static func card() throws -> VirtualTagTransport {
        typealias V = VirtualDESFireTag
        let app = V.Application(aid: [0x56, 0x34, 0x12], files: [
            V.File(id: 0x01, communication: 0x03, read: 0x01, readWrite: 0x01, contents: .standard(credential)),
        ], keys: [1: key])
        return VirtualTagTransport(tag: try V(uid: [0x04, 0x2F, 0x19, 0x0A, 0xCD, 0x66, 0x80], model: .ev2, applications: [app]))
    }

    static let keys = DESFireKeys([DESFireKey(name: "door", application: [0x56, 0x34, 0x12], keyNumber: 1, cipher: .aes, key: SecretBytes(key))])

    @Test func aCardGoneMidReadEndsTheChecks() async throws {
        let whole = try Self.card()
        let info = try await TagIdentifier.identify(whole)
        let source = CredentialSource.desfire(aid: [0x12, 0x34, 0x56], file: 1, offset: 0, length: 32)
        let read = try await CredentialReader.read(source, info: info, records: [], transport: whole, keys: Self.keys)
        #expect(read.bytes == Self.credential, "the whole read gives the credential")
        // Gone after the SelectApplication, after the GetFileSettings, and in the authentication.
        for answered in 1...3 {
            let leaving = LeavingCard(try Self.card(), answered: answered)
            await #expect(throws: NFCError.tagRemoved, "gone after \(answered) APDUs") {
                _ = try await CredentialReader.read(source, info: info, records: [], transport: leaving, keys: Self.keys)
            }
        }
    }
}
