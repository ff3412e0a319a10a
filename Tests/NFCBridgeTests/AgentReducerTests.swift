import Foundation
import NFCCore
import Testing

@testable import NFCBridge

/// The agent's event handling as a pure function, tested without an agent, a reader or a clock.
@Suite struct AgentReducerTests {
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    let info = ReaderInfo(connstring: "virtual:0", name: "Virtual PN532", firmware: "PN532 v1.6")
    let scan = TagScan.stub(uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])

    func fresh() -> AgentState {
        AgentState(startedAt: start, startedMonotonic: 0, reader: ReaderStatus(state: .absent, device: nil, since: start))
    }

    func reduce(_ state: inout AgentState, _ event: ReaderLoopEvent, at seconds: Double = 1) -> [AgentEffect] {
        AgentReducer.reduce(&state, event, now: start.addingTimeInterval(seconds), monotonic: Int64(seconds * 1000))
    }

    @Test func openingPublishesReaderThenInfoAndCountsReopens() {
        var state = fresh()
        let effects = reduce(&state, .opened(info, reopened: false))
        #expect(state.reader == ReaderStatus(state: .ok, device: "virtual:0", since: start.addingTimeInterval(1)))
        #expect(state.readerInfo == info)
        #expect(state.readerReopens == 0)
        #expect(effects.dropFirst() == [.publishReader, .publishInfo])
        _ = reduce(&state, .opened(info, reopened: true), at: 2)
        #expect(state.readerReopens == 1)
    }

    @Test func anOutageIsReportedOnceAndTheStateOnlyWhenItChanges() {
        var state = fresh()
        let gone = NFCError.readerUnavailable("unplugged")
        let first = reduce(&state, .unavailable(gone, operation: "open", firstFailure: true))
        #expect(first.contains(.publishReader))
        #expect(first.contains(.emitError(gone, operation: "open", uid: nil)))
        #expect(state.reader.detail == gone.message)
        let again = reduce(&state, .unavailable(gone, operation: "open", firstFailure: false), at: 2)
        #expect(!again.contains(.publishReader))
        #expect(!again.contains { if case .emitError = $0 { true } else { false } })
    }

    @Test func aSilentReaderIsErrorReportedOnceAndHungAfterThreeFailedReopens() {
        var state = fresh()
        _ = reduce(&state, .opened(info, reopened: false))
        let silent = NFCError.readerUnresponsive("virtual:0: nfc_initiator_select_passive_target timed out")
        let lost = reduce(&state, .unavailable(silent, operation: "poll", firstFailure: true))
        #expect(lost.contains(.publishReader))
        #expect(lost.contains(.emitError(silent, operation: "poll", uid: nil)))
        #expect(silent.code == "reader_unresponsive")
        #expect(state.reader.state == .error)
        #expect(state.reader.detail == silent.message)
        #expect(!state.isReaderHung)
        // The port opens, the chip stays silent: still `error`, one event for the whole outage.
        let reopen = NFCError.readerUnresponsive("virtual:0: the port is there but no PN53x answered (nfc_open)")
        for attempt in 1...AgentReducer.reopensBeforeHung {
            let effects = reduce(&state, .unavailable(reopen, operation: "open", firstFailure: false), at: Double(1 + attempt))
            #expect(!effects.contains { if case .emitError = $0 { true } else { false } })
            #expect(state.reader.state == .error)
            #expect(state.isReaderHung == (attempt == AgentReducer.reopensBeforeHung), "attempt \(attempt)")
        }
        // It answers again: ok, no longer hung.
        #expect(reduce(&state, .opened(info, reopened: true), at: 9).contains(.publishReader))
        #expect(state.reader.state == .ok)
        #expect(!state.isReaderHung)
    }

    @Test func aSilentReaderThatIsThenUnpluggedIsAbsentAndNotHung() {
        var state = fresh()
        let reopen = NFCError.readerUnresponsive("virtual:0: the port is there but no PN53x answered (nfc_open)")
        for _ in 1...AgentReducer.reopensBeforeHung {
            _ = reduce(&state, .unavailable(reopen, operation: "open", firstFailure: false))
        }
        #expect(state.isReaderHung)
        // Waiting for a reader to be plugged in again is not a hang: the watchdog goes on.
        _ = reduce(&state, .unavailable(.readerUnavailable("unplugged"), operation: "open", firstFailure: false), at: 2)
        #expect(state.reader.state == .absent)
        #expect(!state.isReaderHung)
    }

    @Test func threeFailedPollsMakeTheReaderErrorAndARecoveryMakesItOK() {
        var state = fresh()
        _ = reduce(&state, .opened(info, reopened: false))
        let failure = NFCError.rfError("collision")
        #expect(reduce(&state, .pollFailed(failure, consecutive: 1)).contains(.emitError(failure, operation: "poll", uid: nil)))
        #expect(reduce(&state, .pollFailed(failure, consecutive: 2)) == [])
        #expect(reduce(&state, .pollFailed(failure, consecutive: 3)) == [.publishReader])
        #expect(state.reader.state == .error)
        #expect(state.pollErrors == 3)
        #expect(reduce(&state, .pollRecovered) == [.publishReader])
        #expect(state.reader.state == .ok)
        #expect(reduce(&state, .pollRecovered) == [])
    }

    /// Issue 20: `poll_errors` stayed 0 through `reader_unresponsive` and `reader_unavailable` episodes.
    @Test func pollErrorsCountThePollsThatLoseTheReader() {
        var state = fresh()
        _ = reduce(&state, .opened(info, reopened: false))
        _ = reduce(&state, .pollFailed(.rfError("collision"), consecutive: 1))
        _ = reduce(&state, .unavailable(.readerUnresponsive("no answer to InListPassiveTarget"), operation: "poll", firstFailure: true))
        _ = reduce(&state, .unavailable(.readerUnavailable("unplugged"), operation: "poll", firstFailure: true))
        // Reopening is not polling: failed opens are counted by the reader's state, not here.
        _ = reduce(&state, .unavailable(.readerUnavailable("unplugged"), operation: "open", firstFailure: false))
        #expect(state.pollErrors == 3)
    }

    @Test func arrivalsAndRemovalsKeepTheFieldAndTheCounts() {
        var state = fresh()
        let arrived = reduce(&state, .arrived(scan, report: true), at: 5)
        #expect(arrived.dropFirst() == [.emitScanned(scan, at: start.addingTimeInterval(5)), .publishTag])
        #expect(state.tags.tags.map(\.uid) == [scan.uid])
        #expect(state.scansTotal == 1)
        // A re-tap within min_interval_ms: the field changes, nothing is reported or counted.
        #expect(reduce(&state, .arrived(scan, report: false), at: 6).dropFirst() == [.publishTag])
        #expect(state.scansTotal == 1)
        #expect(reduce(&state, .repeated(scan)).dropFirst() == [.emitScanned(scan, at: nil)])
        #expect(state.scansTotal == 2)
        let removed = reduce(&state, .removed(uid: scan.uid, presentMilliseconds: 900, report: true))
        #expect(removed.dropFirst() == [.emitRemoved(RemovedEvent(uid: scan.uid, cardType: scan.cardType, presentMilliseconds: 900)), .publishTag])
        #expect(state.tags.tags.isEmpty)
        #expect(reduce(&state, .removed(uid: scan.uid, presentMilliseconds: 1, report: false)) == [.publishTag])
    }

    @Test func aPhonesRemovalSaysItsUIDWasRandomAndWhatItWas() {
        var state = fresh()
        let phone = TagScan.stub(uid: [0x08, 0x12, 0x34, 0x56], type: .type4NDEF)
        _ = reduce(&state, .arrived(phone, report: true), at: 1)
        let removed = reduce(&state, .removed(uid: phone.uid, presentMilliseconds: 300, report: true))
        guard case let .emitRemoved(event)? = removed.first(where: { if case .emitRemoved = $0 { true } else { false } }) else {
            Issue.record("no removed: \(removed)")
            return
        }
        let wire = JSONWire.text(event)
        #expect(wire.contains(#""random_uid":true"#), "\(wire)")
        #expect(wire.contains(#""cardType":"\#(phone.cardType)""#), "\(wire)")
        #expect(event.cardType == phone.cardType)
    }

    @Test func progressAndBusyOnlyMoveTheWatchdogMarks() {
        var state = fresh()
        #expect(reduce(&state, .busy(operation: "dump"), at: 3) == [])
        #expect(state.busySince == 3000)
        #expect(reduce(&state, .progress, at: 4) == [])
        #expect(state.busySince == nil)
        #expect(state.lastProgress == 4000)
        let failure = NFCError.tagRemoved
        #expect(reduce(&state, .failed(operation: "dump", uid: scan.uid, failure)).last == .emitError(failure, operation: "dump", uid: scan.uid))
        let dump = TagDump.stub(of: scan, pages: [[1, 2, 3, 4]])
        #expect(reduce(&state, .dumped(scan, dump)) == [.emitDump(scan, dump)])
    }
}

