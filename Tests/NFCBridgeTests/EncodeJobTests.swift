import Foundation
import NFCCore
import PN532Sim
import Synchronization
import Testing

@testable import NFCBridge

/// Encode jobs in process: templates, serial sources, the journal and its ledger, and the station on
/// virtual NTAG213s behind a virtual reader (docs/tagging-station.md).
@Suite(.timeLimit(.minutes(1))) struct EncodeJobTests {
    static func uid(_ n: UInt8) -> [UInt8] { [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, n] }

    static func spec(_ id: String = "roll", count: Int = 3, policy: EncodePolicy = EncodePolicy(), lock: Bool = false)
        throws -> EncodeJobSpec
    {
        try EncodeJobSpec(
            id: id, template: EncodeTemplate(records: [.uri(TemplateText(parsing: "https://ex.com/t/{serial:06d}"))]),
            serials: .range(start: 1000, count: count), steps: EncodeSteps(lock: lock), policy: policy)
    }

    static func uriMessage(_ uri: String) throws -> [UInt8] {
        try NDEFMessage(records: [.uri(uri)]).bytes
    }

    static func stateDirectory() -> String {
        let path = NSTemporaryDirectory() + "encode-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The NDEF message a virtual tag holds.
    static func message(on tag: VirtualType2Tag) -> [UInt8]? {
        NFCForumTLV.extractMessage(fromMemory: tag.memory)
    }

    // MARK: - Template and serials

    @Test func placeholdersRenderWithTheirFormats() throws {
        let fill = EncodeTemplate.Fill(serial: .number(42), uid: [0x04, 0xAB, 0x01, 0x02], n: 7)
        let cases: [(String, String)] = [
            ("{serial}", "42"), ("{serial:06d}", "000042"), ("{serial:4d}", "  42"), ("{serial:x}", "2a"),
            ("{serial:04X}", "002A"), ("{uid}", "04AB0102"), ("n={n}", "n=7"), ("{{serial}}", "{serial}"),
            ("a}}b", "a}b"),
        ]
        for (source, expected) in cases {
            #expect(try TemplateText(parsing: source).render(fill) == expected, "\(source)")
        }
        #expect(try TemplateText(parsing: "{serial}").render(.init(serial: .text("A-7"), uid: [], n: 1)) == "A-7")
        #expect(throws: CommandError.self) { try TemplateText(parsing: "{serial:06d}").render(.init(serial: .text("A"), uid: [], n: 1)) }
    }

    @Test func badTemplatesAreRefusedBeforeAnyTag() {
        for source in ["{serial", "x}", "{seriall}", "{serial:6q}", "{serial:099d}", "{serial:}"] {
            #expect(throws: CommandError.self, "\(source)") { try TemplateText(parsing: source) }
        }
        // A list serial that cannot take the number format is refused when the job is made.
        #expect(throws: CommandError.self) {
            try EncodeJobSpec(id: "x", template: EncodeTemplate(records: [.text(TemplateText(parsing: "{serial:05d}"), language: "en")]),
                              serials: .list([.number(1), .text("B")]))
        }
        #expect(throws: CommandError.self) { try Self.spec("../escape") }
    }

    @Test func specRoundTripsThroughJSON() throws {
        let json: [String: JSONValue] = [
            "job": "r1", "template": .array([.object(["uri": "https://ex.com/{serial:05d}"]), .object(["text": "#{n} {uid}", "lang": "de"])]),
            "serials": .object(["list": .array([7, "B7", 9])]), "steps": .array(["write", "verify", "lock"]),
            "policy": .object(["tags": "overwrite", "on_failure": "spend"]),
        ]
        #expect(throws: CommandError.self) { try EncodeJobSpec(json: json) }  // "B7" cannot take {serial:05d}
        var fine = json
        fine["template"] = .array([.object(["uri": "https://ex.com/{serial}"])])
        let spec = try EncodeJobSpec(json: fine)
        #expect(spec.steps.lock && spec.policy.tags == .overwrite && spec.policy.onFailure == .spend)
        #expect(spec.serials == .list([.number(7), .text("B7"), .number(9)]))
        #expect(try EncodeJobSpec(json: spec.json.objectValue ?? [:]) == spec)
        #expect(throws: CommandError.self) { try EncodeJobSpec(json: fine.merging(["steps": .array(["lock"])]) { $1 }) }
        #expect(throws: CommandError.self) { try EncodeJobSpec(json: fine.merging(["serials": .object(["list": .array([1, 1])])]) { $1 }) }
    }

    /// `nfcbridge encode --serial-list FILE`: a list saved by a spreadsheet ("CSV UTF-8": a byte-order
    /// mark first, CR LF line ends) gives the same serials as one typed on Linux.
    @Test func aSerialListFileFromASpreadsheetReadsAsOneFromAnEditor() throws {
        let expected = SerialSource.list([.number(1001), .number(1002), .text("A-7"), .text("99999999999999999999")])
        for text in ["1001\n1002\n\n  A-7 \n99999999999999999999", "\u{FEFF}1001\r\n1002\r\n\r\n\tA-7\r\n99999999999999999999\r\n"] {
            #expect(try SerialSource(json: .object(["list": SerialSource.listFile(Array(text.utf8))])) == expected)
        }
    }

    /// `{serial}` is the serial as given: a line of digits with leading zeros keeps them, and is a
    /// serial other than the number without them.
    @Test func aSerialListLineWithLeadingZerosKeepsThem() throws {
        let source = try SerialSource(json: .object(["list": SerialSource.listFile(Array("00042\n42\n042\n0\n".utf8))]))
        #expect(source == .list([.text("00042"), .number(42), .text("042"), .number(0)]))
        #expect(source.serial(at: 0).description == "00042")
        let template = try EncodeTemplate(records: [.uri(try TemplateText(parsing: "https://ex.com/t/{serial}"))])
        let fill = EncodeTemplate.Fill(serial: source.serial(at: 0), uid: Self.uid(1), n: 1)
        #expect(try template.message(for: fill) == (try Self.uriMessage("https://ex.com/t/00042")))
    }

    // MARK: - Journal

    @Test func aSerialInHandWhenTheJournalEndsIsTornAndAHalfLineIsDropped() async throws {
        let directory = Self.stateDirectory()
        let spec = try Self.spec()
        do {
            let opened = try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: spec)
            try await opened.journal.append(.issue(index: 0, uid: Self.uid(1)))
            try await opened.journal.append(.done(index: 0))
            try await opened.journal.append(.issue(index: 1, uid: Self.uid(2)))
            await opened.journal.close()
        }
        // A power cut in the middle of the next line.
        let path = JobJournal.path(stateDirectory: directory, job: spec.id)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"t":"done","#.utf8))
        handle.closeFile()

        do {
            let reopened = try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: nil)
            #expect(reopened.interrupted == [1])
            #expect(reopened.ledger.states[0] == .done(uid: Self.uid(1)))
            #expect(reopened.ledger.states[1] == .torn(uid: Self.uid(2), code: "interrupted"))
            #expect(reopened.ledger.nextIndex == 2)
            #expect(reopened.ledger.byUID[Self.uid(2)] == 1)
            // The half line is gone: the next append starts a line of its own and the journal replays.
            try await reopened.journal.append(.done(index: 1))
            await reopened.journal.close()
        }
        do {
            let again = try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: spec)
            #expect(again.ledger.done == 2 && again.interrupted.isEmpty)
            await again.journal.close()
        }
        // Another spec under the same id is refused.
        let other = await #expect(throws: CommandError.self) {
            try await JobJournal.open(stateDirectory: directory, job: spec.id, spec: try Self.spec(count: 4))
        }
        #expect(other?.code == .invalidRequest)
    }

    @Test func theLedgerRefusesASerialIssuedTwice() throws {
        var ledger = JobLedger(spec: try Self.spec())
        try ledger.apply(.issue(index: 0, uid: Self.uid(1)))
        try ledger.apply(.release(index: 0))
        #expect(ledger.nextIndex == 0)
        try ledger.apply(.issue(index: 0, uid: Self.uid(2)))
        try ledger.apply(.done(index: 0))
        #expect(throws: CommandError.self) { try ledger.apply(.issue(index: 0, uid: Self.uid(3))) }
        #expect(throws: CommandError.self) { try ledger.apply(.issue(index: 2, uid: Self.uid(3))) }
        #expect(throws: CommandError.self) { try ledger.apply(.issue(index: 1, uid: Self.uid(2))) }
    }

    // MARK: - The station on virtual tags

    /// A station on a virtual reader, its results in a stream.
    final class Bench: Sendable {
        let device = VirtualReaderDevice()
        let directory = EncodeJobTests.stateDirectory()
        let results: AsyncStream<EncodeTagResult>
        let continuation: AsyncStream<EncodeTagResult>.Continuation
        let states = Mutex<[EncodeJobState]>([])
        /// UID → commands after which its next transport loses the tag.
        let pulls = Mutex<[[UInt8]: Int]>([:])

        init() async throws {
            (results, continuation) = AsyncStream.makeStream()
            _ = try await device.open()
        }

        func run(_ spec: EncodeJobSpec?, id: String = "roll", control: JobControl = JobControl(),
                 passwords: [Type2Password] = []) -> Task<JobLedger, any Error> {
            Task {
                let opened = try await JobJournal.open(stateDirectory: directory, job: spec?.id ?? id, spec: spec)
                let access = PullingAccess(base: DeviceTagAccess(device: device, modulations: [.iso14443a], interval: .milliseconds(50)), bench: self)
                let station = EncodeStation(access: access, journal: opened.journal, control: control, passwords: passwords)
                let reporting = EncodeStation.Reporting(tag: { self.continuation.yield($0) }, state: { state in self.states.withLock { $0.append(state) } })
                // Closed before the task ends: a test that opens the job again finds it free.
                do {
                    let ledger = try await station.run(opened.ledger, interrupted: opened.interrupted, reporting: reporting)
                    await opened.journal.close()
                    return ledger
                } catch {
                    await opened.journal.close()
                    throw error
                }
            }
        }

        /// Shows `tag`, waits for its result, takes it away; with `seen`, waits until the station
        /// polls again (it saw the tag leave), so the same tag can be shown again.
        func show(_ tag: VirtualType2Tag, _ iterator: inout AsyncStream<EncodeTagResult>.Iterator, seen: Bool = false) async
            -> EncodeTagResult?
        {
            device.place(tag)
            let result = await iterator.next()
            let polls = device.pollCount
            device.remove(tag)
            while seen, device.pollCount == polls { try? await Task.sleep(for: .milliseconds(1)) }
            return result
        }
    }

    /// A ``DeviceTagAccess`` whose transports lose chosen tags after some commands (a tag pulled mid-write).
    struct PullingAccess: TagAccess {
        let base: DeviceTagAccess
        let bench: Bench

        func presentTags() async throws -> [PresentTag] { try await base.presentTags() }
        func nextTag() async throws -> PresentTag {
            let tag = try await base.nextTag()
            guard let count = bench.pulls.withLock({ $0.removeValue(forKey: tag.uid) }) else { return tag }
            return PresentTag(transport: PullingTransport(base: tag.transport, writes: count))
        }
        func withExclusiveAccess<Result: Sendable>(to tag: PresentTag, _ body: @Sendable (any TagTransport) async throws -> Result) async throws -> Result {
            try await base.withExclusiveAccess(to: tag, body)
        }
        func waitForRemoval(of tag: PresentTag) async throws { try await base.waitForRemoval(of: tag) }
    }

    /// A transport whose tag leaves the field after `writesLeft` WRITEs (A2h) were answered.
    final class PullingTransport: TagTransport {
        let base: any TagTransport
        let writesLeft: Mutex<Int>
        init(base: any TagTransport, writes: Int) {
            self.base = base
            writesLeft = Mutex(writes)
        }
        var target: Target { base.target }
        func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
            let gone = writesLeft.withLock { left -> Bool in
                if command.first == 0xA2 { left -= 1 }
                return left < 0
            }
            if gone { throw NFCError.tagRemoved }
            return try await base.transceive(command, framing: framing)
        }
        func reselect() async throws {
            if writesLeft.withLock({ $0 < 0 }) { throw NFCError.tagRemoved }
            try await base.reselect()
        }
    }

    @Test func aRollGetsOneSerialPerTagAndATagShownTwiceIsNotEncodedAgain() async throws {
        let bench = try await Bench()
        let tags = (1...3).map { VirtualType2Tag(model: .ntag213, uid: Self.uid($0)) }
        let job = bench.run(try Self.spec(count: 3))
        var results = bench.results.makeAsyncIterator()
        let first = await bench.show(tags[0], &results, seen: true)
        #expect(first?.result == .ok && first?.serial == "1000" && first?.n == 1)
        let twice = await bench.show(tags[0], &results, seen: true)
        #expect(twice?.result == .duplicate && twice?.code == "already_encoded" && twice?.serial == "1000")
        for tag in tags.dropFirst() { _ = await bench.show(tag, &results) }
        let ledger = try await job.value
        #expect(ledger.done == 3 && ledger.remaining == 0 && ledger.isFinished)
        for (index, tag) in tags.enumerated() {
            #expect(Self.message(on: tag) == (try Self.uriMessage("https://ex.com/t/00\(1000 + index)")))
        }
        #expect(bench.states.withLock { $0.last?.state } == .finished)
    }

    @Test func aTagPulledMidWriteIsTornKeepsItsSerialAndIsFinishedWhenItComesBack() async throws {
        let bench = try await Bench()
        let tags = (1...3).map { VirtualType2Tag(model: .ntag213, uid: Self.uid($0)) }
        let job = bench.run(try Self.spec(count: 4))
        var results = bench.results.makeAsyncIterator()
        #expect(await bench.show(tags[0], &results)?.result == .ok)
        // Identification, the blank check and the write's own reads come first; then the WRITEs.
        bench.pulls.withLock { $0[Self.uid(2)] = 2 }
        let torn = await bench.show(tags[1], &results)
        #expect(torn?.result == .torn && torn?.code == "tag_removed" && torn?.serial == "1001", "\(String(describing: torn))")
        let next = await bench.show(tags[2], &results)
        #expect(next?.result == .ok && next?.serial == "1002")
        let back = await bench.show(tags[1], &results)
        #expect(back?.result == .ok && back?.serial == "1001" && back?.resumed == true)
        #expect(await bench.show(VirtualType2Tag(model: .ntag213, uid: Self.uid(4)), &results)?.serial == "1003")
        let ledger = try await job.value
        #expect(ledger.done == 4 && ledger.torn == 0)
        #expect(Self.message(on: tags[1]) == (try Self.uriMessage("https://ex.com/t/001001")))
    }

    @Test func aJobStoppedMidTagResumesWithTheRightSerial() async throws {
        let bench = try await Bench()
        let spec = try Self.spec(count: 3)
        do {
            // The state a SIGKILL after the `issue` line leaves.
            let opened = try await JobJournal.open(stateDirectory: bench.directory, job: spec.id, spec: spec)
            try await opened.journal.append(.issue(index: 0, uid: Self.uid(1)))
            await opened.journal.close()
        }
        let job = bench.run(nil)
        var results = bench.results.makeAsyncIterator()
        let report = await results.next()
        #expect(report?.result == .torn && report?.code == "interrupted" && report?.uid == Self.uid(1).hexString)
        let other = await bench.show(VirtualType2Tag(model: .ntag213, uid: Self.uid(2)), &results)
        #expect(other?.serial == "1001" && other?.result == .ok)
        let back = await bench.show(VirtualType2Tag(model: .ntag213, uid: Self.uid(1)), &results)
        #expect(back?.serial == "1000" && back?.resumed == true && back?.result == .ok)
        #expect(await bench.show(VirtualType2Tag(model: .ntag213, uid: Self.uid(3)), &results)?.serial == "1002")
        let ledger = try await job.value
        #expect(ledger.done == 3)
    }

    @Test func verifyFailuresRetryOrSpendAsThePolicySays() async throws {
        let bench = try await Bench()
        let spec = try Self.spec(count: 2, policy: EncodePolicy(tags: .blank, onFailure: .spend, retries: 0))
        let job = bench.run(spec)
        var results = bench.results.makeAsyncIterator()
        let bad = VirtualType2Tag(model: .ntag213, uid: Self.uid(1))
        bad.corruptNextWrite()
        let failed = await bench.show(bad, &results, seen: true)
        #expect(failed?.result == .failed && failed?.code == "verify_failed" && failed?.serial == "1000")
        let again = await bench.show(bad, &results)
        #expect(again?.result == .duplicate && again?.code == "already_failed")
        let good = await bench.show(VirtualType2Tag(model: .ntag213, uid: Self.uid(2)), &results)
        #expect(good?.serial == "1001" && good?.result == .ok)
        let ledger = try await job.value
        #expect(ledger.failed == 1 && ledger.done == 1)

        let retrying = try await Bench()
        let retryJob = retrying.run(try Self.spec("retry", count: 1))
        var retryResults = retrying.results.makeAsyncIterator()
        let flaky = VirtualType2Tag(model: .ntag213, uid: Self.uid(3))
        flaky.corruptNextWrite()
        let retried = await retrying.show(flaky, &retryResults)
        #expect(retried?.result == .ok && retried?.attempts == 2)
        #expect(try await retryJob.value.done == 1)
    }

    @Test func aTagThatIsNotBlankIsRefusedAndUsesNoSerial() async throws {
        let bench = try await Bench()
        let job = bench.run(try Self.spec(count: 1))
        var results = bench.results.makeAsyncIterator()
        let used = VirtualType2Tag(model: .ntag213, uid: Self.uid(1))
        try used.writeNDEF(try Self.uriMessage("https://old.example"))
        let refused = await bench.show(used, &results)
        #expect(refused?.result == .refused && refused?.code == "not_blank" && refused?.serial == nil)
        let blank = await bench.show(VirtualType2Tag(model: .ntag213, uid: Self.uid(2)), &results)
        #expect(blank?.serial == "1000" && blank?.result == .ok)
        _ = try await job.value
    }

    @Test func pauseAndCancelActBetweenTags() async throws {
        let bench = try await Bench()
        let control = JobControl()
        control.pause()
        let job = bench.run(try Self.spec(count: 3), control: control)
        var results = bench.results.makeAsyncIterator()
        control.resume()
        #expect(await bench.show(VirtualType2Tag(model: .ntag213, uid: Self.uid(1)), &results)?.result == .ok)
        control.cancel()
        let ledger = try await job.value
        #expect(ledger.isCanceled && ledger.done == 1 && ledger.remaining == 2)
        #expect(bench.states.withLock { $0.last?.state } == .canceled)
        // A cancelled job issues nothing more when opened again.
        let reopened = try await JobJournal.open(stateDirectory: bench.directory, job: "roll", spec: nil)
        #expect(reopened.ledger.nextIndex == nil)
    }
}
