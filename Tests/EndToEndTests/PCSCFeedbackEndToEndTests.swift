import Foundation
import Testing
import TestSupport

extension PCSCEndToEndTests {
    /// Feedback at an ACR122U (issue 22, item 3), through the real pcscd and vpcd: `request/feedback`
    /// with no card runs `feedback.exec` (the reader's LED needs SCardControl without a card, which vpcd
    /// does not carry: `reader` says `unsupported`); a tap lights the LED green with one beep
    /// (`feedback.on_scan`, Bi-color LED and Buzzer Control FF 00 40 seen by the simulator); with the card
    /// there `request/feedback` turns it red with two more beeps.
    @Test func feedbackDrivesTheACR122ULEDAndBuzzerAndTheExecHook() async throws {
        let reader = try #require(SimulatedReader.all.first { $0.model == "acr122u" })
        let pcsc = try PCSCCard(scenario: """
            tags:
              - {id: poster, type: ntag215, uid: 04A1B2C3D4E5F6, ndef: [{uri: 'https://example.com/feedback'}]}
            """, reader: reader)
        defer { pcsc.stop() }
        let folder = try TemporaryFolder()
        let marker = folder.path + "/feedback.txt"
        let script = try folder.write("feedback.sh", """
            #!/bin/sh
            echo "$NFCBRIDGE_FEEDBACK $NFCBRIDGE_LIGHT $NFCBRIDGE_BEEPS $NFCBRIDGE_UID" >> \(marker)

            """)
        #expect(chmod(script, 0o755) == 0)
        let config = "feedback: {on_scan: {light: green, beeps: 1}, exec: [\(script)], exec_timeout_ms: 5000}"
        try await withCommandAgent(scenario: "", reader: .device(pcsc.connstring), extraConfiguration: config) { h in
            try await h.request("feedback", #"{"id":"f0","light":"both","beeps":0}"#)
            let first = await h.final("feedback", id: "f0")
            #expect(first.status == "ok", "\(first.payloadString ?? "")")
            let data = first.object?["data"] as? [String: Any]
            #expect(data?["reader"] as? String == "unsupported" && data?["exec"] as? String == "ok", "\(first.payloadString ?? "")")
            #expect((try? String(contentsOfFile: marker, encoding: .utf8))?.contains("request both 0") == true)

            try pcsc.card.place("poster")
            _ = await h.next { $0.topic == "\(CommandAgentHarness.root)/event/scanned" }
            // The tap's LED / buzzer command reaches the simulator after the scan was published.
            let waited = try pcsc.card.control(["cmd": "reader", "wait_led_commands": 1, "timeout_ms": 20000])
            #expect(waited["ok"] as? Bool == true, "\(waited)")
            var panel = try pcsc.card.control(["cmd": "reader"])
            #expect(panel["green"] as? Bool == true && panel["red"] as? Bool == false, "\(panel)")
            #expect(panel["beeps"] as? Int == 1, "\(panel)")

            try await h.request("feedback", #"{"id":"f1","light":"red","beeps":2}"#)
            let second = await h.final("feedback", id: "f1")
            #expect(second.status == "ok", "\(second.payloadString ?? "")")
            #expect((second.object?["data"] as? [String: Any])?["reader"] as? String == "ok", "\(second.payloadString ?? "")")
            panel = try pcsc.card.control(["cmd": "reader"])
            #expect(panel["red"] as? Bool == true && panel["green"] as? Bool == false, "\(panel)")
            #expect(panel["beeps"] as? Int == 3, "\(panel)")

            try await h.request("feedback", #"{"id":"f2","light":"purple"}"#)
            let refused = await h.final("feedback", id: "f2")
            #expect(refused.status == "error" && refused.payloadString?.contains("light") == true, "\(refused.payloadString ?? "")")
        }
    }
}
