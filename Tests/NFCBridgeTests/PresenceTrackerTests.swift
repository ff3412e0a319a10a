import Testing

@testable import NFCBridge

@Suite struct PresenceTrackerTests {
    let a: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
    let b: [UInt8] = [0x08, 0x11, 0x22, 0x33]

    func tracker(
        _ mode: AgentConfiguration.PresenceMode = .presence, grace: Int64 = 600, rearm: Int64 = 2000,
        minInterval: Int64 = 1000
    ) -> PresenceTracker {
        PresenceTracker(
            settings: .init(mode: mode, removalGraceMilliseconds: grace, rearmMilliseconds: rearm, minIntervalMilliseconds: minInterval))
    }

    @Test func arrivalThenRemovalAfterGrace() {
        var p = tracker()
        #expect(p.observe([a], at: 0) == [.arrived(uid: a, report: true)])
        #expect(p.observe([a], at: 250) == [])
        #expect(p.observe([a], at: 500) == [])
        #expect(p.observe([], at: 750) == [])  // 250 ms missing: still inside the grace
        #expect(p.observe([], at: 1000) == [])
        #expect(p.presentUIDs == [a])
        #expect(p.observe([], at: 1100) == [.removed(uid: a, presentMilliseconds: 500, report: true)])
        #expect(p.presentUIDs == [])
    }

    @Test func aMarginalReadDoesNotFlap() {
        var p = tracker()
        _ = p.observe([a], at: 0)
        for t in stride(from: Int64(250), through: 5000, by: 250) {
            // every other observation misses the tag: never 600 ms in a row
            #expect(p.observe(t % 500 == 0 ? [a] : [], at: t) == [])
        }
        #expect(p.presentUIDs == [a])
    }

    @Test func zeroGraceRemovesOnTheFirstMiss() {
        var p = tracker(grace: 0)
        _ = p.observe([a], at: 0)
        #expect(p.observe([], at: 10) == [.removed(uid: a, presentMilliseconds: 0, report: true)])
    }

    // MARK: An absence the reader resolved before an observation fell after the grace

