import Foundation
import Glibc
import NFCCore
import Testing

@testable import NFCBridge

/// `auth.keys_file` (docs/keys.md): the kinds table, the file's privacy checks, errors with file:line
/// that never quote a key, and names (never keys) in what the configuration shows.
@Suite struct AuthKeysFileTests {
    typealias TempDir = ConfigurationTests.TempDir

    static let aesKey = "00112233445566778899AABBCCDDEEFF"
    static let sample = """
        keys:
          door_read:
            kind: desfire
            application: 123456
            key_number: 1
            cipher: aes
            key: \(aesKey)
          door_diversified:
            kind: desfire
            application: "123456"
            key_number: 2
            cipher: aes
            key: 2B7E151628AED2A6ABF7158809CF4F3C
            diversification:
              system_identifier: 3042F5
          legacy:
            kind: desfire
            application: 000001
            key_number: 0
            cipher: 2k3des
            key: 00000000000000000000000000000000
          ulc_factory:
            kind: ultralight_c
            key: 49454D4B41455242214E4143554F5946
          sticker:
            kind: ntag_password
            password: A1B2C3D4
            pack: "8080"

        """

    func parse(_ text: String) throws(ConfigurationError) -> AuthKeysFile.Loaded {
        try AuthKeysFile.parse(Array(text.utf8), path: "keys.yaml")
    }

    func failure(_ text: String) -> ConfigurationError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    /// Each kind's row reads its entry into the family's setting; names and kinds in file order.
    @Test func readsEveryKind() throws {
        let loaded = try parse(Self.sample)
        #expect(loaded.names.map(\.name) == ["door_read", "door_diversified", "legacy", "ulc_factory", "sticker"])
        #expect(loaded.names.map(\.kind) == ["desfire", "desfire", "desfire", "ultralight_c", "ntag_password"])
        let desfire = loaded.families.desfireKeys.keys
        #expect(desfire.count == 3)
        #expect(desfire[0].application == [0x56, 0x34, 0x12] && desfire[0].keyNumber == 1 && desfire[0].cipher == .aes)
        #expect(desfire[0].key.revealed == [UInt8](hex: Self.aesKey))
        #expect(desfire[1].diversification?.systemIdentifier == [0x30, 0x42, 0xF5])
        #expect(desfire[2].cipher == .tdes2k && desfire[2].application == [1, 0, 0])
        #expect(loaded.families.desfireKeys.keys(forApplication: [0x56, 0x34, 0x12]).map(\.name) == ["door_read", "door_diversified"])
        let type2 = loaded.families.type2Keys
        #expect(type2.ultralightC.map(\.name) == ["ulc_factory"])
        #expect(type2.passwords.first?.pack == [0x80, 0x80])
        #expect(type2.passwords.first?.password.revealed == [0xA1, 0xB2, 0xC3, 0xD4])
    }

    /// One convention for AIDs (docs/keys.md "Application IDs"): the keys file's `application` and
    /// `access.credential`'s AID are both written most significant byte first, as NXP writes AID
    /// 123456h, and both become the card order 56 34 12 (MIFARE DESFire EV1 datasheet §9.2,
    /// SelectApplication) that the card and NFCCore use; a DF name is kept as written.
    @Test func theKeysFileAndTheCredentialWriteAIDsAlike() throws {
        let loaded = try parse("keys:\n  door:\n    kind: desfire\n    application: \"123456\"\n    key_number: 1\n    cipher: aes\n    key: \(Self.aesKey)\n"
            + "  light:\n    kind: desfire\n    application: D2760000850101\n    key_number: 0\n    cipher: aes\n    key: \(Self.aesKey)\n")
        guard case let .success(.desfire(aid, file, offset, length)) = CredentialSource.parse("desfire:123456:01:0:16") else {
            Issue.record("desfire:123456:01:0:16 did not parse")
            return
        }
        #expect(aid == [0x12, 0x34, 0x56] && file == 1 && offset == 0 && length == 16)
        let cardOrder = DESFireAIDNotation.cardOrder(written: aid)
        #expect(cardOrder == [0x56, 0x34, 0x12])
        #expect(loaded.families.desfireKeys.keys(forApplication: cardOrder).map(\.name) == ["door"])
        #expect(loaded.families.desfireKeys.keys(forApplication: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]).map(\.name) == ["light"])
        #expect(DESFireAIDNotation.written(cardOrder: [0x56, 0x34, 0x12]) == "123456")
        #expect(DESFireAIDNotation.written(cardOrder: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]) == "D2760000850101")
    }

    /// Empty files and `keys:` without entries hold no keys.
    @Test func emptyFilesHoldNoKeys() throws {
        #expect(try parse("").names.isEmpty)
        #expect(try parse("keys:\n").names.isEmpty)
        #expect(try parse("# nothing yet\nkeys: {}\n").families.desfireKeys.keys.isEmpty)
    }

