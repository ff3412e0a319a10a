import Foundation
import Glibc
import NFCCore
import Testing
import TestSupport

/// Authenticated DESFire reads end to end (issue 21, items 3, 6 and 7): the built CLI and agent, real
/// libnfc (`pn532_uart`) and `nfcbridge-sim`, whose virtual DESFire runs its own AuthenticateAES /
/// AuthenticateEV2First and secure messaging (docs/simulator.md "DESFire"). An AES-protected credential
/// file is read with the right key, refused with a wrong one (`auth_failed`, the free files still
/// read), dropped on a corrupted MAC (`integrity_error`), and the key's bytes appear in no output.
@Suite(.serialized, .timeLimit(.minutes(4))) struct DESFireAuthEndToEndTests {
    /// The door key (AES, key 1 of application 123456h) and what its file holds.
    static let doorKey = "4A1B9C0D2E3F405162738495A6B7C8D9"
    static let credential = "C0FFEE00112233445566778899AABBCCDDEEFF0102030405060708090A0B0C0D"

    /// A card of `kind` with application 123456h (card order 56 34 12, as the dump lists it): its key 1 is the door key; file
    /// 01 the 32-byte credential, fully enciphered, read key 1; 02 MACed, read key 1; 03 free and plain;
    /// 04 MACed, read key 1, whose answers carry a corrupted MAC when `corrupt`.
    static func scenario(_ kind: String, corrupt: Bool = false) -> String {
        """
        tags:
          - id: badge
            type: \(kind)
            uid: 04 2F 19 0A CD 66 80
            applications:
              - aid: 56 34 12
                keys: [{number: 1, aes: \(doorKey)}]
                files:
                  - {id: 1, type: standard, comm: full, read: 1, read_write: 1, data: \(credential)}
                  - {id: 2, type: standard, comm: mac, read: 1, read_write: 1, data: 0102030405060708090A0B0C0D0E0F10}
                  - {id: 3, type: standard, comm: plain, read: free, data: 46524545}
                  - {id: 4, type: value, comm: mac, read: 1, read_write: 1, value: 4242, corrupt_mac: \(corrupt)}
        timeline: [{at: 0, place: badge}]

        """
    }

    /// A keys file (mode 0600) with `key` as key 1 of application 123456h (written as NXP does).
    static func keysFile(_ folder: TemporaryFolder, key: String = doorKey) throws -> String {
        let path = try folder.write("keys.yaml", """
            keys:
              door_read:
                kind: desfire
                application: "123456"
                key_number: 1
                cipher: aes
                key: \(key)

            """)
        chmod(path, 0o600)
        return path
    }

    /// `nfcbridge dump --keys FILE --compact`: the JSON, its files (name → hex) and facts.
    static func dump(_ simulator: SimulatorProcess, keys: String, extra: [String] = []) throws
        -> (result: ProcessResult, json: [String: Any], files: [String: String], facts: [String: String])
    {
        let result = try runNFCBridge(["dump", "--device", simulator.connstring, "--keys", keys, "--compact", "--timeout", "20"] + extra)
        #expect(result.status == 0, "\(result.err)")
        let json = jsonObject(result.out.trimmingCharacters(in: .newlines)) ?? [:]
        var files: [String: String] = [:]
        for file in json["files"] as? [[String: Any]] ?? [] { files[file["name"] as? String ?? ""] = file["data"] as? String }
        let facts = Dictionary((json["facts"] as? [[String: Any]] ?? []).map { ($0["key"] as? String ?? "", $0["value"] as? String ?? "") },
                               uniquingKeysWith: { a, _ in a })
        return (result, json, files, facts)
    }

    @Test(arguments: ["desfire_ev1", "desfire_ev2", "desfire_ev3"])
    func theRightKeyReadsTheCredential(_ kind: String) throws {
        let folder = try TemporaryFolder()
        let simulator = try SimulatorProcess(scenario: Self.scenario(kind))
        defer { simulator.stop() }
        let (_, json, files, facts) = try Self.dump(simulator, keys: try Self.keysFile(folder))
        #expect(files["563412/01"] == Self.credential, "\(kind): \(files) \(facts)")
        #expect(files["563412/02"] == "0102030405060708090A0B0C0D0E0F10")
        #expect(files["563412/03"] == "46524545")
        #expect(files["563412/04"] == "92100000", "value 4242")
        let method = kind == "desfire_ev1" ? "AuthenticateAES" : "AuthenticateEV2First"
        #expect(facts["Authentication 563412"] == "door_read (key 1, \(method)): read 563412/01, 563412/02, 563412/04", "\(facts)")
        let authentications = json["desfireAuthentications"] as? [[String: Any]]
        #expect(authentications?.first?["key"] as? String == "door_read")
        #expect(authentications?.first?["result"] as? String == "opened")
        #expect(facts["Skipped"] == nil, "\(facts)")
    }

    @Test(arguments: ["desfire_ev1", "desfire_ev2"])
    func aWrongKeyIsAuthFailedAndTheFreeFilesStillRead(_ kind: String) throws {
        let folder = try TemporaryFolder()
        let simulator = try SimulatorProcess(scenario: Self.scenario(kind))
        defer { simulator.stop() }
        let (_, json, files, facts) = try Self.dump(simulator, keys: try Self.keysFile(folder, key: "00112233445566778899AABBCCDDEEFF"))
        #expect(files["563412/01"] == nil && files["563412/02"] == nil)
        #expect(files["563412/03"] == "46524545", "\(files)")
        let authentication = facts["Authentication 563412"] ?? ""
        #expect(authentication.contains("auth_failed") && authentication.contains("key 1") && authentication.contains("563412"), "\(facts)")
        #expect((json["desfireAuthentications"] as? [[String: Any]])?.first?["error"] as? String == "auth_failed")
        #expect(facts["Skipped"]?.contains("563412/01") == true, "\(facts)")
    }

    @Test(arguments: ["desfire_ev1", "desfire_ev2"])
    func aCorruptedMACIsAnIntegrityErrorNeverData(_ kind: String) throws {
        let folder = try TemporaryFolder()
        let simulator = try SimulatorProcess(scenario: Self.scenario(kind, corrupt: true))
        defer { simulator.stop() }
        let (_, _, files, facts) = try Self.dump(simulator, keys: try Self.keysFile(folder))
        #expect(files["563412/01"] == Self.credential, "the files before it were read: \(facts)")
        #expect(files["563412/04"] == nil, "\(files)")
        #expect(facts["File 563412/04"]?.contains("integrity_error") == true, "\(facts)")
    }

    /// A keys file written in card order (`563412` for the card's AID 123456h, as files were before
    /// NFCBridge read NXP's order) names application 563412h, which the card lacks: `dump --keys` warns
    /// on standard error with the entry's file and line and both AIDs, never the key, and the
    /// credential file stays unread.
    @Test func aKeysFileInCardOrderIsWarnedAbout() throws {
        let folder = try TemporaryFolder()
        let simulator = try SimulatorProcess(scenario: Self.scenario("desfire_ev2"))
        defer { simulator.stop() }
        let path = try folder.write("keys.yaml", """
            keys:
              door_read:
                kind: desfire
                application: "563412"
                key_number: 1
                cipher: aes
                key: \(Self.doorKey)

            """)
        chmod(path, 0o600)
        let (result, _, files, _) = try Self.dump(simulator, keys: path)
        #expect(result.err.contains("\(path):4: DESFire key 'door_read' names application 563412"), "\(result.err)")
        #expect(result.err.contains("the card has 123456"), "\(result.err)")
        #expect(!result.err.uppercased().contains(Self.doorKey), "\(result.err)")
        #expect(files["563412/01"] == nil, "\(files)")
    }

    /// A keys file anyone may read is refused before the reader is opened.
    @Test func anOpenKeysFileIsRefused() throws {
        let folder = try TemporaryFolder()
        let keys = try Self.keysFile(folder)
        chmod(keys, 0o644)
        let result = try runNFCBridge(["dump", "--device", "pn532_uart:/nonexistent", "--keys", keys, "--timeout", "1"])
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err.contains("invalid_config") && result.err.contains("chmod 600"), "\(result.err)")
        #expect(!result.err.contains(Self.doorKey))
    }

    /// Every form the door key could take in an output.
    static var keyForms: [String] { forms(of: doorKey) }

    /// The forms `key` could take in an output: hex in both cases, spaced, base64, decimal bytes.
    static func forms(of key: String) -> [String] {
        let bytes = [UInt8](hex: key) ?? []
        return [key, key.lowercased(), bytes.spacedHexString, bytes.spacedHexString.lowercased(),
                Data(bytes).base64EncodedString(), bytes.map { String($0) }.joined(separator: ", ")]
    }

    /// The agent with `auth.keys_file` and `dump.on_scan` reads the credential at the tap, and the key
    /// is in nothing it or the CLI wrote: its log (debug), every MQTT message (events, dump, info,
    /// health, command answers), its state directory, `nfcbridge dump` in JSON and Flipper form and
    /// `nfcbridge export` of that dump. `info` names the key; nothing shows its bytes.
    @Test func theKeyIsInNoOutput() async throws {
        let folder = try TemporaryFolder()
        let keys = try Self.keysFile(folder)
        var outputs: [String: String] = [:]
        try await withCommandAgent(
            scenario: Self.scenario("desfire_ev2"),
            extraConfiguration: "dump: {on_scan: true}\nauth: {keys_file: \(keys)}\nhealth_interval_s: 5"
        ) { h in
            let event = await h.next { $0.topic == "nfc/e2e/event/dump" }
            let files = (event.object?["dump"] as? [String: Any])?["files"] as? [[String: Any]] ?? []
            #expect(files.contains { $0["name"] as? String == "563412/01" && $0["data"] as? String == Self.credential },
                    "\(event.payloadString ?? "")")
            let info = await h.next { $0.topic == "nfc/e2e/info" }
            let named = ((info.object?["auth"] as? [String: Any])?["keys"] as? [[String: Any]])?.first
            #expect(named?["name"] as? String == "door_read" && named?["kind"] as? String == "desfire", "\(info.payloadString ?? "")")
            _ = await h.next { $0.topic == "nfc/e2e/health" }
            try await h.request("dump", #"{"id":"d","format":"flipper"}"#)
            #expect(await h.final("dump", id: "d").status == "ok")
            for (index, message) in h.messages.received.enumerated() {
                outputs["mqtt \(index) \(message.topic)"] = String(decoding: message.payload, as: UTF8.self)
            }
            outputs["log"] = (h.process?.errorOutput ?? "") + (h.process?.output ?? "")
            let state = h.run.folder.path + "/state"
            for name in (try? FileManager.default.subpathsOfDirectory(atPath: state)) ?? [] {
                if let data = FileManager.default.contents(atPath: state + "/" + name) { outputs["state " + name] = String(decoding: data, as: UTF8.self) }
            }
            h.process?.expectCleanStop()
        }
        let simulator = try SimulatorProcess(scenario: Self.scenario("desfire_ev2"))
        defer { simulator.stop() }
        let json = try Self.dump(simulator, keys: keys)
        outputs["cli json"] = json.result.out + json.result.err
        #expect(json.files["563412/01"] == Self.credential)
        let dumpFile = try folder.write("dump.json", json.result.out)
        let flipper = try runNFCBridge(["dump", "--device", simulator.connstring, "--keys", keys, "--format", "flipper", "--timeout", "20"])
        outputs["cli flipper"] = flipper.out + flipper.err
        for format in ["flipper", "hex", "json"] {
            let export = try runNFCBridge(["export", "--format", format, dumpFile])
            outputs["export " + format] = export.out + export.err
        }
        #expect(outputs.count > 10)
        for (name, text) in outputs {
            for form in Self.keyForms {
                #expect(!text.contains(form), "the key shows in \(name)")
            }
        }
    }
}
