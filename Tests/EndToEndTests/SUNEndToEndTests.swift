import Foundation
import Testing
import TestSupport

/// NTAG 424 DNA SUN end to end (issue 21 item 4): `nfcbridge run` through real libnfc (`pn532_uart`) on
/// `nfcbridge-sim`'s `ntag424_sun` tags, whose SUN messages the simulator computes itself (libcrypto CMAC,
/// its own live counter), keys from `auth.keys_file`, a real Mosquitto. `trust.sun` of `event/scanned`:
/// a valid message, the same message again `replayed` (a tag with a frozen counter, and an agent restarted
/// with its state kept), `invalid_mac` under another key, `no_key` without keys.
@Suite(.serialized, .timeLimit(.minutes(4))) struct SUNEndToEndTests {
    static let scenario = """
        tags:
          - id: door
            type: ntag424_sun
            uid: 04 DE 5F 1E AC C0 40
            sun: {url: "https://door.example/t?e={picc}&c={mac}"}
          - id: replayer
            type: ntag424_sun
            uid: 04 11 22 33 44 55 66
            sun: {url: "https://door.example/t?e={picc}&c={mac}", counter: 41, frozen: true}
          - id: other
            type: ntag424_sun
            uid: 04 99 88 77 66 55 44
            sun: {url: "https://door.example/t?e={picc}&c={mac}", file_read_key: 0102030405060708090A0B0C0D0E0F10}
        """

    /// A keys file (mode 0600) with the factory keys as the `ntag424_sdm` set `door`.
    static func keysFile(in folder: TemporaryFolder) throws -> String {
        let path = try folder.write("keys.yaml", """
            keys:
              door:
                kind: ntag424_sdm
                meta_read_key: 00000000000000000000000000000000
                file_read_key: 00000000000000000000000000000000
            """)
        chmod(path, 0o600)
        return path
    }

    /// Places `id`, returns `trust.sun` of its `scanned`, removes it and waits for `removed`.
    static func tap(_ id: String, _ run: AgentRun) async throws -> [String: Any] {
        let before = run.watcher.lastIndex
        try run.simulator.place(id)
        let (at, scanned, _) = await run.watcher.next("event/scanned", after: before)
        try run.simulator.remove(id)
        await run.watcher.next("event/removed", after: at)
        return ((scanned["trust"] as? [String: Any])?["sun"] as? [String: Any]) ?? ["scanned": scanned]
    }

    @Test func aSUNMessageIsVerifiedAndItsReplayRefused() async throws {
        let keys = try TemporaryFolder()
        var options = AgentRun.Options(scenario: Self.scenario)
        options.extra = "auth: {keys_file: \(try Self.keysFile(in: keys))}"
        try await withAgentRun(options) { run in
            await run.watcher.next("reader") { $0["state"] as? String == "ok" }
            let first = try await Self.tap("door", run)
            #expect(first["verdict"] as? String == "valid", "\(first)")
            #expect(first["keys"] as? String == "door")
            let second = try await Self.tap("door", run)
            #expect(second["verdict"] as? String == "valid", "\(second)")
            #expect((second["counter"] as? Int ?? 0) > (first["counter"] as? Int ?? .max), "the live counter grows: \(first) \(second)")
            // A tag that plays the same message every time: valid once, then replayed.
            let captured = try await Self.tap("replayer", run)
            #expect(captured["verdict"] as? String == "valid" && captured["counter"] as? Int == 41, "\(captured)")
            let replayed = try await Self.tap("replayer", run)
            #expect(replayed["verdict"] as? String == "replayed" && replayed["counter"] as? Int == 41, "\(replayed)")
            // Another SDMFileRead key: the MAC does not verify.
            let forged = try await Self.tap("other", run)
            #expect(forged["verdict"] as? String == "invalid_mac", "\(forged)")
            // The counters survive a restart: the same message after it is still a replay.
            run.agent.expectCleanStop()
            let restarted = try run.startAgent()
            _ = restarted
            await run.watcher.next("reader", after: run.watcher.lastIndex) { $0["state"] as? String == "ok" }
            let again = try await Self.tap("replayer", run)
            #expect(again["verdict"] as? String == "replayed", "\(again)")
        }
    }

    /// `access.credential: sun`: a door's tag is trusted with its SUN message's UID as the credential; a tag
    /// that carries no SUN message at all (a plain Type 4 tag, as a phone emulating a card is) is not
    /// trusted, with `sun_missing`, however clean its other checks are.
    @Test func withTheCredentialSunATagWithoutAMessageIsUntrusted() async throws {
        let keys = try TemporaryFolder()
        let scenario = Self.scenario + "\n  - {id: phone, type: type4, uid: 08 12 34 56, ndef: [{uri: \"https://door.example/t\"}]}\n"
        var options = AgentRun.Options(scenario: scenario)
        options.extra = "auth: {keys_file: \(try Self.keysFile(in: keys))}\naccess: {credential: sun, signature: ignore}"
        try await withAgentRun(options) { run in
            await run.watcher.next("reader") { $0["state"] as? String == "ok" }
            func trust(_ id: String) async throws -> [String: Any] {
                let before = run.watcher.lastIndex
                try run.simulator.place(id)
                let (at, scanned, _) = await run.watcher.next("event/scanned", after: before)
                try run.simulator.remove(id)
                await run.watcher.next("event/removed", after: at)
                return scanned["trust"] as? [String: Any] ?? [:]
            }
            let door = try await trust("door")
            #expect(door["verdict"] as? String == "trusted" && door["credential"] as? String == "04DE5F1EACC040", "\(door)")
            let phone = try await trust("phone")
            #expect(phone["verdict"] as? String == "untrusted" && phone["reasons"] as? [String] == ["sun_missing"], "\(phone)")
            #expect(phone["credential"] == nil && phone["sun"] == nil, "\(phone)")
        }
    }

    @Test func withoutKeysTheVerdictIsNoKey() async throws {
        try await withAgentRun(AgentRun.Options(scenario: Self.scenario)) { run in
            await run.watcher.next("reader") { $0["state"] as? String == "ok" }
            let sun = try await Self.tap("door", run)
            #expect(sun["verdict"] as? String == "no_key", "\(sun)")
            #expect(sun["counter"] == nil, "PICCData is encrypted: without the key no counter is read")
        }
    }

    /// `nfcbridge dump`: the family's facts name the SDM settings and the verdict (no keys: no_key).
    @Test func theDumpNamesTheSDMSettings() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario + "\ntimeline: [{at: 0, place: door}]\n")
        defer { simulator.stop() }
        let (dump, _, facts) = try DESFireEndToEndTests.dump(simulator)
        #expect(dump["cardType"] as? String == "NTAG 424 DNA", "\(dump)")
        #expect(facts["SDM"] == "mirrors UID + read counter, PICCData encrypted with key 0, SDMMAC with key 0", "\(facts)")
        #expect(facts["SUN"]?.hasPrefix("no_key") == true, "\(facts)")
    }
}
