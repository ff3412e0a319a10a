import Foundation
import NFCCore
import Testing
import TestSupport

/// An eMRTD end to end (issue 9): `nfcbridge run` scans a virtual passport through the real libnfc
/// `pn532_uart` driver against `nfcbridge-sim`, reports it, refuses its dump naming BAC / PACE, and sends
/// it nothing but the refinement probes — the simulator logs every APDU the chip received.
@Suite(.serialized, .timeLimit(.minutes(3))) struct EMRTDEndToEndTests {
    static let scenario = """
        tags: [{id: passport, type: emrtd, uid: 08A1B2C3}]
        timeline: [{at: 0, place: passport}]
        """

    /// The refinement probes, in order: DESFire GET_VERSION wrapped (CLA 90), SELECT NDEF Tag
    /// Application (T4T), SELECT eMRTD (ICAO 9303-10) — the last only because neither other answered.
    static let probes = ["9060000000", "00A4040007D276000085010100", "00A4040C07A0000002471001"]

    @Test func identifiedReportedAndNeverRead() async throws {
        try await withCommandAgent(scenario: Self.scenario) { h in
            let scanned = await h.next { $0.topic == "nfc/e2e/event/scanned" && $0.object?["uid"] as? String == "08A1B2C3" }
            #expect(scanned.object?["cardType"] as? String == "ePassport (eMRTD)", "\(scanned.payloadString ?? "")")
            #expect(scanned.object?["ndef"] == nil, "\(scanned.payloadString ?? "")")

            try await h.request("dump", #"{"id":"d"}"#)
            let dump = await h.final("dump", id: "d")
            #expect(dump.errorCode == "unsupported", "\(dump.payloadString ?? "")")
            #expect(dump.errorMessage?.contains("BAC or PACE") == true, "\(dump.payloadString ?? "")")
            try await h.request("write", #"{"id":"w","records":[{"text":"no"}]}"#)
            #expect(await h.final("write", id: "w").errorCode == "unsupported")

            // Each identification sends the three probes and nothing else reaches the chip.
            let apdus = try #require(try h.simulator.control(["cmd": "dump", "id": "passport"])["apdus"] as? [String])
            #expect(!apdus.isEmpty && apdus.count % 3 == 0, "\(apdus)")
            for start in stride(from: 0, to: apdus.count, by: 3) {
                #expect(Array(apdus[start..<min(apdus.count, start + 3)]) == Self.probes, "\(apdus)")
            }
        }
    }
}
