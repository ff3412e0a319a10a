import Foundation
import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// The real executor, recording the identification each command was handed (``PresentTag/cardInfo``).
final class IdentificationRecordingExecutor: CommandExecuting {
    let inner = TagCommandExecutor()
    private let handed = Mutex<[CardInfo?]>([])

    /// What each command was handed, in order.
    var identifications: [CardInfo?] { handed.withLock { $0 } }

    func execute(_ action: CommandAction, on transport: any TagTransport, identified: CardInfo?)
        async throws(CommandError) -> any CommandOutcome
    {
        handed.withLock { $0.append(identified) }
        return try await inner.execute(action, on: transport, identified: identified)
    }
}

/// A command acts on the reader loop's identification of the tag instead of identifying it again,
/// and still works on families whose identification talks to the tag (Type 4's SELECTs, FeliCa).
@Suite(.timeLimit(.minutes(1))) struct IdentifiedTagCommandTests {
    static let getVersion: UInt8 = 0x60

    func uriMessage(_ uri: String) throws -> [UInt8] {
        try NDEFMessage(records: NDEFJSON.decodeRecords(Data(#"[{"uri":"\#(uri)"}]"#.utf8))).bytes
    }

    func frames(_ transport: VirtualTagTransport, startingWith byte: UInt8) -> Int {
        transport.sentCommands.filter { $0.first == byte }.count
    }

    @Test func aType2TagIdentifiedByTheLoopIsNotIdentifiedAgain() async throws {
        let tag = VirtualType2Tag(model: .ntag215, uid: CommandHarness.tagUID)
        let info = try await TagIdentifier.identify(VirtualTagTransport(tag: tag))
        let message = try uriMessage("https://example.com/once")

        let known = VirtualTagTransport(tag: tag)
        let outcome = try await TagCommandExecutor().execute(.write(message: message, password: nil), on: known, identified: info)
        #expect(frames(known, startingWith: Self.getVersion) == 0, "\(known.sentCommands)")
        #expect(JSONValueEncoder.members(of: outcome)["cardType"] == .string(CardType.ntag215.description))
        #expect(Array(tag.memory[16..<(18 + message.count)]) == [0x03, UInt8(message.count)] + message)

        // Another tag's identification (or none) is not used: the executor identifies this one.
        var other = info
        other.uid = CommandHarness.otherUID
        let unknown = VirtualTagTransport(tag: tag)
        _ = try await TagCommandExecutor().execute(.format(password: nil), on: unknown, identified: other)
        #expect(frames(unknown, startingWith: Self.getVersion) > 0)
    }

    @Test func aFeliCaLiteSWritesAndDumpsFromTheLoopsIdentification() async throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: [0x01, 0x2E, 0x4C, 0x7A, 0x11, 0x22, 0x33, 0x44], ndef: [])
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        #expect(info.systemCode != nil)
        // The loop's presence checks re-select the tag between its scan and the command.
        try await transport.reselect()
        let message = try uriMessage("https://example.com/felica")
        let written = JSONValueEncoder.members(
            of: try await TagCommandExecutor().execute(.write(message: message, password: nil), on: transport, identified: info))
        #expect(written["uid"] == "012E4C7A11223344", "\(written)")
        #expect(tag.ndefMessage == message)
        let dumped = JSONValueEncoder.members(
            of: try await TagCommandExecutor().execute(.dump(format: .json), on: transport, identified: info))
        #expect(dumped["format"] == "json")
        #expect(dumped["cardType"] == .string(info.type.description))
        #expect(dumped["dump"]?.objectValue != nil, "\(dumped)")
    }

    @Test func aType4WriteThroughTheAgentUsesTheScansIdentification() async throws {
        let recorder = IdentificationRecordingExecutor()
        let h = try AgentHarness(scanner: NFCCoreScanner(), commandExecutor: recorder)
        await h.waitFor(.reader, where: { $0["state"] == "ok" })
        let tag = try VirtualType4Tag(uid: CommandHarness.tagUID)
        h.device.place(tag)
        await h.waitFor(.scanned)
        h.publisher.deliver(
            InboundMessage(
                topic: "\(h.topics.root)/request/write",
                payload: Array(#"{"id":"t4","records":[{"uri":"https://example.com/type4"}]}"#.utf8)))
        let (_, response) = await h.publisher.waitForJSON(on: "nfc/test/response/write", where: { $0["status"] != "waiting" })
        #expect(response["status"] == "ok", "\(response)")
        #expect(tag.ndefMessage == (try uriMessage("https://example.com/type4")))
        let handed = try #require(recorder.identifications.first ?? nil)
        #expect(handed.uid == CommandHarness.tagUID)
        #expect(handed.ats != nil)
        await h.stop()
    }

    @Test func aReselectedTagKeepsItsIdentification() async throws {
        let access = ReaderTagAccess()
        let tag = VirtualType2Tag(model: .ntag215, uid: CommandHarness.tagUID)
        let info = try await TagIdentifier.identify(VirtualTagTransport(tag: tag))
        access.tagArrived(VirtualTagTransport(tag: tag), cardInfo: info)
        #expect(try await access.presentTags().first?.cardInfo == info)
        let again = VirtualTagTransport(tag: tag)
        access.tagReselected(again)
        let present = try #require(try await access.presentTags().first)
        #expect(present.cardInfo == info)
        #expect(present.transport as? VirtualTagTransport === again)
    }
}
