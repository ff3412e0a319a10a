import Foundation
import NFCCore
import Testing

@testable import NFCBridge

/// The `ntag424_sdm` kind of `auth.keys_file`, and `trust.sun` as the agent makes it from a SUN check and
/// its counter store.
@Suite struct SUNTrustTests {
    func parse(_ text: String) throws(ConfigurationError) -> AuthKeysFile.Loaded {
        try AuthKeysFile.parse(Array(text.utf8), path: "keys.yaml")
    }

    @Test func theKindReadsItsKeySets() throws {
        let loaded = try parse("""
            keys:
              door:
                kind: ntag424_sdm
                meta_read_key: 000102030405060708090A0B0C0D0E0F
                file_read_key: 00112233445566778899AABBCCDDEEFF
              plain:
                kind: ntag424_sdm
                file_read_key: FFEEDDCCBBAA99887766554433221100
            """)
        #expect(loaded.names.map(\.kind) == ["ntag424_sdm", "ntag424_sdm"])
        let sets = loaded.families[NTAG424SUNOptions.self].keySets
        #expect(sets.map(\.name) == ["door", "plain"])
        #expect(sets[0].metaRead?.revealed == (0..<16).map { UInt8($0) })
        #expect(sets[1].metaRead == nil && sets[1].fileRead?.count == 16)
        #expect(!"\(sets)".contains("00112233"), "keys never print")
    }

    @Test func aShortKeyOrAMissingOneIsRefusedByLine() {
        for (text, expected) in [
            ("keys:\n  door:\n    kind: ntag424_sdm\n    file_read_key: 0011\n", "keys.yaml:4: door.file_read_key:"),
            ("keys:\n  door:\n    kind: ntag424_sdm\n    meta_read_key: 00112233445566778899AABBCCDDEEFF\n", "keys.yaml:"),
        ] {
            #expect(throws: ConfigurationError.self) { try parse(text) }
            do { _ = try parse(text) } catch {
                #expect(error.message.hasPrefix(expected), "\(error.message)")
                #expect(!error.message.contains("0011"), "never quoted: \(error.message)")
            }
        }
    }

    static let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
    static func check(_ verdict: SUNResult.Verdict, counter: Int? = 61) -> SUNCheck {
        SUNCheck(result: SUNResult(verdict: verdict, uid: uid, counter: counter), keySet: "door")
    }