/// Presence across restarts (issue 20: 12 presences of 40 kill -9 never got a `removed`): a tag the
/// previous run recorded in the field that the first poll after the restart does not find gets
/// its `removed`, flagged `after_restart`; one it finds is an `initial` scan and no `removed`.
@Suite struct PresenceAcrossRestartsTests {
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    let info = ReaderInfo(connstring: "virtual:0", name: "Virtual PN532", firmware: "PN532 v1.6")
    let gone: [UInt8] = [0x04, 1, 2, 3, 4, 5, 6]
    let stays: [UInt8] = [0x04, 9, 9, 9, 9, 9, 9]

    func restarted() -> AgentState {
        var state = AgentState(startedAt: start, startedMonotonic: 0, reader: ReaderStatus(state: .absent, device: nil, since: start))
        state.tags = TagPresence(previous: PresenceStore.Saved(present: [
            TagPresence.Tag(uid: gone, cardType: "NTAG215", since: start.addingTimeInterval(-10)),
            TagPresence.Tag(uid: stays, cardType: "NTAG213", since: start.addingTimeInterval(-5)),
        ]))
        return state
    }

    func reduce(_ state: inout AgentState, _ event: ReaderLoopEvent, at seconds: Double) -> [AgentEffect] {
        AgentReducer.reduce(&state, event, now: start.addingTimeInterval(seconds), monotonic: Int64(seconds * 1000))
    }

