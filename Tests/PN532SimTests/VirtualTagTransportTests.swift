import NFCCore
import Testing
@testable import PN532Sim

/// A minimal tag that echoes, NAKs on 0xFF and is silent after a NAK until re-activated.
final class EchoTag: VirtualTag, @unchecked Sendable {
    let target = Target(uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06], atqa: [0x00, 0x44], sak: 0x00)
    private var active = false
    func activate() -> Bool { active = true; return true }
    func powerOff() { active = false }
    func receive(_ frame: [UInt8]) -> VirtualTagReply {
        guard active else { return .silent }
        if frame.first == 0xFF { active = false; return .nak(0x0) }
        return .data(frame)
    }
}

@Suite struct VirtualTagTransportTests {
    @Test func nakMapsToRefusalAndReselectRecovers() async throws {
        let transport = VirtualTagTransport(tag: EchoTag())
        #expect(try await transport.transceive([0x30, 0x04]) == [0x30, 0x04])
        await #expect(throws: NFCError.commandRefused(command: 0xFF, nak: 0)) { try await transport.transceive([0xFF]) }
        await #expect(throws: NFCError.timeout) { try await transport.transceive([0x30, 0x00]) }
        try await transport.reselect()
        #expect(try await transport.transceive([0x30, 0x00]) == [0x30, 0x00])
    }

    @Test func removalAfterCommands() async throws {
        let transport = VirtualTagTransport(tag: EchoTag())
        transport.remove(afterCommands: 1)
        _ = try await transport.transceive([0x01])
        await #expect(throws: NFCError.tagRemoved) { try await transport.transceive([0x02]) }
        #expect(transport.sentCommands.count == 2)
    }
}
