import Foundation
import NFCCore
import Testing

@testable import NFCBridge

/// The retained `tag` state, its `last` scan, the presence record of the state directory, and the
/// `initial` flag of a tag the previous run left on the reader.
@Suite struct TagPresenceTests {
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    let info = ReaderInfo(connstring: "virtual:0", name: "Virtual PN532", firmware: "PN532 v1.6")
    let card = TagScan.stub(uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
    let phone = TagScan.stub(uid: [0x08, 0x11, 0x22, 0x33], type: .unknown(atqa: [0x00, 0x04], sak: 0x20))

    func state(previous: PresenceStore.Saved) -> AgentState {
        AgentState(
            startedAt: start, startedMonotonic: 0, reader: ReaderStatus(state: .starting, device: nil, since: start),
            tags: TagPresence(previous: previous))
    }

    func reduce(_ state: inout AgentState, _ event: ReaderLoopEvent, at seconds: Double = 1) -> [AgentEffect] {
        AgentReducer.reduce(&state, event, now: start.addingTimeInterval(seconds), monotonic: Int64(seconds * 1000))
    }

    func scannedScans(_ effects: [AgentEffect]) -> [TagScan] {
        effects.compactMap { if case let .emitScanned(scan, _) = $0 { scan } else { nil } }
    }

    @Test func theTagPayloadKeepsTheLastScanWhenTheFieldEmpties() {
        var presence = TagPresence()
        #expect(presence.json == ["present": false])
        presence.arrive(card, at: start, reported: true)
        #expect(
            presence.json
                == [
                    "present": true, "uid": "04A1B2C3D4E5F6", "cardType": "NTAG215", "since": "2026-01-01T00:00:00.000Z",
                    "last": [
                        "uid": "04A1B2C3D4E5F6", "cardType": "NTAG215", "tag_id": "04A1B2C3D4E5F6", "random_uid": false,
                        "ts": "2026-01-01T00:00:00.000Z",
                    ],
                ])
        presence.remove(card.uid)
        #expect(presence.json["present"] == false)
        #expect(presence.json["last"]?["uid"] == "04A1B2C3D4E5F6")
        // A re-tap inside min_interval_ms is in the field but not a reported scan: `last` stays.
        presence.arrive(phone, at: start.addingTimeInterval(5), reported: false)
        #expect(presence.json["uid"] == "08112233")
        #expect(presence.json["last"]?["uid"] == "04A1B2C3D4E5F6")
        presence.arrive(phone, at: start.addingTimeInterval(6), reported: true)
        #expect(presence.json["last"]?["random_uid"] == true)
    }

    @Test func aTagLeftOnTheReaderIsInitialAtTheFirstPollOnly() {
        var s = state(previous: .init(present: [.init(uid: card.uid, cardType: "NTAG215", since: start)]))
        _ = reduce(&s, .progress)  // a back-off turn before the reader opened does not count
        _ = reduce(&s, .opened(info, reopened: false))
        let first = reduce(&s, .arrived(card, report: true))
        #expect(scannedScans(first).map(\.initial) == [true])
        #expect(s.tags.json["initial"] == true)
        _ = reduce(&s, .progress)
        _ = reduce(&s, .removed(uid: card.uid, presentMilliseconds: 100, report: true), at: 2)
        let again = reduce(&s, .arrived(card, report: true), at: 3)
        #expect(scannedScans(again).map(\.initial) == [false])
        #expect(s.tags.json["initial"] == nil)
    }

    @Test func aTagBackAfterTheFirstPollIsATap() {
        var s = state(previous: .init(present: [.init(uid: card.uid, cardType: "NTAG215", since: start)]))
        _ = reduce(&s, .opened(info, reopened: false))
        _ = reduce(&s, .progress)  // the first poll found the field empty
        #expect(scannedScans(reduce(&s, .arrived(card, report: true), at: 2)).map(\.initial) == [false])
    }

    @Test func anotherTagFirstEndsTheCarriedOverField() {
        var s = state(previous: .init(present: [.init(uid: card.uid, cardType: "NTAG215", since: start)]))
        _ = reduce(&s, .opened(info, reopened: false))
        #expect(scannedScans(reduce(&s, .arrived(phone, report: true))).map(\.initial) == [false])
        #expect(scannedScans(reduce(&s, .arrived(card, report: true))).map(\.initial) == [false])
    }

    @Test func theRecordSurvivesARestartAndABadOneIsMovedAside() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let store = PresenceStore(directory: dir.path)
        #expect(store.load().0 == PresenceStore.Saved())
        var presence = TagPresence()
        presence.arrive(card, at: start, reported: true)
        try store.save(presence)
        let (saved, problem) = PresenceStore(directory: dir.path).load()
        #expect(problem == nil)
        #expect(saved.present == [TagPresence.Tag(uid: card.uid, cardType: "NTAG215", since: start)])
        #expect(saved.last == presence.last)
        #expect(TagPresence(previous: saved).carriedOver == [card.uid])
        #expect(TagPresence(previous: saved).tags.isEmpty, "nothing is in the field until a poll finds it")

        try Data("{\"present\": [{\"uid\": \"zz\"}]}".utf8).write(to: URL(fileURLWithPath: store.path))
        let (empty, bad) = store.load()
        #expect(empty == PresenceStore.Saved())
        #expect(bad?.message.contains("presence.json.corrupt") == true)
        #expect(FileManager.default.fileExists(atPath: store.path + ".corrupt"))
        #expect(store.load().1 == nil, "moved aside: the next start is clean")
    }
}