    /// A bad entry names the keys file, its line and the field; a malformed key is described, never quoted.
    @Test func errorsNameFileLineAndFieldNeverTheKey() throws {
        let wrongLength = try #require(failure("keys:\n  a:\n    kind: ultralight_c\n    key: 0011223344556677\n"))
        #expect(wrongLength.message.hasPrefix("keys.yaml:4: a.key: "))
        #expect(wrongLength.code == .invalidConfig)
        #expect(!wrongLength.message.contains("0011223344556677"))
        let notHex = try #require(failure("keys:\n  a:\n    kind: ntag_password\n    password: zzSECRETzz\n    pack: 0000\n"))
        #expect(notHex.line == 4 && !notHex.message.contains("SECRET"))

        let unknownKind = try #require(failure("keys:\n  a:\n    kind: desfir\n"))
        #expect(unknownKind.message == "keys.yaml:3: a.kind: must be one of desfire, ultralight_c, ntag_password, ntag424_sdm, got 'desfir'")
        let typo = try #require(failure("keys:\n  a:\n    kind: ultralight_c\n    kye: 00\n"))
        #expect(typo.line == 4 && typo.message.contains("did you mean 'key'?"))
        let missing = try #require(failure("keys:\n  a:\n    kind: ntag_password\n    password: 00000000\n"))
        #expect(missing.message.contains("'pack' is required"))
        let badName = try #require(failure("keys:\n  \"door key\":\n    kind: ultralight_c\n"))
        #expect(badName.line == 2)
        let keyNumber = try #require(failure(
            "keys:\n  a:\n    kind: desfire\n    application: 010203\n    key_number: 14\n    cipher: aes\n    key: \(Self.aesKey)\n"))
        #expect(keyNumber.line == 5 && keyNumber.key == "a.key_number")
        let threeDESDiversified = try #require(failure(
            "keys:\n  a:\n    kind: desfire\n    application: 010203\n    key_number: 1\n    cipher: 2k3des\n    key: \(Self.aesKey)\n"
                + "    diversification:\n      system_identifier: 01\n"))
        #expect(threeDESDiversified.line == 9 && threeDESDiversified.message.contains("aes keys only"))
        let top = try #require(failure("key:\n  a: {}\n"))
        #expect(top.line == 1)
        let syntax = try #require(failure("keys:\n  a: [\n"))
        #expect(syntax.source == "keys.yaml" && syntax.line != nil)
    }

    /// The keys never show: `SecretBytes` prints, dumps and encodes as `<redacted>`, and so does the
    /// whole configuration that holds them; `info` shows the file's path.
    @Test func keysNeverShowInTheConfiguration() throws {
        let dir = try TempDir()
        let file = try dir.file("keys.yaml", Self.sample)
        chmod(file, 0o600)
        let config = try ConfigurationLoader.parse(yaml: "auth:\n  keys_file: \(file)\n", source: "config.yaml", hostName: "h")
        #expect(config.auth.keysFile == file)
        #expect(config.auth.keyNames.count == 5)
        #expect(config.dump.families.desfireKeys.keys.count == 3)
        var dumped = ""
        dump(config, to: &dumped)
        let texts = ["\(config)", String(reflecting: config), dumped, try config.publicText,
                     String(decoding: try JSONEncoder().encode(SecretBytes([0xAB, 0xCD])), as: UTF8.self)]
        for text in texts {
            for secret in [Self.aesKey, "2B7E151628AED2A6ABF7158809CF4F3C", "49454D4B41455242214E4143554F5946", "A1B2C3D4"] {
                #expect(!text.uppercased().contains(secret), "a key shows in \(text.prefix(80))")
            }
            #expect(!text.contains("171, 205") && !text.contains("0xab"))
        }
        #expect(texts.last == "\"<redacted>\"")
    }

    /// The file must be the agent's user's and mode 0600 or stricter: `invalid_config` at the
    /// configuration's line otherwise, saying what to do.
    @Test func refusedUnlessPrivate() throws {
        let dir = try TempDir()
        let file = try dir.file("keys.yaml", Self.sample)
        for mode: mode_t in [0o644, 0o640, 0o604, 0o660, 0o700, 0o4600] {
            chmod(file, mode)
            do {
                _ = try ConfigurationLoader.parse(yaml: "id: a\nauth:\n  keys_file: \(file)\n", source: "config.yaml", hostName: "h")
                Issue.record("mode \(AuthKeysFile.octal(mode)) was accepted")
            } catch {
                #expect(error.code == .invalidConfig)
                #expect(error.message.hasPrefix("config.yaml:3: auth.keys_file: "))
                #expect(error.message.contains("chmod 600"))
            }
        }
        for mode: mode_t in [0o600, 0o400, 0o200] {
            chmod(file, mode)
            if mode == 0o200 { continue }  // unreadable by its owner: refused as unreadable (unless root)
            #expect(throws: Never.self) {
                _ = try ConfigurationLoader.parse(yaml: "auth:\n  keys_file: \(file)\n", source: "config.yaml", hostName: "h")
            }
        }
        var status = stat()
        status.st_mode = S_IFREG | 0o600
        status.st_uid = geteuid() &+ 1
        let owner = try #require(AuthKeysFile.privacyProblem(path: "/k", status: status))
        #expect(owner.contains("not by the agent's user"))
        status.st_uid = geteuid()
        #expect(AuthKeysFile.privacyProblem(path: "/k", status: status) == nil)
    }

    /// A bad entry in the keys file is named by the keys file's own line.
    @Test func entryErrorsNameTheKeysFile() throws {
        let dir = try TempDir()
        let file = try dir.file("keys.yaml", "keys:\n  a:\n    kind: nope\n")
        chmod(file, 0o600)
        do {
            _ = try ConfigurationLoader.parse(yaml: "auth:\n  keys_file: \(file)\n", source: "config.yaml", hostName: "h")
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix("\(file):3: a.kind: "))
        }
    }
}
