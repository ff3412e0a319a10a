import Foundation
import Testing

@testable import NFCBridge

/// Issue 19: the spool keeps an event's `seq`, `event_id` and kind as values and its payload as
/// bytes. A spool written before that (`spool.jsonl`, `spool.head`, `spool.live` as main wrote them
/// up to aaa2cf0) is still read: an upgrade keeps its buffered events, sends them byte for byte,
/// and the file format does not change.
@Suite(.timeLimit(.minutes(1))) struct SpoolUpgradeTests {
    /// Two events as the spool of aaa2cf0 wrote them: `JSONEncoder` with sorted keys and unescaped
    /// slashes, the payload spooled with `buffered: true`.
    static let scannedPayload =
        #"{"atqa":"0044","buffered":true,"event_id":"01JUPGRADE0000000000000041","ndef":{"records":[{"tnf":"well_known","type":"U","uri":"https://example.com/a"}]},"reader":"test","sak":0,"seq":41,"ts":"2025-12-31T23:50:00.000Z","type":"scanned","uid":"04A1B2C3D4E5F6"}"#
    static let removedPayload =
        #"{"buffered":true,"event_id":"01JUPGRADE0000000000000042","present_ms":1500,"reader":"test","seq":42,"ts":"2025-12-31T23:50:01.500Z","type":"removed","uid":"04A1B2C3D4E5F6"}"#
    static let lines = [
        #"{"payload":"# + scannedPayload + #","queuedAt":1767225000000,"topic":"nfc/test/event/scanned"}"#,
        #"{"payload":"# + removedPayload + #","queuedAt":1767225001500,"topic":"nfc/test/event/removed"}"#,
    ]

    /// A state directory holding the two events; `spool.live` says seq 42 went out live (and not
    /// durable) before a kill.
    static func directory() throws -> StateDirectory {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: dir.path + "/spool.jsonl"))
        try Data("0 42\n".utf8).write(to: URL(fileURLWithPath: dir.path + "/spool.head"))
        var live = [UInt8](repeating: 0, count: LiveSends.fileSize)
        live.replaceSubrange(0..<LiveSends.magic.count, with: LiveSends.magic)
        let offset = LiveSends.offset(of: 42)
        live.replaceSubrange(offset..<offset + LiveSends.slotSize, with: LiveSends.slot(42, LiveSends.Mark(notDurable: true)))
        try Data(live).write(to: URL(fileURLWithPath: dir.path + "/spool.live"))
        return dir
    }

    @Test func aSpoolOfTheEarlierFormatIsReadAsValuesAndWrittenBackTheSame() throws {
        let dir = try Self.directory()
        let spool = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        #expect(spool.corruptLineCount == 0 && !spool.hadTornTail)
        let messages = spool.messages
        #expect(messages.map(\.seq) == [41, 42])
        #expect(messages.map(\.eventID) == ["01JUPGRADE0000000000000041", "01JUPGRADE0000000000000042"])
        #expect(messages.map(\.kind) == [.scanned, .removed])
        #expect(messages.map(\.topic) == ["nfc/test/event/scanned", "nfc/test/event/removed"])
        #expect(messages.map(\.queuedAt) == [1_767_225_000_000, 1_767_225_001_500])
        #expect(messages.map { String(decoding: $0.payload, as: UTF8.self) } == [Self.scannedPayload, Self.removedPayload])
        // The line layout is unchanged: each message writes the line it was read from.
        #expect(messages.map { String(decoding: $0.spoolLine, as: UTF8.self) } == Self.lines.map { $0 + "\n" })
        #expect(spool.highestSeq == 42)
        #expect(spool.liveSends.earlierLiveSend(of: 42) == LiveSends.Mark(notDurable: true))
        #expect(spool.liveSends.earlierLiveSend(of: 41) == nil)
    }

    /// The agent started on that directory sends seq 41 as spooled (`buffered: true`) and seq 42 as
    /// its first copy went (`buffered: false, durable: false`), then goes on at seq 43.
    @Test func anUpgradedAgentSendsTheEarlierSpoolByteForByteAndGoesOnAfterIt() async throws {
        let h = try AgentHarness(directory: try Self.directory())
        await h.waitFor(.removed)
        let scanned = h.publisher.published(to: h.topics.topic(.scanned)).map { String(decoding: $0.payload, as: UTF8.self) }
        let removed = h.publisher.published(to: h.topics.topic(.removed)).map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(scanned == [Self.scannedPayload])
        #expect(
            removed == [
                Self.removedPayload.replacingOccurrences(of: #""buffered":true,"#, with: #""buffered":false,"durable":false,"#)
            ])
        h.device.place(makeTag())
        let (_, next) = await h.waitFor(.scanned) { $0["seq"] != 41 }
        #expect(next["seq"] == 43, "\(next)")
        await h.stop()
    }

    /// A line that is JSON but not an event the spool can send (no `event_id`, an unknown `type`, a
    /// payload that is not an object) is skipped and counted; a `seq` it carries still counts, so
    /// that number is never given again.
    @Test func aLineWithoutTheEnvelopeIsCountedAndItsSeqIsNeverReused() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let bad = [
            #"{"payload":{"buffered":true,"seq":90,"type":"scanned"},"queuedAt":1,"topic":"nfc/test/event/scanned"}"#,
            #"{"payload":{"buffered":true,"event_id":"E91","seq":91,"type":"sneezed"},"queuedAt":1,"topic":"nfc/test/event/x"}"#,
            #"{"payload":[1,2],"queuedAt":1,"topic":"nfc/test/event/scanned"}"#,
            #"{"payload":{"buffered":true,"event_id":"E92","seq":92,"type":"scanned"},"topic":"nfc/test/event/scanned"}"#,
        ]
        try Data((Self.lines + bad).map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: dir.path + "/spool.jsonl"))
        let spool = try EventSpool(directory: dir.path, maxEvents: 10, maxBytes: 1 << 20)
        #expect(spool.corruptLineCount == 4)
        #expect(spool.messages.map(\.seq) == [41, 42])
        #expect(spool.highestSeq == 92)
    }
}
