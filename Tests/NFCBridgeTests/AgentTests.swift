import Foundation
import NFCCore
import PN532Sim
import Testing

@testable import NFCBridge

@Suite(.timeLimit(.minutes(1))) struct AgentTests {
    @Test func scanThenRemovalWithEnvelopeAndState() async throws {
        let h = try AgentHarness()
        let tag = makeTag()
        h.device.place(tag)
        let (scannedAt, scanned) = await h.waitFor(.scanned)
        #expect(scanned["uid"] == "04A1B2C3D4E5F6")
        #expect(scanned["type"] == "scanned")
        #expect(scanned["reader"] == "test")
        #expect(scanned["seq"] == 1)
        #expect(scanned["buffered"] == false)
        #expect(scanned["random_uid"] == false)
        #expect(scanned["tag_id"] == "04A1B2C3D4E5F6")
        #expect(scanned["atqa"] == "0044")
        #expect(scanned["event_id"]?.stringValue?.count == 26)
        #expect(scanned["ts"] == .string(Timestamp.string(h.clock.now)))
        let (_, present) = await h.waitFor(.tag, where: { $0["present"] == true })
        #expect(present["uid"] == "04A1B2C3D4E5F6")

        await h.removeAndPassGrace(tag)
        let (removedAt, removed) = await h.waitFor(.removed)
        #expect(removedAt > scannedAt)
        #expect(removed["uid"] == "04A1B2C3D4E5F6")
        #expect(removed["seq"] == 2)
        #expect(removed["present_ms"] == 0)
        #expect(removed["cardType"] == scanned["cardType"], "the removal says what left (Home Assistant's event entity)")
        #expect(removed["random_uid"] == false)
        // Not present; `last` keeps the scan (Home Assistant's Last UID).
        let (_, absent) = await h.waitFor(.tag, after: removedAt, where: { $0["present"] == false })
        #expect(absent.objectValue?.keys.sorted() == ["last", "present"], "\(absent)")
        #expect(absent["last"]?["uid"] == "04A1B2C3D4E5F6")
        await h.stop()
    }

    @Test func aMissedCheckWithZeroGraceIsARemovalEvenWhenThePollFindsTheTagAtOnce() async throws {
        // The reader loop tells the tracker of the missed check before the poll that finds the tag
        // again (docs/mqtt.md "Presence"): with removal_grace_ms 0 that is removed + scanned.
        let h = try AgentHarness {
            $0.presence.removalGraceMilliseconds = 0
            $0.presence.minIntervalMilliseconds = 0
        }
        let tag = makeTag()
        h.device.place(tag)
        let (scannedAt, _) = await h.waitFor(.scanned)
        h.device.failPresenceChecks(of: tag, count: 1)
        let (removedAt, removed) = await h.waitFor(.removed, after: scannedAt)
        #expect(removed["uid"] == "04A1B2C3D4E5F6")
        let (_, again) = await h.waitFor(.scanned, after: removedAt)
        #expect(again["uid"] == "04A1B2C3D4E5F6")
        #expect(again["seq"] == 3)
        await h.stop()
    }

    @Test func retainedStateOnConnect() async throws {
        let h = try AgentHarness()
        let (_, reader) = await h.waitFor(.reader, where: { $0["state"] == "ok" })
        #expect(reader["device"] == "virtual:0")
        // `reader` and `tag` go out before `status` online (the reader may open before or after the connect).
        let statusTopic = h.topics.topic(.status)
        await h.publisher.waitForMessage { $0.topic == statusTopic }
        let status = h.publisher.published(to: statusTopic)
        #expect(status.first?.text == "online")
        #expect(status.first?.retain == true)
        let (_, info) = await h.waitFor(.info, where: { $0["reader"]?["firmware"] == "PN532 v1.6" })
        #expect(info["agent"]?["version"] == .string(NFCBridgeAgent.version))
        #expect(info["mqtt"]?["protocol"] == "5")
        #expect(info["commands"] == ["write", "format", "dump", "cancel", "write_blocks", "job", "feedback"])
        #expect(info["config"]?["state_dir"] == .string(h.directory.path))
        let (_, health) = await h.waitFor(.health)
        #expect(health["spool"]?["depth"] == 0)
        // Discovery once on connect, and once more when the reader became known after it (its
        // chip as the device's hw_version): never more.
        await h.publisher.waitForMessage { $0.topic == "homeassistant/tag/test/config" && $0.text.contains("PN532 v1.6") }
        // (Twice with it when the open and the connect's discovery cross: the same retained document.)
        let discovered = h.publisher.published(to: "homeassistant/tag/test/config")
        #expect(discovered.last?.text.contains(#""hw_version":"PN532 v1.6""#) == true)
        #expect(discovered.filter { !$0.text.contains("hw_version") }.count <= 1)
        #expect(discovered.count <= 2)
        #expect(h.publisher.subscriptions.contains("homeassistant/status"))
        let stateMessages = h.publisher.published.filter { !$0.topic.contains("/event/") }
        #expect(stateMessages.allSatisfy { $0.retain })
        await h.stop()
    }

    /// The `health` a connect publishes is made before the connect's own messages are queued: its
    /// `mqtt.unacked_s` tells how the link was when the connection came up, not whether the sender
    /// happened to be between one of those publishes and its acknowledgement (WireGoldenTests saw
    /// `0` instead of `null` under load).
    @Test func healthOnConnectIsNotAboutTheConnectsOwnMessages() async throws {
        let stalling = StallingPublisher()
        let h = try await stalling.settledAgent()
        let p = stalling.inner
        let before = p.published.count - 1
        p.setConnected(false)
        // Reconnected: the connect's first message (`reader`) hangs unacknowledged, while the
        // connect makes its `health` (the second report).
        stalling.stall()
        p.setConnected(true)
        let held = await stalling.held.wait { !$0.isEmpty }
        #expect(held == [h.topics.topic(.reader)])
        await h.agent.healthReports.wait { $0 >= 2 }
        stalling.release()
        let (_, health) = await p.waitForJSON(on: h.topics.topic(.health), after: before)
        #expect(health["mqtt"]?["reconnects"] == 1)
        #expect(health["mqtt"]?["unacked_s"] == .null)
        await h.stop()
    }

    @Test func scannedLeavesBeforeTheDump() async throws {
        let scanner = StubScanner(
            scanResult: { transport in
                TagScan.stub(
                    uid: transport.target.uid,
                    records: [.uri("https://www.home-assistant.io/tag/abc-123")])
            },
            dumpResult: { scan in .stub(of: scan, pages: [[0x04, 0xA1, 0xB2, 0xC3]]) })
        let h = try AgentHarness(scanner: scanner) { $0.dump.onScan = true }
        h.device.place(makeTag())
        let (dumpAt, dump) = await h.waitFor(.dump)
        let (scannedAt, scanned) = await h.waitFor(.scanned)
        #expect(scannedAt < dumpAt)
        #expect(scanned["tag_id"] == "abc-123")
        #expect(scanned["cardType"] == "NTAG215")
        #expect(dump["uid"] == "04A1B2C3D4E5F6")
        #expect(dump["dump"]?["pages"] == [["data": "04A1B2C3", "number": 0]])
        #expect(dump["seq"] == 2)
        await h.stop()
    }

    @Test func aFailedScanStillReportsTheTap() async throws {
        let scanner = StubScanner(scanResult: { _ in throw NFCError.timeout })
        let h = try AgentHarness(scanner: scanner)
        h.device.place(makeTag(uid: [0x08, 0x01, 0x02, 0x03]))
        let (errorAt, error) = await h.waitFor(.error)
        let (scannedAt, scanned) = await h.waitFor(.scanned)
        #expect(errorAt < scannedAt)
        #expect(error["error"]?["code"] == "timeout")
        #expect(error["op"] == "scan")
        #expect(error["uid"] == "08010203")
        #expect(scanned["uid"] == "08010203")
        #expect(scanned["random_uid"] == true)
        await h.stop()
    }

    @Test func repeatModeScansAgainEveryRearm() async throws {
        let h = try AgentHarness {
            $0.presence.mode = .repeat
            $0.presence.rearmMilliseconds = 1000
        }
        h.device.place(makeTag())
        let (first, _) = await h.waitFor(.scanned)
        h.clock.advance(milliseconds: 1000)
        let (_, again) = await h.waitFor(.scanned, after: first)
        #expect(again["seq"] == 2)
        #expect(h.agent.snapshot.scansTotal == 2)
        await h.stop()
    }

    @Test func readerAbsentAtStartIsReportedOnceAndPickedUpLater() async throws {
        let device = VirtualReaderDevice()
        device.unplug()
        let h = try AgentHarness(device: device)
        let (_, absent) = await h.waitFor(.reader, where: { $0["state"] == "absent" && $0["detail"] != "not opened yet" })
        #expect(absent["detail"]?.stringValue?.contains("unplugged") == true)
        let (errorAt, error) = await h.waitFor(.error)
        #expect(error["op"] == "open")
        #expect(error["error"]?["code"] == "reader_unavailable")
        device.replug()
        let (okAt, _) = await h.waitFor(.reader, where: { $0["state"] == "ok" })
        #expect(okAt > errorAt)
        // One error event for the whole outage, however many retries it took.
        #expect(h.publisher.published(to: h.topics.topic(.error)).count == 1)
        #expect(h.agent.snapshot.readerReopens == 0)
        h.device.place(makeTag())
        await h.waitFor(.scanned)
        await h.stop()
    }

    @Test func unplugMidSessionRemovesTagsAndReopens() async throws {
        let h = try AgentHarness()
        let tag = makeTag()
        h.device.place(tag)
        let (scannedAt, _) = await h.waitFor(.scanned)
        h.device.unplug()
        let (removedAt, removed) = await h.waitFor(.removed, after: scannedAt)
        #expect(removed["uid"] == "04A1B2C3D4E5F6")
        let (absentAt, _) = await h.waitFor(.reader, after: scannedAt, where: { $0["state"] == "absent" })
        let (_, error) = await h.waitFor(.error, after: scannedAt)
        #expect(error["op"] == "poll")
        #expect(error["error"]?["code"] == "reader_unavailable")
        // Still inside min_interval_ms (the clock has not moved): a reader outage is not a re-tap,
        // so the tag found again is reported, after the `removed` the outage reported.
        h.device.replug()
        await h.waitFor(.reader, after: absentAt, where: { $0["state"] == "ok" })
        // The tag never left the field: it is scanned again once the reader is back.
        let (_, again) = await h.waitFor(.scanned, after: removedAt)
        #expect(again["uid"] == "04A1B2C3D4E5F6")
        #expect(h.agent.snapshot.readerReopens == 1)
        await h.stop()
    }

    @Test func eventsWhileOfflineAreSpooledAndReplayedInOrder() async throws {
        let h = try AgentHarness()
        await h.waitFor(.reader, where: { $0["state"] == "ok" })
        h.publisher.setConnected(false)
        let tag = makeTag()
        h.device.place(tag)
        await h.agent.pipeline.waitUntil { $0.spooled >= 1 }
        await h.removeAndPassGrace(tag)
        await h.agent.pipeline.waitUntil { $0.spooled >= 2 }
        #expect(h.publisher.published(to: h.topics.topic(.scanned)).isEmpty)
        let before = h.publisher.published.count
        h.publisher.setConnected(true)
        let (scannedAt, scanned) = await h.waitFor(.scanned, after: before - 1)
        let (removedAt, removed) = await h.waitFor(.removed, after: before - 1)
        #expect(scannedAt < removedAt)
        #expect(scanned["buffered"] == true)
        #expect(removed["buffered"] == true)
        #expect(scanned["seq"] == 1)
        #expect(removed["seq"] == 2)
        await h.agent.pipeline.waitUntil { $0.replayed == 2 }
        #expect(h.agent.spool.isEmpty)
        // Back to live publishing (past min_interval_ms, so the re-tap is reported).
        h.clock.advance(milliseconds: 1000)
        h.device.place(tag)
        let (_, live) = await h.waitFor(.scanned, after: removedAt)
        #expect(live["buffered"] == false)
        #expect(live["seq"] == 3)
        await h.stop()
    }

    @Test func aFailedPublishGoesToTheSpool() async throws {
        let h = try AgentHarness()
        // Everything the connection published is out (health comes last, then the subscription).
        await h.waitFor(.reader, where: { $0["state"] == "ok" })
        await h.waitFor(.health)
        // …and discovery with the reader's hw_version (again, when the reader opened after the connect).
        await h.publisher.waitForMessage { $0.topic == "homeassistant/sensor/test_version/config" && $0.text.contains("PN532 v1.6") }
        await h.agent.pipeline.flush()
        h.publisher.failNextPublish(with: .refused(.connectionLost("lost")), topicSuffix: "/event/scanned")
        h.device.place(makeTag())
        await h.agent.pipeline.waitUntil { $0.spooled == 1 }
        // Still connected, so the spool is replayed right away, flagged as buffered.
        let (_, scanned) = await h.waitFor(.scanned)
        #expect(scanned["buffered"] == true)
        await h.stop()
    }

    @Test func spoolAndSequenceSurviveARestart() async throws {
        let directory = try await AgentHarness.directoryWithOneSpooledScan()
        let h = try AgentHarness(directory: directory, connected: true)
        let (_, replayed) = await h.waitFor(.scanned, where: { $0["buffered"] == true })
        #expect(replayed["seq"] == 1)
        // The first event of this run: the first run's tag, gone from the reader.
        let left = await h.leftTagRemoved()
        #expect(left["seq"] == 2)
        h.device.place(makeTag(uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]))
        let (_, live) = await h.waitFor(.scanned, where: { $0["uid"] == "04010203040506" })
        #expect(live["seq"] == 3)
        #expect(live["buffered"] == false)
        await h.stop()
    }

    @Test func homeAssistantBirthResendsDiscovery() async throws {
        let h = try AgentHarness()
        let discoveryTopic = "homeassistant/event/test_nfc/config"
        // Once the reader is known (its chip is the device's hw_version), nothing else re-sends discovery.
        let (firstAt, _) = await h.publisher.waitForMessage { $0.topic == discoveryTopic && $0.text.contains("PN532 v1.6") }
        let before = h.publisher.published(to: discoveryTopic).count
        h.publisher.deliver(InboundMessage(topic: "homeassistant/status", payload: Array("online".utf8)))
        await h.publisher.waitForMessage(after: firstAt) { $0.topic == discoveryTopic }
        h.publisher.deliver(InboundMessage(topic: "homeassistant/status", payload: Array("offline".utf8)))
        await h.stop()
        #expect(h.publisher.published(to: discoveryTopic).count == before + 1)
    }

    @Test func discoveryCanBeTurnedOff() async throws {
        let h = try AgentHarness { $0.homeAssistant.enabled = false }
        await h.waitFor(.health)
        await h.stop()
        #expect(!h.publisher.published.contains { $0.topic.hasPrefix("homeassistant/") })
        #expect(!h.publisher.subscriptions.contains("homeassistant/status"))
    }

    @Test func stopEndsABlockedPollAndCleansUp() async throws {
        // A one-minute poll timeout: only abort/cancellation can end the poll.
        let h = try AgentHarness(interval: .seconds(60))
        await h.waitFor(.reader, where: { $0["state"] == "ok" })
        await h.stop()
        let last = try #require(h.publisher.published.last)
        #expect(last.topic == h.topics.topic(.status))
        #expect(last.text == "offline")
        #expect(last.retain)
        let tag = try #require(h.publisher.published(to: h.topics.topic(.tag)).last)
        #expect(tag.json == ["present": false])
        #expect(!h.device.isOpen)
    }

    @Test func shutdownLeavesAPresentTagAsItWasWithoutARemovedEvent() async throws {
        let h = try AgentHarness()
        // The connect's retained state first (`health` is its last message): its `tag` would
        // otherwise land after the count below.
        await h.waitFor(.health)
        h.device.place(makeTag())
        await h.waitFor(.tag, where: { $0["present"] == true })
        let tagsBefore = h.publisher.published(to: h.topics.topic(.tag)).count
        await h.stop()
        #expect(h.publisher.published(to: h.topics.topic(.removed)).isEmpty)
        // The tag is still on the reader: `tag` keeps saying so, and `status` offline (the last
        // message) makes Home Assistant's entities unavailable, never `off` first (issue 22, D).
        let tags = h.publisher.published(to: h.topics.topic(.tag))
        #expect(tags.count == tagsBefore, "no tag update on a clean stop")
        #expect(tags.last?.json?["present"] == true)
        #expect(h.publisher.published.last?.text == "offline")
    }

    @Test func logsNeverContainThePassword() async throws {
        let h = try AgentHarness { $0.mqtt.password = Secret("hunter2-secret") }
        await h.waitFor(.info)
        await h.stop()
        #expect(!h.logs.recorded.isEmpty)
        #expect(!h.logs.recorded.joined().contains("hunter2"))
        #expect(!h.publisher.published.contains { $0.text.contains("hunter2") })
    }
}
