import NFCCore
import Testing

@testable import NFCBridge

/// The `trust` object of `event/scanned` (docs/mqtt.md, "trust").
@Suite struct TrustReportTests {
    private func scan(trust: TrustReport?) -> TagScan {
        let info = CardInfo(type: .ntag215, uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
        var scan = TagScan(uid: info.uid, report: ScanReport(cardInfo: info))
        scan.trust = trust
        return scan
    }

    @Test func aTapNoCheckRefusedIsTrustedWithItsSignatureAndCredential() throws {
        var trust = TrustReport(credentialSource: .uid)
        trust.signature = SignatureTrust(verdict: .valid, key: "NXP NTAG21x", curve: "secp128r1")
        trust.credential = "04A1B2C3D4E5F6"
        #expect(trust.verdict == .trusted)
        let value = try JSONValueEncoder().encode(ScannedEvent(scan: scan(trust: trust)))
        guard case let .object(members) = value else {
            Issue.record("event/scanned is not an object")
            return
        }
        #expect(members["trust"]?.jsonString == #"{"clone_probes":[],"credential":"04A1B2C3D4E5F6","credential_source":"uid","reasons":[],"signature":{"curve":"secp128r1","key":"NXP NTAG21x","verdict":"valid"},"verdict":"trusted"}"#)
    }

    @Test func everyRefusalIsKeptOnceAndTheFirstIsTheReason() throws {
        var trust = TrustReport(credentialSource: .uid, credentialHashed: true)
        trust.signature = SignatureTrust(verdict: .invalid)
        trust.cloneProbes = ["gen1a_backdoor"]
        trust.refuse(.cloneDetected)
        trust.refuse(.signatureInvalid)
        trust.refuse(.cloneDetected)
        trust.credential = "AB"
        #expect(trust.verdict == .untrusted)
        #expect(trust.reason == .cloneDetected)
        #expect(JSONWire.text(trust) == #"{"clone_probes":["gen1a_backdoor"],"credential":"AB","credential_hashed":true,"credential_source":"uid","reason":"clone_detected","reasons":["clone_detected","signature_invalid"],"signature":{"verdict":"invalid"},"verdict":"untrusted"}"#)
    }

    @Test func aScanWithoutChecksHasNoTrustMember() throws {
        guard case let .object(members) = try JSONValueEncoder().encode(ScannedEvent(scan: scan(trust: nil))) else {
            Issue.record("event/scanned is not an object")
            return
        }
        #expect(members["trust"] == nil)
        #expect(members["uid"] == "04A1B2C3D4E5F6")
    }

    /// `access.credential_hash: true`: the SHA-256 of the credential, checked against FIPS 180-2
    /// Appendix B.1 ("abc").
    @Test func aHashedCredentialIsItsSHA256() throws {
        let hashed = try TrustEvaluator.published(Array("abc".utf8), hashed: true)
        #expect(hashed == "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD")
        #expect(try TrustEvaluator.published([0x04, 0xA1], hashed: false) == "04A1")
    }

    /// A hash that cannot be made is an error with its code, never a stand-in value in `credential`.
    @Test func aCredentialHashWithoutLibcryptoIsLibraryUnavailable() {
        let missing = { () throws(NFCError) -> LibCrypto in
            throw .libraryUnavailable("libcrypto.so.3 cannot be loaded: install the Debian package libssl3")
        }
        #expect(throws: NFCError.libraryUnavailable("libcrypto.so.3 cannot be loaded: install the Debian package libssl3")) {
            _ = try TrustEvaluator.published([0x04, 0xA1], hashed: true, crypto: missing)
        }
        // Without the hash libcrypto is not needed.
        #expect(throws: Never.self) { _ = try TrustEvaluator.published([0x04, 0xA1], hashed: false, crypto: missing) }
        var trust = TrustReport(credentialSource: .uid, credentialHashed: true)
        trust.refuse(.credentialHashFailed)
        #expect(JSONWire.text(trust) == #"{"clone_probes":[],"credential_hashed":true,"credential_source":"uid","reason":"credential_hash_failed","reasons":["credential_hash_failed"],"verdict":"untrusted"}"#)
    }
}
