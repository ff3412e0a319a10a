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

    /// `feedback.on_job` (issue 22, item 3): an encode job's tag results light the ACR122U's LED and
    /// sound its buzzer (seen by the simulator): a tag encoded green with one beep, a tag refused
    /// (`not_blank`) red with three more.
    @Test func jobResultsDriveTheACR122ULEDAndBuzzer() async throws {
        let reader = try #require(SimulatedReader.all.first { $0.model == "acr122u" })
        let pcsc = try PCSCCard(scenario: """
            tags:
              - {id: label, type: ntag213, uid: 04C1C2C3C4C5C6}
              - {id: poster, type: ntag215, uid: 04A1B2C3D4E5F6, ndef: [{uri: 'https://example.com/feedback'}]}
            """, reader: reader)
        defer { pcsc.stop() }
        let config = "feedback: {on_job: {ok: {light: green, beeps: 1}, failed: {light: both}, refused: {light: red, beeps: 3}}}"
        try await withCommandAgent(scenario: "", reader: .device(pcsc.connstring), extraConfiguration: config) { h in
            try await h.request("job", #"""
                {"id":"j1","action":"start","job":"roll","template":[{"uri":"https://example.com/t/{serial}"}],
                 "serials":{"start":1,"count":2}}
                """#)
            #expect(await h.final("job", id: "j1").status == "ok")
            let jobTopic = "\(CommandAgentHarness.root)/event/job"
            try pcsc.card.place("label")
            let encoded = await h.next { $0.topic == jobTopic }
            #expect(encoded.object?["result"] as? String == "ok", "\(encoded.payloadString ?? "")")
            var waited = try pcsc.card.control(["cmd": "reader", "wait_led_commands": 1, "timeout_ms": 20000])
            #expect(waited["ok"] as? Bool == true, "\(waited)")
            var panel = try pcsc.card.control(["cmd": "reader"])
            #expect(panel["green"] as? Bool == true && panel["red"] as? Bool == false && panel["beeps"] as? Int == 1, "\(panel)")

            // The agent must see the label leave before the poster comes: pcscd notices a card change
            // only at its next status poll, and a poster placed before then would be read through the
            // label's card handle until pcscd resets it (tag_removed).
            try pcsc.card.remove("label")
            _ = await h.next { $0.topic == "\(CommandAgentHarness.root)/event/removed" }
            try pcsc.card.place("poster")
            let refused = await h.next { $0.topic == jobTopic }
            #expect(refused.object?["result"] as? String == "refused", "\(refused.payloadString ?? "")")
            #expect(refused.object?["code"] as? String == "not_blank", "\(refused.payloadString ?? "")")
            waited = try pcsc.card.control(["cmd": "reader", "wait_led_commands": 2, "timeout_ms": 20000])
            #expect(waited["ok"] as? Bool == true, "\(waited)")
            panel = try pcsc.card.control(["cmd": "reader"])
            #expect(panel["red"] as? Bool == true && panel["green"] as? Bool == false && panel["beeps"] as? Int == 4, "\(panel)")
            #expect(panel["led_commands"] as? Int == 2, "one signal per tag result, none for the scans: \(panel)")
        }
    }

    /// `feedback.on_trust` (issue 22, item 3): a tap's trust verdict picks the signal, in place of
    /// `feedback.on_scan`. With `access.signature: require` the simulator's tag, whose originality
    /// signature no known key verifies, is `untrusted`: red and two beeps, not on_scan's orange.
    @Test func theTrustVerdictDrivesTheACR122ULEDAndBuzzerInPlaceOfOnScan() async throws {
        let reader = try #require(SimulatedReader.all.first { $0.model == "acr122u" })
        let pcsc = try PCSCCard(scenario: """
            tags:
              - {id: poster, type: ntag215, uid: 04A1B2C3D4E5F6, ndef: [{uri: 'https://example.com/feedback'}]}
            """, reader: reader)
        defer { pcsc.stop() }
        let config = """
            access: {signature: require}
            feedback: {on_scan: {light: both}, on_trust: {trusted: {light: green, beeps: 1}, untrusted: {light: red, beeps: 2}}}
            """
        try await withCommandAgent(scenario: "", reader: .device(pcsc.connstring), extraConfiguration: config) { h in
            try pcsc.card.place("poster")
            let scanned = await h.next { $0.topic == "\(CommandAgentHarness.root)/event/scanned" }
            let trust = try #require(scanned.object?["trust"] as? [String: Any], "\(scanned.payloadString ?? "")")
            let verdict = trust["verdict"] as? String
            #expect(verdict == "untrusted", "\(trust)")
            let waited = try pcsc.card.control(["cmd": "reader", "wait_led_commands": 1, "timeout_ms": 20000])
            #expect(waited["ok"] as? Bool == true, "\(waited)")
            let panel = try pcsc.card.control(["cmd": "reader"])
            #expect(panel["red"] as? Bool == true && panel["green"] as? Bool == false && panel["beeps"] as? Int == 2, "\(panel)")
        }
    }
}
