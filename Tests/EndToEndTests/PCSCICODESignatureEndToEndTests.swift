import Foundation
import Testing
import TestSupport

extension PCSCEndToEndTests {
    /// Genuine ICODE SLIX2 UID / signature pairs (Proxmark3 `tools/recover_pk.py` self-test, "ICODE DNA,
    /// ICODE SLIX2", UIDs there least significant byte first): a real tag's, and another real tag's UID
    /// carrying the first one's signature — a copied signature, which no NXP key verifies for that UID.
    static let slix2Genuine = (uid: "E00401082AD28E83", signature: "CAE8183CB4823C765AFDEB78C9D66C959990FD52A5820E76E1D6E025D76EAD79")
    static let slix2Copied = (uid: "E00401086FC2621F", signature: slix2Genuine.signature)

    /// ICODE SLIX2 originality (issue 21) through the real pcscd and vpcd, which libnfc cannot reach: the
    /// simulator's SLIX2 answers READ SIGNATURE (BDh) with the scenario's signature. `dump` carries the
    /// `Originality Signature` fact; `nfcbridge run` with `access.signature: check` publishes the genuine
    /// tag's `trust.signature` valid under the ICODE key (secp128r1) and trusted, and the tag with a
    /// copied signature `invalid`, flagged by `version_signature_mismatch` and untrusted.
    @Test func icodeSLIX2SignaturesAreVerifiedThroughPCSC() async throws {
        let pcsc = try PCSCCard(scenario: """
            tags:
              - {id: genuine, type: icode_slix2, uid: \(Self.slix2Genuine.uid), signature: \(Self.slix2Genuine.signature)}
              - {id: copied, type: icode_slix2, uid: \(Self.slix2Copied.uid), signature: \(Self.slix2Copied.signature)}
            """)
        defer { pcsc.stop() }
        try pcsc.card.place("genuine")
        let dumped = try runNFCBridge(["dump", "--device", pcsc.connstring, "--compact", "--timeout", "20"])
        #expect(dumped.status == 0, "\(dumped.err)")
        let facts = try pcscJSON(dumped.out)["facts"] as? [[String: Any]] ?? []
        #expect(facts.contains { $0["key"] as? String == "Originality Signature" && $0["value"] as? String == "Valid (NXP ICODE DNA / SLIX2)" },
                "\(dumped.out.suffix(800))")

        let scannedTopic = "\(CommandAgentHarness.root)/event/scanned"
        let removedTopic = "\(CommandAgentHarness.root)/event/removed"
        try await withCommandAgent(scenario: "", reader: .device(pcsc.connstring), extraConfiguration: "access: {signature: check}",
                                   modulations: "[iso15693]") { h in
            let genuine = await h.next { $0.topic == scannedTopic }
            #expect(genuine.object?["uid"] as? String == Self.slix2Genuine.uid, "\(genuine.payloadString ?? "")")
            let trust = try #require(genuine.object?["trust"] as? [String: Any], "\(genuine.payloadString ?? "")")
            let signature = trust["signature"] as? [String: Any]
            #expect(signature?["verdict"] as? String == "valid", "\(trust)")
            #expect(signature?["key"] as? String == "NXP ICODE DNA / SLIX2" && signature?["curve"] as? String == "secp128r1", "\(trust)")
            #expect(trust["verdict"] as? String == "trusted" && trust["clone_probes"] as? [String] == [], "\(trust)")

            try pcsc.card.remove("genuine")
            _ = await h.next { $0.topic == removedTopic }
            try pcsc.card.place("copied")
            let copied = await h.next { $0.topic == scannedTopic }
            #expect(copied.object?["uid"] as? String == Self.slix2Copied.uid, "\(copied.payloadString ?? "")")
            let bad = try #require(copied.object?["trust"] as? [String: Any], "\(copied.payloadString ?? "")")
            #expect((bad["signature"] as? [String: Any])?["verdict"] as? String == "invalid", "\(bad)")
            #expect((bad["clone_probes"] as? [String])?.contains("version_signature_mismatch") == true, "\(bad)")
            #expect(bad["verdict"] as? String == "untrusted" && bad["reason"] as? String == "clone_detected", "\(bad)")
        }
    }
}
