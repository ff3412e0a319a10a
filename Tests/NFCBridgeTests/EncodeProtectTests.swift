import Foundation
import NFCCore
import PN532Sim
import Testing

@testable import NFCBridge

/// The encode job's `protect` step (docs/tagging-station.md): the spec's JSON, the key looked up by
/// name in the keys file's NTAG passwords, each tag left protected, a resumed tag finished with the
/// job's password, and the password never in the journal or a result.
@Suite(.timeLimit(.minutes(1))) struct EncodeProtectTests {
    static let password = Type2Password(name: "station", password: SecretBytes([0x5A, 0x11, 0xC0, 0xDE]), pack: [0xBE, 0xEF])
    /// NTAG213 (NTAG213/215/216 §8.5 Table 4): CFG0 29h, CFG1 2Ah, PWD 2Bh, PACK 2Ch.
    static let cfg0 = 0x29

    static func spec(count: Int = 2, lock: Bool = false, reads: Bool = false) throws -> EncodeJobSpec {
        try EncodeJobSpec(
            id: "protected", template: EncodeTemplate(records: [.uri(TemplateText(parsing: "https://ex.com/p/{serial}"))]),
            serials: .range(start: 1, count: count),
            steps: EncodeSteps(lock: lock, protect: EncodeProtection(key: "station", auth0: 4, protectsReads: reads)))
    }

    static func page(_ tag: VirtualType2Tag, _ number: Int) -> [UInt8] { Array(tag.memory[number * 4..<number * 4 + 4]) }

    @Test func theStepParsesFromJSONAndRoundTrips() throws {
        let base: [String: JSONValue] = [
            "job": "p", "template": .array([.object(["uri": "https://ex.com/{serial}"])]),
            "serials": .object(["start": 1, "count": 5]),
        ]
        var json = base
        json["steps"] = .array(["write", "verify", "lock", "protect"])
        json["protect"] = .object(["key": "station", "auth0": 4, "protect_reads": true])
        let spec = try EncodeJobSpec(json: json)
        #expect(spec.steps.lock && spec.steps.protect == EncodeProtection(key: "station", auth0: 4, protectsReads: true))
        #expect(try EncodeJobSpec(json: spec.json.objectValue ?? [:]) == spec)

        // The step and its object go together; AUTH0 is a page from 3 on; no unknown fields.
        let bad: [[String: JSONValue]] = [
            base.merging(["steps": .array(["write", "verify", "protect"])]) { $1 },
            base.merging(["protect": .object(["key": "station", "auth0": 4])]) { $1 },
            json.merging(["protect": .object(["key": "station", "auth0": 2])]) { $1 },
            json.merging(["protect": .object(["key": "station"])]) { $1 },
            json.merging(["protect": .object(["key": "", "auth0": 4])]) { $1 },
            json.merging(["protect": .object(["key": "station", "auth0": 4, "password": "5A11C0DE"])]) { $1 },
        ]
        for object in bad {
            #expect(throws: CommandError.self, "\(object)") { try EncodeJobSpec(json: object) }
        }
    }

    @Test func anUnknownKeyIsRefusedByNameBeforeAnyTag() throws {
        let spec = try Self.spec()
        #expect(try EncodeStation.protection(spec, passwords: [Self.password])?.password.name == "station")
        do {
            _ = try EncodeStation.protection(spec, passwords: [])
            Issue.record("expected invalid_request")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.message.contains("'station'") && error.message.contains("auth.keys_file"))
        }
        let other = Type2Password(name: "other", password: SecretBytes([1, 2, 3, 4]), pack: [0, 0])
        do {
            _ = try EncodeStation.protection(spec, passwords: [other])
            Issue.record("expected invalid_request")
        } catch {
            #expect(error.message.contains("other") && !error.message.contains("01020304"))
        }
    }

    @Test func eachTagIsWrittenLockedAndProtected() async throws {
        let bench = try await EncodeJobTests.Bench()
        let tags = (1...2).map { VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid($0)) }
        let job = bench.run(try Self.spec(lock: true, reads: true), passwords: [Self.password])
        var results = bench.results.makeAsyncIterator()
        for tag in tags {
            let result = await bench.show(tag, &results)
            #expect(result?.result == .ok, "\(String(describing: result))")
        }
        let ledger = try await job.value
        #expect(ledger.done == 2)
        for (index, tag) in tags.enumerated() {
            #expect(Self.page(tag, Self.cfg0 + 2) == [0x5A, 0x11, 0xC0, 0xDE])
            #expect(Self.page(tag, Self.cfg0 + 3) == [0xBE, 0xEF, 0x00, 0x00])
            #expect(Self.page(tag, Self.cfg0)[3] == 4)
            #expect(Self.page(tag, Self.cfg0 + 1)[0] & 0x80 == 0x80)
            #expect(EncodeJobTests.message(on: tag) == (try EncodeJobTests.uriMessage("https://ex.com/p/\(index + 1)")))
            #expect(Array(Self.page(tag, 2)[2...3]) == [0xFF, 0xFF])
        }
        // The journal names the key, never the password.
        let journal = try String(contentsOfFile: JobJournal.path(stateDirectory: bench.directory, job: "protected"), encoding: .utf8)
        #expect(journal.contains("\"station\""))
        #expect(!journal.lowercased().contains("5a11c0de") && !journal.contains("WhHA3g"))
    }

    @Test func aResumedTagProtectedBeforeTheStopIsFinishedWithTheJobsPassword() async throws {
        let bench = try await EncodeJobTests.Bench()
        // Two serials: a job whose last serial is torn is finished (the torn tag is listed in its state).
        let spec = try Self.spec(count: 2)
        let tag = VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid(1))
        // The stop came after the tag was written and protected, before `done` was journalled.
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        _ = try await TagOperations.write(NDEFMessage(records: [.uri("https://ex.com/p/1")]), to: transport, info: info)
        _ = try await TagOperations.protect(transport, info: info, expectedUID: EncodeJobTests.uid(1),
                                            settings: .init(password: Self.password, auth0: 4, protectsReads: false))
        tag.powerOff()  // taken out of the field it was prepared in
        do {
            let opened = try await JobJournal.open(stateDirectory: bench.directory, job: spec.id, spec: spec)
            try await opened.journal.append(.issue(index: 0, uid: EncodeJobTests.uid(1)))
            await opened.journal.close()
        }
        let job = bench.run(nil, id: spec.id, passwords: [Self.password])
        var results = bench.results.makeAsyncIterator()
        #expect(await results.next()?.code == "interrupted")
        let back = await bench.show(tag, &results)
        #expect(back?.result == .ok && back?.resumed == true && back?.serial == "1", "\(String(describing: back))")
        let next = await bench.show(VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid(2)), &results)
        #expect(next?.result == .ok && next?.serial == "2")
        #expect(try await job.value.done == 2)
        #expect(EncodeJobTests.message(on: tag) == (try EncodeJobTests.uriMessage("https://ex.com/p/1")))
    }

    @Test func aTagProtectedByAnotherPasswordIsNotEncoded() async throws {
        let bench = try await EncodeJobTests.Bench()
        let foreign = VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid(1))
        foreign.setPassword([9, 9, 9, 9], pack: [1, 1])
        foreign.setAuth0(4)
        let job = bench.run(try Self.spec(count: 1), passwords: [Self.password])
        var results = bench.results.makeAsyncIterator()
        let refused = await bench.show(foreign, &results)
        #expect(refused?.result == .refused && refused?.code == "auth_required" && refused?.serial == nil,
                "\(String(describing: refused))")
        let fresh = await bench.show(VirtualType2Tag(model: .ntag213, uid: EncodeJobTests.uid(2)), &results)
        #expect(fresh?.result == .ok && fresh?.serial == "1")
        _ = try await job.value
    }
}
