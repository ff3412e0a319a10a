import Foundation
import Glibc
import NFCCore
import Testing
import TestSupport

/// A door's DESFire credential read at the tap (issue 21, items 3, 5 and 6): `nfcbridge run` with
/// `access.credential: desfire:123456:01:0:32` and `auth.keys_file`, real libnfc (`pn532_uart`) on
/// `nfcbridge-sim`, whose virtual DESFire runs its own AuthenticateAES / EV2First and secure messaging,
/// and a real Mosquitto. The credential file is fully enciphered behind AES key 1: the right key reads
/// it (`trust.credential`, `trust.authenticated` naming the key, application and key number), a wrong
/// one is `auth_failed` and the tap is still published, and the key's bytes are in no output.
@Suite(.serialized, .timeLimit(.minutes(4))) struct DESFireCredentialEndToEndTests {
    typealias Card = DESFireAuthEndToEndTests

    /// The access section: the credential file's first 32 bytes, AID written as NXP does (123456h);
    /// the signature not read (the simulator's default one verifies against no key).
    static let access = "access: {signature: ignore, credential: \"desfire:123456:01:0:32\", probes: {version_signature_mismatch: false}}"

    /// Places the badge, returns its `scanned` event, removes it and waits for `removed`.
    static func tap(_ run: AgentRun) async throws -> [String: Any] {
        let before = run.watcher.lastIndex
        try run.simulator.place("badge")
        let (at, scanned, _) = await run.watcher.next("event/scanned", after: before)
        try run.simulator.remove("badge")
        await run.watcher.next("event/removed", after: at)
        return scanned
    }

    static func options(_ kind: String, keys: String) -> AgentRun.Options {
        var options = AgentRun.Options(scenario: Card.scenario(kind).replacingOccurrences(of: "timeline: [{at: 0, place: badge}]", with: ""))
        options.extra = "auth: {keys_file: \(keys)}\n" + access
        return options
    }

    @Test(arguments: ["desfire_ev1", "desfire_ev2"])
    func theRightKeyReadsTheCredentialAtTheTap(_ kind: String) async throws {
        let folder = try TemporaryFolder()
        try await withAgentRun(Self.options(kind, keys: try Card.keysFile(folder))) { run in
            await run.watcher.next("reader") { $0["state"] as? String == "ok" }
            let scanned = try await Self.tap(run)
            let trust = scanned["trust"] as? [String: Any] ?? [:]
            #expect(trust["verdict"] as? String == "trusted", "\(kind): \(trust)")
            #expect(trust["credential_source"] as? String == "desfire")
            #expect(trust["credential"] as? String == Card.credential, "\(trust)")
            let authenticated = trust["authenticated"] as? [[String: Any]] ?? []
            #expect(authenticated.count == 1, "\(trust)")
            let method = kind == "desfire_ev1" ? "AuthenticateAES" : "AuthenticateEV2First"
            #expect(authenticated.first?["key"] as? String == "door_read")
            #expect(authenticated.first?["application"] as? String == "123456")
            #expect(authenticated.first?["key_number"] as? Int == 1)
            #expect(authenticated.first?["method"] as? String == method)
            #expect(authenticated.first?["files"] as? [String] == ["123456/01"])
            #expect(authenticated.first?["error"] == nil)
        }
    }

    @Test(arguments: ["desfire_ev1", "desfire_ev2"])
    func aWrongKeyIsAuthFailedAndTheTapStillPublished(_ kind: String) async throws {
        let folder = try TemporaryFolder()
        let keys = try Card.keysFile(folder, key: "00112233445566778899AABBCCDDEEFF")
        try await withAgentRun(Self.options(kind, keys: keys)) { run in
            await run.watcher.next("reader") { $0["state"] as? String == "ok" }
            let scanned = try await Self.tap(run)
            #expect(scanned["uid"] as? String == "042F190ACD6680", "the scan goes on: \(scanned)")
            let trust = scanned["trust"] as? [String: Any] ?? [:]
            #expect(trust["verdict"] as? String == "untrusted")
            #expect(trust["reason"] as? String == "auth_failed", "\(trust)")
            #expect(trust["reasons"] as? [String] == ["auth_failed", "credential_missing"], "\(trust)")
            #expect(trust["credential"] == nil)
            let failed = (trust["authenticated"] as? [[String: Any]])?.first ?? [:]
            #expect(failed["error"] as? String == "auth_failed", "\(trust)")
            #expect(failed["application"] as? String == "123456" && failed["key_number"] as? Int == 1, "\(trust)")
            #expect(failed["files"] as? [String] == [])
            // The reader goes on: the next tap is scanned too.
            let again = try await Self.tap(run)
            #expect((again["trust"] as? [String: Any])?["reason"] as? String == "auth_failed")
        }
    }

    /// A clone of the badge (issue: trust): the same application and credential bytes, but in a free file,
    /// or in one behind the key whose settings claim plain communication (what a relay can claim of a
    /// genuine card: a plain answer carries no MAC). The keys file has a key for the application, so
    /// the card must prove the credential with it: `credential_unproven`, and no credential published.
    @Test(arguments: ["read: free", "read: 1, read_write: 1"])
    func aCredentialTheCardDoesNotProveWithTheKeyIsUntrusted(_ rights: String) async throws {
        let folder = try TemporaryFolder()
        let scenario = """
            tags:
              - id: badge
                type: desfire_ev1
                uid: 04 2F 19 0A CD 66 80
                applications:
                  - aid: 56 34 12
                    keys: [{number: 1, aes: \(Card.doorKey)}]
                    files:
                      - {id: 1, type: standard, comm: plain, \(rights), data: \(Card.credential)}
            """
        var options = AgentRun.Options(scenario: scenario)
        options.extra = "auth: {keys_file: \(try Card.keysFile(folder))}\n" + Self.access
        try await withAgentRun(options) { run in
            await run.watcher.next("reader") { $0["state"] as? String == "ok" }
            let trust = try await Self.tap(run)["trust"] as? [String: Any] ?? [:]
            #expect(trust["verdict"] as? String == "untrusted", "\(rights): \(trust)")
            #expect(trust["reasons"] as? [String] == ["credential_unproven"], "\(rights): \(trust)")
            #expect(trust["credential"] == nil, "\(trust)")
        }
    }

    /// Every output of a run that read the credential with the key and then failed with another:
    /// every MQTT message (events with `trust`, info, health, status), the agent's debug log and
    /// every file of its state directory. No form of either key is in any of them.
    @Test func theKeysAreInNoOutputOfTheCredentialRead() async throws {
        let folder = try TemporaryFolder()
        let wrongKey = "0F1E2D3C4B5A69788796A5B4C3D2E1F0"
        var outputs: [String: String] = [:]
        for key in [Card.doorKey, wrongKey] {
            var options = Self.options("desfire_ev2", keys: try Card.keysFile(folder, key: key))
            options.extra += "\nhealth_interval_s: 5"
            try await withAgentRun(options) { run in
                await run.watcher.next("reader") { $0["state"] as? String == "ok" }
                let trust = try await Self.tap(run)["trust"] as? [String: Any] ?? [:]
                #expect(trust["reason"] as? String == (key == Card.doorKey ? nil : "auth_failed"), "\(trust)")
                await run.watcher.next("health")
                run.agent.expectCleanStop()
                for (index, message) in run.watcher.seen.received.enumerated() {
                    outputs["\(key.prefix(4)) mqtt \(index) \(message.topic)"] = String(decoding: message.payload, as: UTF8.self)
                }
                outputs["\(key.prefix(4)) log"] = run.agent.errorOutput + run.agent.output
                let state = run.folder.path + "/state"
                for name in (try? FileManager.default.subpathsOfDirectory(atPath: state)) ?? [] {
                    if let data = FileManager.default.contents(atPath: state + "/" + name) {
                        outputs["\(key.prefix(4)) state \(name)"] = String(decoding: data, as: UTF8.self)
                    }
                }
            }
        }
        #expect(outputs.keys.contains { $0.hasSuffix("event/scanned") }, "\(outputs.keys.sorted())")
        #expect(outputs.values.contains { $0.contains("\"authenticated\"") && $0.contains(Card.credential) })
        let forms = Card.forms(of: Card.doorKey) + Card.forms(of: wrongKey)
        for (name, text) in outputs {
            for form in forms {
                #expect(!text.contains(form), "a key shows in \(name)")
            }
        }
    }


    /// A 3DES door (issue 21 item 3): application 123456h with 2K3DES or 3K3DES keys, its credential file
    /// fully enciphered behind key 1. The agent opens it with AuthenticateISO (1Ah) and EV1 secure
    /// messaging over 3DES on an EV1 / EV2, with the legacy Authenticate (0Ah) and D40 messaging on an
    /// MF3ICD40, the simulator answering with its own 1Ah / 0Ah; a wrong key is auth_failed.
    @Test(arguments: [("desfire_ev1", "2k3des", "00102031405060708090A0B0B0A09080"),
                      ("desfire_ev2", "3k3des", "00102031405060708090A0B0B0A090807060504030201000"),
                      ("desfire_d40", "2k3des", "00102031405060708090A0B0B0A09080")])
    func aTripleDESCredentialIsRead(_ kind: String, _ cipher: String, _ key: String) async throws {
        let method = kind == "desfire_d40" ? "Authenticate" : "AuthenticateISO"
        let folder = try TemporaryFolder()
        let scenario = """
            tags:
              - id: badge
                type: \(kind)
                uid: 04 2F 19 0A CD 66 80
                applications:
                  - aid: 56 34 12
                    keys: [{number: 1, \(cipher): \(key)}]
                    files:
                      - {id: 1, type: standard, comm: full, read: 1, read_write: 1, data: \(Card.credential)}

            """
        for (given, opens) in [(key, true), (String(repeating: "A5", count: key.count / 2), false)] {
            let keys = try folder.write("keys-\(opens).yaml", """
                keys:
                  door_3des:
                    kind: desfire
                    application: "123456"
                    key_number: 1
                    cipher: \(cipher)
                    key: \(given)

                """)
            chmod(keys, 0o600)
            var options = AgentRun.Options(scenario: scenario)
            options.extra = "auth: {keys_file: \(keys)}\n" + Self.access
            try await withAgentRun(options) { run in
                await run.watcher.next("reader") { $0["state"] as? String == "ok" }
                let trust = try await Self.tap(run)["trust"] as? [String: Any] ?? [:]
                let authenticated = (trust["authenticated"] as? [[String: Any]])?.first ?? [:]
                #expect(authenticated["method"] as? String == method, "\(trust)")
                #expect(authenticated["key"] as? String == "door_3des")
                if opens {
                    #expect(trust["verdict"] as? String == "trusted" && trust["credential"] as? String == Card.credential, "\(trust)")
                } else {
                    #expect(trust["reason"] as? String == "auth_failed" && authenticated["error"] as? String == "auth_failed", "\(trust)")
                }
                let log = run.agent.errorOutput + run.agent.output
                #expect(!log.contains(given) && !log.contains(given.lowercased()))
            }
        }
    }
}