    @Test func aValidMessageIsAdmittedOnceThenReplayed() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let counters = SUNCounterStore(directory: dir.path)
        #expect(Agent.admit(Self.check(.valid), uid: Self.uid, counters: counters).result.verdict == .valid)
        let again = Agent.admit(Self.check(.valid), uid: Self.uid, counters: counters)
        #expect(again.result.verdict == .replayed && again.result.counter == 61)
        // Only valid messages touch the store.
        #expect(Agent.admit(Self.check(.invalidMAC, counter: 99), uid: Self.uid, counters: counters).result.verdict == .invalidMAC)
        #expect(counters.last(for: Self.uid) == 61)
    }

    /// Repeat mode re-publishes an admitted scan: valid while its counter is the last one seen.
    @Test func aRepeatedScanIsJudgedAgainNotAdmitted() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let counters = SUNCounterStore(directory: dir.path)
        _ = Agent.admit(Self.check(.valid), uid: Self.uid, counters: counters)
        #expect(Agent.rejudge(Self.check(.valid), counters: counters).result.verdict == .valid)
        _ = counters.admit(uid: Self.uid, counter: 62)
        #expect(Agent.rejudge(Self.check(.valid), counters: counters).result.verdict == .replayed)
        #expect(counters.last(for: Self.uid) == 62)
    }

    @Test func theTrustObjectCarriesTheVerdict() throws {
        let trusted = try #require(Agent.trust(nil, with: Self.check(.valid)))
        #expect(trusted.verdict == .trusted && trusted.credentialSource == .sun && trusted.credential == Self.uid.hexString)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try #require(String(data: try encoder.encode(trusted), encoding: .utf8))
        #expect(json.contains(#""sun":{"counter":61,"keys":"door","verdict":"valid"}"#), "\(json)")
        let replayed = Agent.trust(nil, with: Self.check(.replayed))
        #expect(replayed?.verdict == .untrusted && replayed?.reason?.code == "sun_replayed" && replayed?.credential == nil)
        for (verdict, code) in [(SUNResult.Verdict.invalidMAC, "sun_invalid_mac"), (.noKey, "sun_no_key"), (.malformed, "sun_malformed")] {
            #expect(Agent.trust(nil, with: Self.check(verdict))?.reason?.code == code)
        }
        // Another check's report keeps its own source and gains the member.
        var other = TrustReport(credentialSource: .uid)
        other.credential = "04AABB"
        let merged = Agent.trust(other, with: Self.check(.valid))
        #expect(merged?.credentialSource == .uid && merged?.credential == "04AABB" && merged?.sun?.verdict == .valid)
    }

    /// A message that mirrors no read counter has the same SDMMAC at every read, and one without a UID
    /// would be counted under the UID the tag announces: neither is ever `valid`, nor touches the store.
    @Test func aMessageWithoutItsCounterOrUIDIsNotFresh() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let counters = SUNCounterStore(directory: dir.path)
        let noCounter = Self.check(.valid, counter: nil)
        let noUID = SUNCheck(result: SUNResult(verdict: .valid, uid: nil, counter: 61), keySet: "door")
        for check in [noCounter, noUID] {
            #expect(Agent.admit(check, uid: Self.uid, counters: counters).result.verdict == .notFresh)
            #expect(Agent.rejudge(check, counters: counters).result.verdict == .notFresh)
            let trust = Agent.trust(nil, with: Agent.admit(check, uid: Self.uid, counters: counters))
            #expect(trust?.verdict == .untrusted && trust?.reason?.code == "sun_not_fresh" && trust?.credential == nil)
        }
        #expect(counters.last(for: Self.uid) == nil)
    }

    /// `access.credential: sun` and no SUN message checked: no credential, `sun_missing`; other sources
    /// are left alone. With `credential_hash` the SUN credential is the UID's SHA-256.
    @Test func theCredentialSunNeedsAValidMessage() throws {
        let none = Agent.trust(TrustReport(credentialSource: .sun), with: nil)
        #expect(none?.verdict == .untrusted && none?.reasons.map(\.code) == ["sun_missing"])
        #expect(Agent.trust(TrustReport(credentialSource: .uid), with: nil)?.verdict == .trusted)
        #expect(Agent.trust(nil, with: nil) == nil)
        let hashed = Agent.trust(TrustReport(credentialSource: .sun, credentialHashed: true), with: Self.check(.valid))
        let digest = try TrustEvaluator.published(Self.uid, hashed: true)
        #expect(hashed?.verdict == .trusted && hashed?.credential == digest)
        #expect(hashed?.credential != Self.uid.hexString)
    }

    /// A SUN credential whose hash cannot be made: refused with `credential_hash_failed`, no stand-in
    /// credential, and the error handed on for `event/error`.
    @Test func aSUNCredentialHashThatFailsIsRefusedAndReported() {
        let missing = { () throws(NFCError) -> LibCrypto in
            throw .libraryUnavailable("libcrypto.so.3 cannot be loaded: install the Debian package libssl3")
        }
        var problems: [NFCError] = []
        let trust = Agent.trust(TrustReport(credentialSource: .sun, credentialHashed: true), with: Self.check(.valid),
                                problems: &problems, crypto: missing)
        #expect(trust?.verdict == .untrusted && trust?.reasons.map(\.code) == ["credential_hash_failed"])
        #expect(trust?.credential == nil)
        #expect(problems.map(\.code) == ["library_unavailable"])
    }
}

extension Agent {
    /// ``trust(_:with:problems:crypto:)`` for the checks that cannot fail on a hash.
    fileprivate static func trust(_ trust: TrustReport?, with check: SUNCheck?) -> TrustReport? {
        var problems: [NFCError] = []
        defer { #expect(problems.isEmpty) }
        return Self.trust(trust, with: check, problems: &problems)
    }
}
