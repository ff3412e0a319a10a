import Foundation
import Testing
import TestSupport

/// The `trust` object of `event/scanned` end to end (docs/access-control.md): real libnfc, the
/// simulator and Mosquitto. Genuine signatures are published ones with their UIDs (the simulator
/// answers READ_SIG / Read_Sig with the scenario's `signature`); clones are the simulator's Gen1a
/// cards and an "NTAG216" whose signature is a clone's (Proxmark3 issue 1861).
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentE2EAccessTests {
    struct Genuine: Sendable {
        let id: String
        let type: String
        let uid: String
        let signature: String
        let key: String
        let curve: String
    }

    /// One genuine tag per family that has a signature NFCBridge reads.
    static let genuine = [
        // Flipper format documentation, NTAG216 example.
        Genuine(id: "ntag216", type: "ntag216", uid: "0485928AA06181",
                signature: "1B84EB70BD4CBD1B1DE4980B1858BD7C7285B4E47B388E96CF886BEEA343AD90",
                key: "NXP NTAG21x", curve: "secp128r1"),
        // Proxmark3 tools/recover_pk.py self-test samples.
        Genuine(id: "ev1", type: "ultralight_ev1_11", uid: "04C1285A373080",
                signature: "CEA2EB0B3C95D0844A95B824A7553703B3702378033BF0987899DB70151A19E7",
                key: "NXP Ultralight EV1", curve: "secp128r1"),
        // secp192r1, a 48-byte READ_SIG answer (recover_pk.py "MIFARE Ultralight AES").
        Genuine(id: "ul_aes", type: "ultralight_aes", uid: "045E4CC2451390",
                signature: "C9BBDA1B99EB6634CDFD8E3251AC5C4742EA5FA507B8A8A8B39B19AB7340D173331589C54C56C49F0CCA6DDBAC1E492A",
                key: "NXP Ultralight AES", curve: "secp192r1"),
        Genuine(id: "desfire_ev2", type: "desfire_ev2", uid: "042A41CAE45380",
                signature: "B2769F8DDB575AEA2A680ADCA8FFED4FAB81A1E9908E2B82FE0FABB697BBD9B23835C416970E75768F12902ACA491349E94E6589EAF4F508",
                key: "NXP DESFire EV2", curve: "secp224r1"),
        Genuine(id: "desfire_ev3", type: "desfire_ev3", uid: "04448BD2DB6B80",
                signature: "5CBB5632795C8F15263FEFB095B51C7B541AFD914A1AE44EF6FB8AF605EDF13DBFEE6C3A2DB372245E671DFE0D42CB1F0D0B8FE67A89D2F6",
                key: "NXP DESFire EV3", curve: "secp224r1"),
        // AN12343 worked example.
        Genuine(id: "desfire_light", type: "desfire_light", uid: "045A115A346180",
                signature: "1CA298FC3F0F04A329254AC0DF7A3EB8E756C076CD1BAAF47B8BBA6DCD78BCC64DFD3E80E679D9A663CAE9E4D4C2C77023077CC549CE4A61",
                key: "NXP DESFire Light", curve: "secp224r1"),
        Genuine(id: "ntag424", type: "ntag424_dna", uid: "0463474AA26A80",
                signature: "27E9A50E6CA4BA9037C02F7D20A80D0284D0C1D83C67F5A5AC1D8A4EF86C9508417E4E9C6F85AA7920F0ABDED984CAF20467D66EA54BBF08",
                key: "NXP NTAG 424 DNA", curve: "secp224r1"),
    ]

    static let scenario = "tags:\n" + (genuine.map { tag in
        "  - {id: \(tag.id), type: \(tag.type), uid: \(tag.uid), signature: \(tag.signature)}"
    } + [
        "  - {id: bad_ntag216, type: ntag216, uid: 04CA201F396181, signature: 9F87F95818B24E907D410096CEB9A74AB09E3A1AFA30E7B2ACBDAF4E89683804}",
        // A genuine Ultralight AES signature copied onto another UID (recover_pk.py's second sample's UID).
        "  - {id: bad_ul_aes, type: ultralight_aes, uid: 043F88C2451390, signature: \(genuine[2].signature)}",
        "  - {id: gen1a_classic, type: classic_1k, uid: 9A1B2C3D, magic: gen1a}",
        "  - {id: gen1a_ultralight, type: ultralight, uid: 04D1E2F3A4B5C6, magic: gen1a}",
        "  - {id: classic, type: classic_1k, uid: 9A1B2C3E}",
    ]).joined(separator: "\n")

    /// The `trust` of the scan of `id`, after placing it alone on the reader and taking it away.
    private func trust(of id: String, in run: AgentRun) async throws -> [String: Any] {
        let before = run.watcher.lastIndex
        try run.simulator.place(id)
        let (scannedAt, scanned, _) = await run.watcher.next("event/scanned", after: before)
        try run.simulator.remove(id)
        await run.watcher.next("event/removed", after: scannedAt)
        return try #require(scanned["trust"] as? [String: Any], "\(id): \(scanned)")
    }

    @Test func genuineSignaturesVerifyAndClonesAreFlagged() async throws {
        let options = AgentRun.Options(
            scenario: Self.scenario, presence: "{removal_grace_ms: 150, min_interval_ms: 0}",
            extra: "access: {credential_hash: true, probes: {gen1a_backdoor: true}}")
        try await withAgentRun(options) { run in
            await run.watcher.next("reader") { $0["state"] as? String == "ok" }
            for tag in Self.genuine {
                let trust = try await trust(of: tag.id, in: run)
                let signature = trust["signature"] as? [String: Any]
                #expect(signature?["verdict"] as? String == "valid", "\(tag.id): \(trust)")
                #expect(signature?["key"] as? String == tag.key, "\(tag.id): \(trust)")
                #expect(signature?["curve"] as? String == tag.curve, "\(tag.id): \(trust)")
                #expect(trust["verdict"] as? String == "trusted", "\(tag.id): \(trust)")
                #expect(trust["clone_probes"] as? [String] == [], "\(tag.id): \(trust)")
                #expect(trust["credential_source"] as? String == "uid" && trust["credential_hashed"] as? Bool == true)
                // SHA-256 of the UID's bytes: 64 hex digits, never the UID itself.
                let credential = trust["credential"] as? String ?? ""
                #expect(credential.count == 64 && credential != tag.uid, "\(tag.id): \(trust)")
            }

            for id in ["bad_ntag216", "bad_ul_aes"] {
                let bad = try await trust(of: id, in: run)
                #expect((bad["signature"] as? [String: Any])?["verdict"] as? String == "invalid", "\(id): \(bad)")
                #expect(bad["clone_probes"] as? [String] == ["version_signature_mismatch"], "\(id): \(bad)")
                #expect(bad["verdict"] as? String == "untrusted" && bad["reason"] as? String == "clone_detected", "\(id): \(bad)")
            }

            for id in ["gen1a_classic", "gen1a_ultralight"] {
                let trust = try await trust(of: id, in: run)
                #expect((trust["clone_probes"] as? [String])?.contains("gen1a_backdoor") == true, "\(id): \(trust)")
                #expect(trust["verdict"] as? String == "untrusted" && trust["reason"] as? String == "clone_detected", "\(id): \(trust)")
            }

            let classic = try await trust(of: "classic", in: run)
            #expect(classic["clone_probes"] as? [String] == [], "a genuine card ignores the Gen1a unlock: \(classic)")
            #expect((classic["signature"] as? [String: Any])?["verdict"] as? String == "unsupported", "\(classic)")
            #expect(classic["verdict"] as? String == "trusted", "\(classic)")
            run.agent.expectCleanStop()
        }
    }

    /// The Gen4 GTU probe (`access.probes.gen4_gtu`, off by default): the simulator's Gen4 Classic and
    /// Ultralight answer `CF 00000000 CC` and are flagged `gen4_gtu`; a genuine NTAG216 and Classic
    /// refuse it, are re-selected and scanned on (the NTAG216's signature still verifies).
    @Test func theGen4ProbeFlagsGen4CardsAndNotGenuineOnes() async throws {
        let ntag = Self.genuine[0]
        let scenario = """
            tags:
              - {id: gen4_classic, type: classic_1k, uid: 9A1B2C3F, magic: gen4}
              - {id: gen4_ultralight, type: ultralight, uid: 04D1E2F3A4B5C7, magic: gen4}
              - {id: ntag216, type: ntag216, uid: \(ntag.uid), signature: \(ntag.signature)}
              - {id: classic, type: classic_1k, uid: 9A1B2C3E}
            """
        let options = AgentRun.Options(
            scenario: scenario, presence: "{removal_grace_ms: 150, min_interval_ms: 0}",
            extra: "access: {probes: {gen4_gtu: true}}")
        try await withAgentRun(options) { run in
            await run.watcher.next("reader") { $0["state"] as? String == "ok" }
            for id in ["gen4_classic", "gen4_ultralight"] {
                let trust = try await trust(of: id, in: run)
                #expect((trust["clone_probes"] as? [String])?.contains("gen4_gtu") == true, "\(id): \(trust)")
                #expect(trust["verdict"] as? String == "untrusted" && trust["reason"] as? String == "clone_detected", "\(id): \(trust)")
            }
            for id in ["ntag216", "classic"] {
                let trust = try await trust(of: id, in: run)
                #expect(trust["clone_probes"] as? [String] == [], "a genuine card refuses CFh: \(id): \(trust)")
                #expect(trust["verdict"] as? String == "trusted", "\(id): \(trust)")
            }
            run.agent.expectCleanStop()
        }
    }

    @Test func requiredSignatureRefusesATagWithoutOne() async throws {
        let scenario = "tags:\n  - {id: classic, type: classic_1k, uid: 9A1B2C3E}\n  - {id: ntag, type: ntag216, uid: 0485928AA06181, signature: 1B84EB70BD4CBD1B1DE4980B1858BD7C7285B4E47B388E96CF886BEEA343AD90}"
        let options = AgentRun.Options(
            scenario: scenario, presence: "{removal_grace_ms: 150, min_interval_ms: 0}",
            extra: "access: {signature: require, credential: ndef}")
        try await withAgentRun(options) { run in
            await run.watcher.next("reader") { $0["state"] as? String == "ok" }
            let classic = try await trust(of: "classic", in: run)
            #expect(classic["verdict"] as? String == "untrusted", "\(classic)")
            #expect(classic["reasons"] as? [String] == ["signature_missing", "credential_missing"], "\(classic)")
            let ntag = try await trust(of: "ntag", in: run)
            #expect(ntag["reasons"] as? [String] == ["credential_missing"], "no NDEF record: \(ntag)")
            #expect((ntag["signature"] as? [String: Any])?["verdict"] as? String == "valid", "\(ntag)")
            run.agent.expectCleanStop()
        }
    }
}
