import Foundation
import LibNFCReader
import MQTTClient
import NFCCore
import Testing
import TestSupport

/// Issue 20 ("One garbled frame makes a wrong scan final"): `nfcbridge run` through real libnfc to
/// `nfcbridge-sim --drop-one-in 500` (1 byte in 500 dropped on the pty, both ways, seeded so every
/// run drops the same bytes of the same traffic) and an NTAG215 tapped again and again. The final scan
/// of a tap — the last `event/scanned` of the tag before its `removed` — is an NTAG215 with its URI.
/// The 150 taps of the issue take longer than a test should: `bench/lossy.py` runs them.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AgentE2ELossyLinkTests {
    static let taps = 30
    static let uri = "https://example.com/lossy"
    static let scenario = "tags:\n  - {id: t, type: ntag215, uid: 04A1B2C3D4E5F6, ndef: [{uri: \(uri)}]}\n"

    @Test func oneByteInFiveHundredDroppedMakesNoWrongFinalScan() async throws {
        let options = AgentRun.Options(
            scenario: Self.scenario,
            simulatorArguments: ["--drop-one-in", "500", "--drop-seed", "20"], presence: "{removal_grace_ms: 300, min_interval_ms: 0}")
        try await withAgentRun(options) { run in
            let (simulator, watcher) = (run.simulator, run.watcher)
            await watcher.next("reader") { $0["state"] as? String == "ok" }

            var wrongFinal: [String] = []
            for tap in 1...Self.taps {
                let before = watcher.lastIndex
                try simulator.place("t")
                let (scannedAt, _, _) = await watcher.next("event/scanned", after: before)
                try simulator.remove("t")
                // The tag's `removed` after the last `scanned`: a removal while it stayed brings a new arrival.
                var (removedAt, _, _) = await watcher.next("event/removed", after: scannedAt)
                while let (later, _) = await watcher.seen.next(after: removedAt, timeout: .zero, where: { $0.topic.hasSuffix("/event/scanned") }) {
                    (removedAt, _, _) = await watcher.next("event/removed", after: later)
                }
                let scans = watcher.seen.received[(before + 1)...removedAt].filter { $0.topic.hasSuffix("/event/scanned") }.map(\.json)
                guard let final = scans.last else { continue }
                let text = String(decoding: try JSONSerialization.data(withJSONObject: final), as: UTF8.self)
                    .replacingOccurrences(of: "\\/", with: "/")
                if final["cardType"] as? String != "NTAG215" || !text.contains(Self.uri) { wrongFinal.append("tap \(tap): \(text)") }
            }
            #expect(wrongFinal.isEmpty, "\(wrongFinal.count) wrong final scans: \(wrongFinal)")
        }
    }

    /// Most `reader_unresponsive` episodes of the 150-tap lossy run: a FeliCa poll that lost its LEN
    /// byte leaves the chip's framer on the `00 FF FF 01` inside it, waiting for 256 bytes, so the
    /// next commands vanish and both GetFirmwareVersion probes time out (the agent then reopened the
    /// reader, with back-off, until its opens had sent those bytes). A line flush ends the phantom
    /// frame: the poll fails as a transient error, the reader stays open and the next poll finds a tag.
    @Test func aChipLeftWaitingByAMisframedCommandIsResynchronisedNotReopened() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.expectOK(["cmd": "fault", "fault": "misframe_next_command"])
            do {
                #expect(try await device.poll(modulations: [.iso14443a], timeout: .milliseconds(300)).isEmpty)
            } catch let error as NFCError {
                #expect(error.code == "rf_error", "\(error)")
            }
            try simulator.place("t")
            #expect(try await device.poll(modulations: [.iso14443a], timeout: .seconds(2)).count == 1)
        }
    }

    /// The taps without a scan of the 150-tap lossy run: a poll found the tag, deselected it (HALT) to
    /// look for a second one, and the answer to that deselect (or to the next select) was garbled; the
    /// poll failed as a transient error and dropped the tag it had found, which, halted, no later poll
    /// found until it left. The poll now returns the tag, and the first exchange selects it again.
    @Test func aTagFoundBeforeAGarbledDeselectIsReturnedNotLostHalted() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("t")
            try simulator.expectOK(["cmd": "fault", "fault": "garble_next_answer", "code": "44"])
            let tags = try await device.poll(modulations: [.iso14443a], timeout: .seconds(2))
            #expect(tags.map(\.target.uid.hexString) == ["04A1B2C3D4E5F6"])
            let page = try await #require(tags.first).transceive([0x30, 0x00], framing: .standard)
            #expect(page.count == 16)
        }
    }

    /// The removals of a tag that stayed in the 150-tap lossy run: the answer to the presence check's
    /// READ 00 lost its last byte on the line, libnfc waited 350 ms for it, tried the READ once more
    /// (`pn53x_ISO14443A_MFUL_is_present`) and met the same, and the check took the host-side
    /// `NFC_ETIMEOUT` for the tag's silence: the tag "returned" after ~750 ms, longer than
    /// `removal_grace_ms`, and was reported removed and scanned again. A silent tag is the chip's own
    /// timeout (status 01h, `NFC_ETGRELEASED`); a chip that answers its probe after a host-side timeout
    /// lost a frame on the line.
    @Test func aPresenceCheckWhoseAnswersAreCutOnTheLineIsNotAMissedCheck() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("t")
            let tag = try #require(try await device.poll(modulations: [.iso14443a], timeout: .seconds(2), limit: 1).first)
            #expect(try await tag.transceive([0x30, 0x00], framing: .standard).count == 16)
            #expect(try await device.checkPresence(tag) == .present)
            try simulator.expectOK(["cmd": "fault", "fault": "cut_next_answers", "code": "40", "count": 2])
            #expect(try await device.checkPresence(tag) == .present)
            #expect(try await device.checkPresence(tag) == .present)
        }
    }

    /// The SIGSEGV of the 150-tap lossy run (on the libnfc thread, at the reopen after a
    /// `reader_unavailable`): the answer to the GetFirmwareVersion `nfc_open` sends was lost, libnfc
    /// 1.8.0 returned the device anyway, half-initialised with no modulation list, and the agent's
    /// `nfc_device_get_information_about` read through the NULL list. Here the simulator garbles
    /// that one answer at the agent's first open (the same `LibNFCSession.open` as every reopen):
    /// the agent opens again, reports the reader `ok` and scans a tap.
    @Test func aGetFirmwareVersionAnswerLostAtOpenDoesNotCrashTheAgent() async throws {
        try await withAgentRun(.init(scenario: Self.scenario, startsAgent: false)) { run in
            let (simulator, watcher) = (run.simulator, run.watcher)
            try simulator.expectOK(["cmd": "fault", "fault": "garble_next_answer", "code": "02"])
            let agent = try run.startAgent()
            let (okAt, _, _) = await watcher.next("reader") { $0["state"] as? String == "ok" }
            try #require(agent.isRunning, "the agent died at open: \(agent.errorOutput)")
            // The garbled open and the one after it: two GetFirmwareVersion commands at least.
            #expect(try simulator.commandCount("02") >= 2)
            try simulator.place("t")
            let (_, scanned, _) = await watcher.next("event/scanned", after: okAt)
            #expect(scanned["cardType"] as? String == "NTAG215", "\(scanned)")
            agent.expectCleanStop()
        }
    }
}
