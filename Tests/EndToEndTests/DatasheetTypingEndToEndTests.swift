import Foundation
import NFCCore
import Testing
import TestSupport

/// Tags typed as their datasheets say, not as one shortcut of the tables guesses, through the built
/// CLI, real libnfc and `nfcbridge-sim` on a pty (issue 23, target 2):
/// - ATQA 0344h / SAK 20h is a DESFire's answer (MF3ICD(Q)81 §8.3), but other ISO-DEP cards answer it
///   too: a Type 4 tag that is no DESFire (it answers GET_VERSION with an ISO status word, not 91 xx)
///   is typed and dumped as a Type 4 tag, not "MIFARE DESFire" with `unexpected_status_word` 6D00;
/// - an Ultralight C whose AUTH0 protects page 08h on (MF0ICU2 §7.5.8: READ 2Bh and 29h refused) is an
///   Ultralight C (its AUTHENTICATE answers AFh), not a 16-page Ultralight.
@Suite(.serialized) struct DatasheetTypingEndToEndTests {
    static func scenario(_ tag: String) -> String {
        """
        tags:
          - \(tag)
        timeline: [{at: 0, place: tag}]
        """
    }

    @Test func aType4TagAnsweringLikeADESFireIsAType4Tag() throws {
        let simulator = try SimulatorProcess(
            scenario: Self.scenario("{id: tag, type: type4, atqa: '0344', ndef: [{uri: 'https://example.com/t4'}]}"))
        defer { simulator.stop() }
        let scan = try runNFCBridge(["scan", "--device", simulator.connstring, "--once", "--json", "--timeout", "20"])
        #expect(scan.status == 0, "\(scan.err)")
        let report = try #require(jsonObject(scan.out.trimmingCharacters(in: .newlines)), "\(scan.out)")
        #expect(report["atqa"] as? String == "0344")
        #expect(report["sak"] as? String == "20")
        #expect(report["cardType"] as? String == "NFC Forum Type 4 Tag", "\(report)")
        let dump = try runNFCBridge(["dump", "--device", simulator.connstring, "--compact", "--timeout", "20"])
        #expect(dump.status == 0, "\(dump.err)")
        let json = try #require(jsonObject(dump.out.trimmingCharacters(in: .newlines)), "\(dump.out)")
        #expect(json["cardType"] as? String == "NFC Forum Type 4 Tag")
        #expect(((json["files"] as? [Any]) ?? []).isEmpty == false, "\(json)")
        #expect((json["ndefHex"] as? String)?.isEmpty == false, "\(json)")
    }

    @Test func anUltralightCProtectedFromPage8IsAnUltralightC() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario("{id: tag, type: ultralight_c, auth0: 8}"))
        defer { simulator.stop() }
        let scan = try runNFCBridge(["scan", "--device", simulator.connstring, "--once", "--json", "--timeout", "20"])
        #expect(scan.status == 0, "\(scan.err)")
        let report = try #require(jsonObject(scan.out.trimmingCharacters(in: .newlines)), "\(scan.out)")
        #expect(report["cardType"] as? String == "MIFARE Ultralight C", "\(report)")
        let flipper = try runNFCBridge(["dump", "--device", simulator.connstring, "--format", "flipper", "--timeout", "20"])
        #expect(flipper.status == 0, "\(flipper.err)")
        #expect(flipper.out.contains("Pages total: 48\n"), "\(flipper.out)")
    }
}