    @Test func aTagThatLeftWhileTheAgentWasDownGetsItsRemovedAfterTheFirstPoll() {
        var state = restarted()
        _ = reduce(&state, .opened(info, reopened: false), at: 1)
        let arrival = reduce(&state, .arrived(TagScan.stub(uid: stays, type: .ntag213), report: true), at: 1.1)
        guard case let .emitScanned(scan, _)? = arrival.first(where: { if case .emitScanned = $0 { true } else { false } }) else {
            Issue.record("no scanned: \(arrival)")
            return
        }
        #expect(scan.initial, "the tag still there is an initial scan")
        let firstPoll = reduce(&state, .progress, at: 1.2)
        #expect(firstPoll.contains(.emitRemoved(RemovedEvent(uid: gone, cardType: "NTAG215", presentMilliseconds: 11_200, afterRestart: true))), "\(firstPoll)")
        #expect(!firstPoll.contains { if case let .emitRemoved(removed) = $0 { removed.uid == stays } else { false } })
        #expect(reduce(&state, .progress, at: 1.3).isEmpty, "once")
    }

    @Test func nothingIsRemovedBeforeTheReaderIsOpen() {
        var state = restarted()
        #expect(reduce(&state, .progress, at: 0.5).isEmpty, "a back-off slice before the reader opened is no poll")
        _ = reduce(&state, .opened(info, reopened: false), at: 1)
        #expect(reduce(&state, .progress, at: 1.2).count == 4, "both tags: a log line and a removed each")
    }

    @Test func theRemovedSaysAfterRestartOnTheWire() throws {
        let json = try JSONValueEncoder().encode(RemovedEvent(uid: gone, cardType: "NTAG215", presentMilliseconds: 5, afterRestart: true))
        #expect(json["after_restart"] == true)
        #expect(try JSONValueEncoder().encode(RemovedEvent(uid: gone, cardType: "NTAG215", presentMilliseconds: 5))["after_restart"] == nil)
    }
}