    @Test func aTagSeenAgainAfterTheGraceWasAwayAndArrivesAgain() {
        var p = tracker(grace: 600, minInterval: 0)
        _ = p.observe([a], at: 0)
        #expect(p.observe([a], at: 250) == [])
        #expect(p.observe([], at: 500) == [])  // missed, inside the grace
        // The reader found it again 700 ms after it was last seen, with no empty observation after
        // the grace ran out: still an absence of 700 ms.
        #expect(
            p.observe([a], at: 950) == [
                .removed(uid: a, presentMilliseconds: 250, report: true), .arrived(uid: a, report: true),
            ])
        #expect(p.firstSeen(a) == 950)
        #expect(p.isReported(a))
    }

    @Test func aTagSeenAgainInsideTheGraceStays() {
        var p = tracker(grace: 600, minInterval: 0)
        _ = p.observe([a], at: 0)
        #expect(p.observe([], at: 250) == [])
        #expect(p.observe([a], at: 599) == [])
        #expect(p.firstSeen(a) == 0)
        // The miss was cleared: the next gap counts from 599.
        #expect(p.observe([], at: 1000) == [])
        #expect(p.observe([a], at: 1100) == [])
        #expect(p.presentUIDs == [a])
    }

    @Test func sparseObservationsWithoutAMissAreNoAbsence() {
        // A long dump or command between two checks is no evidence that the tag left.
        var p = tracker(grace: 600, minInterval: 0)
        _ = p.observe([a], at: 0)
        #expect(p.observe([a], at: 5000) == [])
        #expect(p.firstSeen(a) == 0)
    }

    @Test func zeroGraceAMissAndAReturnAtTheSameInstantAreTwoEvents() {
        // What the reader loop feeds when a presence check got silence and its re-select found the tag.
        var p = tracker(grace: 0, minInterval: 0)
        _ = p.observe([a], at: 0)
        #expect(p.observe([], at: 300) == [.removed(uid: a, presentMilliseconds: 0, report: true)])
        #expect(p.observe([a], at: 300) == [.arrived(uid: a, report: true)])
    }

    @Test func aReturnAfterTheGraceInsideMinIntervalIsTrackedNotReported() {
        var p = tracker(grace: 200, minInterval: 1000)
        _ = p.observe([a], at: 0)
        _ = p.observe([], at: 100)
        #expect(
            p.observe([a], at: 400) == [
                .removed(uid: a, presentMilliseconds: 0, report: true), .arrived(uid: a, report: false),
            ])
    }

    @Test func reTapInsideMinIntervalIsNotReported() {
        var p = tracker(grace: 0, minInterval: 1000)
        _ = p.observe([a], at: 0)
        _ = p.observe([], at: 100)
        #expect(p.observe([a], at: 500) == [.arrived(uid: a, report: false)])
        #expect(p.isReported(a) == false)
        // its removal is not reported either: consumers never see removed without scanned
        #expect(p.observe([], at: 600) == [.removed(uid: a, presentMilliseconds: 0, report: false)])
        // a later re-tap is reported again (no dedupe-until-forever)
        #expect(p.observe([a], at: 1000) == [.arrived(uid: a, report: true)])
    }

    @Test func reTapWindowCountsFromTheLastReport() {
        var p = tracker(grace: 0, minInterval: 1000)
        _ = p.observe([a], at: 0)
        _ = p.observe([], at: 100)
        _ = p.observe([a], at: 900)  // suppressed
        _ = p.observe([], at: 950)
        #expect(p.observe([a], at: 1001) == [.arrived(uid: a, report: true)])
    }

    @Test func repeatModeReportsEveryRearm() {
        var p = tracker(.repeat, rearm: 1000)
        #expect(p.observe([a], at: 0) == [.arrived(uid: a, report: true)])
        #expect(p.observe([a], at: 500) == [])
        #expect(p.observe([a], at: 1000) == [.repeated(uid: a)])
        #expect(p.observe([a], at: 1500) == [])
        #expect(p.observe([a], at: 2100) == [.repeated(uid: a)])
    }

    @Test func presenceModeNeverRepeats() {
        var p = tracker(.presence, rearm: 100)
        _ = p.observe([a], at: 0)
        for t in stride(from: Int64(100), through: 10_000, by: 100) { #expect(p.observe([a], at: t) == []) }
    }

    @Test func severalTagsAreTrackedSeparately() {
        var p = tracker(grace: 300)
        #expect(p.observe([a, b], at: 0) == [.arrived(uid: a, report: true), .arrived(uid: b, report: true)])
        #expect(p.observe([a], at: 200) == [])
        #expect(p.observe([a], at: 400) == [.removed(uid: b, presentMilliseconds: 0, report: true)])
        #expect(p.presentUIDs == [a])
        #expect(p.observe([b], at: 1600) == [.removed(uid: a, presentMilliseconds: 400, report: true), .arrived(uid: b, report: true)])
    }

    @Test func removeAllReportsEveryPresentTag() {
        var p = tracker()
        _ = p.observe([a], at: 0)
        _ = p.observe([a, b], at: 100)
        #expect(p.presentUIDs == [a, b])
        #expect(
            p.removeAll(at: 300) == [
                .removed(uid: a, presentMilliseconds: 100, report: true),
                .removed(uid: b, presentMilliseconds: 0, report: true),
            ])
        #expect(p.presentUIDs.isEmpty)
    }

    /// A reader outage reports the tags removed; found again when the reader is back, they are new
    /// arrivals, not re-taps inside `min_interval_ms` (a `removed` with no `scanned` after it). A tag
    /// whose arrival was a re-tap (not reported) stays one.
    @Test func aTagFoundAfterAReaderOutageIsReportedAgain() {
        var p = tracker(minInterval: 10_000)
        _ = p.observe([a], at: 0)
        _ = p.observe([], at: 1000)
        #expect(p.observe([a, b], at: 2000) == [.arrived(uid: a, report: false), .arrived(uid: b, report: true)])
        #expect(
            p.removeAll(at: 2500) == [
                .removed(uid: a, presentMilliseconds: 0, report: false),
                .removed(uid: b, presentMilliseconds: 0, report: true),
            ])
        #expect(p.observe([a, b], at: 3000) == [.arrived(uid: a, report: false), .arrived(uid: b, report: true)])
    }
}
