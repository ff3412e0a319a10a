import NFCCore
import PN532Sim
import Synchronization
import Testing

/// The frames a FeliCa Lite / Lite-S scan sends (issue 25): identification's block 90h probe asks for
/// the attribute block and the first NDEF blocks too (one Read Without Encryption of 4 blocks, the most
/// the FeliCa Lite-S user's manual §4.4.2 allows), so a short message costs the scan one READ in all.
@Suite struct FeliCaScanFrameTests {
    static let idm = FeliCaTests.idm
    /// `06 IDm 01 0B00 n` and the 2-byte block-list elements (`80 bb`: service 0, block bb).
    static func read(_ blocks: [UInt8]) -> String {
        "06" + idm.hexString + "010B00" + UInt8(blocks.count).hexString + blocks.map { "80" + $0.hexString }.joined()
    }

    /// Identification, then the scan's NDEF read (`justIdentified`, as `nfcbridge scan` and the agent read).
    static func scan(_ transport: some TagTransport) async throws -> (CardInfo, NDEFReadResult) {
        let info = try await TagIdentifier.identify(transport)
        return (info, try await NDEFReader.read(info: info, transport: transport, justIdentified: true))
    }

    /// A message of up to 32 bytes (2 blocks): one READ of 90h, 00h, 01h, 02h and nothing else (was
    /// three: READ 90h, the attribute block, the NDEF blocks).
    @Test func aLiteSWithAShortMessageIsIdentifiedAndReadInOneCommand() async throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: Self.idm, ndef: FeliCaTests.message)
        let transport = VirtualTagTransport(tag: tag)
        let (info, ndef) = try await Self.scan(transport)
        #expect(info.type == .felicaLiteS)
        #expect(info.probes == ["READ 90: ok"])
        #expect(ndef == .message(FeliCaTests.message))
        #expect(transport.sentCommands.map(\.hexString) == [Self.read([0x90, 0x00, 0x01, 0x02])])
    }

    /// A longer message: the blocks identification did not read come in one more READ (Nbr 4).
    @Test func aLiteSWithALongerMessageReadsOnlyTheRest() async throws {
        let message: [UInt8] = [0xD1, 0x01, 0x3C, 0x54, 0x02, 0x65, 0x6E] + Array(repeating: 0x61, count: 58)  // 65 bytes: 5 blocks
        let tag = try VirtualFeliCaTag(model: .liteS, idm: Self.idm, ndef: message)
        let transport = VirtualTagTransport(tag: tag)
        let (_, ndef) = try await Self.scan(transport)
        #expect(ndef == .message(message))
        #expect(transport.sentCommands.map(\.hexString) == [Self.read([0x90, 0x00, 0x01, 0x02]), Self.read([0x03, 0x04, 0x05])])
    }

    /// A Lite has no block 90h: it refuses the list at its first element (SF1 01h), which is the probe's
    /// answer; the NDEF read then reads the attribute block and the data as before.
    @Test func aLiteRefusesTheProbeAtBlock90AndIsReadAsBefore() async throws {
        let tag = try VirtualFeliCaTag(model: .lite, idm: Self.idm, ndef: FeliCaTests.message)
        let transport = VirtualTagTransport(tag: tag)
        let (info, ndef) = try await Self.scan(transport)
        #expect(info.type == .felicaLite)
        #expect(info.probes == ["READ 90: felica_read_failed"])
        #expect(ndef == .message(FeliCaTests.message))
        #expect(transport.sentCommands.map(\.hexString) == [Self.read([0x90, 0x00, 0x01, 0x02]), Self.read([0x00]), Self.read([0x01, 0x02])])
    }

    /// A Lite-S that refuses a later element of the list (a user block behind a MAC-checked read) is
    /// asked for block 90h alone, as before the combined read: still a Lite-S, its NDEF read from the tag.
    @Test func aRefusalAfterBlock90FallsBackToTheSingleProbe() async throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: Self.idm, ndef: FeliCaTests.message)
        let transport = RefusingFirstRead(VirtualTagTransport(tag: tag))
        let (info, ndef) = try await Self.scan(transport)
        #expect(info.type == .felicaLiteS)
        #expect(info.probes == ["READ 90: ok"])
        #expect(ndef == .message(FeliCaTests.message))
        #expect(transport.inner.sentCommands.map(\.hexString) == [Self.read([0x90]), Self.read([0x00]), Self.read([0x01, 0x02])])
    }

    /// Any read but the scan's own (after a write; a kept identification) reads the tag again: the
    /// blocks identification read are never taken for the tag's content later.
    @Test func aLaterReadDoesNotUseTheIdentificationBlocks() async throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: Self.idm, ndef: FeliCaTests.message)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        let replacement: [UInt8] = [0xD1, 0x01, 0x04, 0x54, 0x02, 0x65, 0x6E, 0x21]
        try await FeliCaType3.writeNDEF(replacement, transport: transport)
        #expect(try await NDEFReader.read(info: info, transport: transport) == .message(replacement))
    }
}

/// Answers the first Read Without Encryption of several blocks with SF1 02h / SF2 A8h (element 1
/// refused, JIS X 6319-4 status flags) without passing it on; everything else goes to `inner`.
private final class RefusingFirstRead: TagTransport {
    let inner: VirtualTagTransport
    private let refused = Mutex(false)
    var target: Target { inner.target }

    init(_ inner: VirtualTagTransport) { self.inner = inner }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        let refuse = command.count > 12 && command[0] == 0x06 && command[12] > 1 && refused.withLock { done in
            defer { done = true }
            return !done
        }
        if refuse { return [0x07] + Array(command[1...8]) + [0x02, 0xA8] }
        return try await inner.transceive(command, framing: framing)
    }

    func reselect() async throws { try await inner.reselect() }
}
