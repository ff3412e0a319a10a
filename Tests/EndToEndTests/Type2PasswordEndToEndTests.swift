import Foundation
import Glibc
import Testing
import TestSupport

/// NTAG21x passwords from the keys file end to end (issue 21 item 3): `nfcbridge dump --keys` on the
/// simulator's read-protected NTAG213 (PWD_AUTH, NTAG213/215/216 §10.7): the right password with its
/// PACK opens the protected pages; one whose PACK differs reads them but says the tag is not the
/// genuine one; a wrong password is `auth_failed` and the dump stops at the boundary as without keys.
@Suite(.serialized, .timeLimit(.minutes(3))) struct Type2PasswordEndToEndTests {
    static let scenario = """
        tags:
          - id: locked
            type: ntag213
            uid: 04A1B2C3D4E5F6
            ndef: [{uri: "https://example.com/protected"}]
            password: 12345678
            pack: ABCD
            auth0: 4
            read_protected: true
        timeline: [{at: 0, place: locked}]

        """

    static func keys(_ folder: TemporaryFolder, password: String, pack: String) throws -> String {
        let path = try folder.write("keys-\(password)-\(pack).yaml", """
            keys:
              sticker:
                kind: ntag_password
                password: \(password)
                pack: "\(pack)"

            """)
        chmod(path, 0o600)
        return path
    }

    static func facts(_ simulator: SimulatorProcess, keys: String) throws -> [String: String] {
        let result = try runNFCBridge(["dump", "--device", simulator.connstring, "--keys", keys, "--compact", "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)")
        let json = jsonObject(result.out.trimmingCharacters(in: .newlines)) ?? [:]
        #expect(!result.out.contains("12345678"), "the password is never printed")
        return Dictionary((json["facts"] as? [[String: Any]] ?? []).map { ($0["key"] as? String ?? "", $0["value"] as? String ?? "") },
                          uniquingKeysWith: { a, _ in a })
    }

    @Test func theRightPasswordWithItsPACKOpensTheProtectedPages() throws {
        let folder = try TemporaryFolder()
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let opened = try Self.facts(simulator, keys: try Self.keys(folder, password: "12345678", pack: "ABCD"))
        #expect(opened["Authentication"] == "sticker (PWD_AUTH): opened", "\(opened)")
        #expect(opened["Unauthenticated Boundary"] == nil, "\(opened)")
        let clone = try Self.facts(simulator, keys: try Self.keys(folder, password: "12345678", pack: "0000"))
        #expect(clone["Authentication"]?.contains("PACK differs") == true, "\(clone)")
        let wrong = try Self.facts(simulator, keys: try Self.keys(folder, password: "87654321", pack: "ABCD"))
        #expect(wrong["Authentication"] == "sticker (PWD_AUTH): auth_failed", "\(wrong)")
        #expect(wrong["Unauthenticated Boundary"] == "Page 4", "\(wrong)")
    }
}
