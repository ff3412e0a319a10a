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
        var trust = TrustReport(credentialSource: "uid")
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
        var trust = TrustReport(credentialSource: "uid", credentialHashed: true)
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
}
