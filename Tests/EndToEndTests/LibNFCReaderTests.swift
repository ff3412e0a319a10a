import Foundation
import LibNFCReader
import NFCCore
import Testing
import TestSupport

/// The libnfc backend end to end: real libnfc (`pn532_uart`) against `nfcbridge-sim` on a pty.
@Suite(.serialized) struct LibNFCReaderTests {
    static let scenario = """
        tags:
          - {id: sticker, type: ntag215, uid: 04A1B2C3D4E5F6}
          - {id: second, type: ntag213, uid: 04998877665544}
          - {id: locked, type: ntag213, uid: 04112233445566, password: 11223344, pack: AABB, auth0: 16, read_protected: true}
          - {id: badge, type: classic_1k, uid: DEADBEEF}
          - {id: ulc, type: ultralight_c, uid: 04C0FFEE112233}
          - {id: card, type: type4, uid: 04C1C2C3C4C5C6}
          - {id: ticket, type: felica_lite_s, idm: 012E4CD1A1B2C3D4}
        """

    static let allModulations: [Modulation] = [.iso14443a, .iso14443b, .felica212, .felica424]

    // MARK: Device

    @Test func openReportsTheChipAndTheConnstring() async throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let device = LibNFCDevice(connstring: simulator.connstring)
        let info = try await device.open()
        #expect(info.firmware == "PN532 v1.6")
        #expect(info.connstring == simulator.connstring)
        #expect(try await device.open() == info, "a second open returns the open device")
        await device.close()
    }

    @Test func anEmptyFieldGivesNoTagWhenTheTimeoutRunsOut() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            let tags = try await device.poll(modulations: Self.allModulations, timeout: .milliseconds(300))
            #expect(tags.isEmpty)
            // Every modulation was tried: 106A, 212F, 424F and B each cost one InListPassiveTarget.
            #expect(try simulator.commandCount("4A") >= 4)
        }
    }

    @Test func abortEndsAPollThatWaitsOnAnEmptyField() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            let poll = Task { try await device.poll(modulations: Self.allModulations, timeout: .seconds(600)) }
            try await simulator.waitForCommand("4A", count: 8)
            device.abort()
            #expect(try await poll.value.isEmpty)
            // The device still works: the next poll finds a tag.
            try simulator.place("sticker")
            #expect(try await pollTags(device).first?.target.uid == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
        }
    }

    @Test func anAbortBeforeThePollEndsTheNextPoll() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("sticker")
            device.abort()
            #expect(try await device.poll(modulations: Self.allModulations, timeout: .seconds(600)).isEmpty)
            #expect(try await pollTags(device).count == 1)
        }
    }

    @Test func cancellingThePollingTaskEndsThePoll() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            let poll = Task { try await device.poll(modulations: Self.allModulations, timeout: .seconds(600)) }
            try await simulator.waitForCommand("4A", count: 8)
            poll.cancel()
            await #expect(throws: NFCError.userCanceled) { try await poll.value }
        }
    }

    @Test func aReaderThatGoesAwayEndsThePollWithReaderUnavailable() async throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let device = LibNFCDevice(connstring: simulator.connstring)
        _ = try await device.open()
        let poll = Task { try await device.poll(modulations: Self.allModulations, timeout: .seconds(600)) }
        try await simulator.waitForCommand("4A", count: 4)
        simulator.stop()
        do {
            _ = try await poll.value
            Issue.record("the poll went on without a reader")
        } catch let error as NFCError {
            #expect(error.code == "reader_unavailable")
            #expect(error.message.contains(simulator.connstring), "\(error.message)")
        }
        await device.close()
        await #expect(throws: NFCError.self) { try await device.open() }
    }

    // MARK: Type 2

    @Test func type2ReadRawGetVersionAndWrite() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("sticker")
            let tag = try #require(try await pollTags(device).first)
            #expect(tag.target.atqa == [0x00, 0x44])
            #expect(tag.target.sak == 0x00)
            let page0 = try await tag.transceive([0x30, 0x00])
            #expect(Array(page0.prefix(3)) == [0x04, 0xA1, 0xB2])
            #expect(page0.count == 16)
            // GET_VERSION in raw mode: CRC_A added and checked here (NTAG213/215/216 §10.1).
            #expect(try await tag.transceive([0x60], framing: .raw) == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
            // WRITE's 4-bit ACK, in easy framing.
            #expect(try await tag.transceive([0xA2, 0x10, 0xCA, 0xFE, 0xBA, 0xBE]) == [0x0A])
            #expect(Array(try simulator.memory(of: "sticker")[64..<68]) == [0xCA, 0xFE, 0xBA, 0xBE])
            #expect(Array(try await tag.transceive([0x30, 0x10]).prefix(4)) == [0xCA, 0xFE, 0xBA, 0xBE])
        }
    }

    @Test func aRawNAKCarriesItsValueAndTheTagIsUsableAfterReselect() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("locked")
            let tag = try #require(try await pollTags(device).first)
            do {
                _ = try await tag.transceive([0x1B, 0x00, 0x00, 0x00, 0x00], framing: .raw)
                Issue.record("PWD_AUTH with a wrong password was accepted")
            } catch let NFCError.commandRefused(command, nak) {
                #expect(command == 0x1B)
                #expect(nak != nil, "a raw NAK is visible")
            }
            try await tag.reselect()
            #expect(try await tag.transceive([0x1B, 0x11, 0x22, 0x33, 0x44], framing: .raw) == [0xAA, 0xBB])
            #expect(try await tag.transceive([0x30, 0x10]).count == 16, "authenticated: page 16 is readable")
        }
    }

    @Test func aProtectedPageIsRefusedInEasyFramingAndTheTagStaysThere() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("locked")
            let tag = try #require(try await pollTags(device).first)
            await #expect(throws: NFCError.commandRefused(command: 0x30, nak: nil)) {
                try await tag.transceive([0x30, 0x10])
            }
            try await tag.reselect()
            #expect(try await tag.transceive([0x30, 0x04]).count == 16)
            #expect(try await device.isPresent(tag))
        }
    }

    @Test func ultralightCThreeDESAuthenticationGoesThroughRawFrames() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("ulc")
            let tag = try #require(try await pollTags(device).first)
            // 1A 00 → AF ek(RndB), AF ek(RndA‖RndB') → 00 ek(RndA'): raw frames with software CRC.
            try await UltralightCAuthentication.authenticate(key: UltralightCAuthentication.factoryKey, transport: tag)
            var wrongKey = UltralightCAuthentication.factoryKey
            wrongKey[0] ^= 0xFF
            try await tag.reselect()
            await #expect(throws: NFCError.authenticationFailed) {
                try await UltralightCAuthentication.authenticate(key: wrongKey, transport: tag)
            }
            try await tag.reselect()
            #expect(try await tag.transceive([0x30, 0x00]).count == 16)
        }
    }

    // MARK: Other families

    @Test func classicAuthenticationThenRead() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("badge")
            let tag = try #require(try await pollTags(device).first as? any ClassicAuthenticating)
            #expect(tag.target.sak == 0x08)
            await #expect(throws: NFCError.authenticationFailed) {
                try await tag.authenticate(block: 4, keyType: .a, key: [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5])
            }
            // After a failed authentication the tag halts; the next call selects it again itself.
            try await tag.authenticate(block: 4, keyType: .a, key: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
            #expect(try await tag.transceive([0x30, 0x07]).count == 16, "sector trailer of sector 1")
            #expect(try await device.isPresent(tag))
        }
    }

    @Test func type4APDUsOverISODEP() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("card")
            let tag = try #require(try await pollTags(device).first as? any APDUTransport)
            #expect(tag.target.isISODEP)
            #expect(!tag.target.ats.isEmpty)
            // SELECT the NDEF application (NFC Forum Type 4 Tag §5.4.2).
            let answer = try await tag.sendAPDU([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])
            #expect(Array(answer.suffix(2)) == [0x90, 0x00])
            #expect(try await device.isPresent(tag))
        }
    }

    @Test func felicaFramesGetTheirLengthByte() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("ticket")
            let tag = try #require(try await pollTags(device).first)
            let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0xD1, 0xA1, 0xB2, 0xC3, 0xD4]
            #expect(tag.target.uid == idm)
            #expect(tag.target.systemCode == [0x88, 0xB4])
            // Read Without Encryption, service 000B, block 0 (FeliCa Lite-S user's manual §4.3).
            let answer = try await tag.transceive([0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00])
            #expect(Array(answer.prefix(9)) == [0x07] + idm)
            #expect(answer.count == 12 + 16, "response code, IDm, status flags, block count, one block")
            #expect(try await device.isPresent(tag))
        }
    }

    // MARK: Frames of the select path

    /// Counts of PN532 commands by hex code, as the simulator saw them so far.
    func counts(_ simulator: SimulatorProcess, _ codes: [String]) throws -> [String: Int] {
        try Dictionary(uniqueKeysWithValues: codes.map { ($0, try simulator.commandCount($0)) })
    }

    @Test func aPollForOneTagSelectsOnceAndTheTagStaysSelected() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("sticker")
            let codes = ["4A", "44", "32", "06", "08", "40", "42"]
            let before = try counts(simulator, codes)
            let tag = try #require(try await device.poll(modulations: Self.allModulations, timeout: .seconds(10), limit: 1).first)
            // GET_VERSION raw (CRC off, InCommunicateThru), then a READ, which stays raw: a Type 2
            // tag answers it alike, and switching back would cost a WriteRegister.
            let version = try await tag.transceive([0x60], framing: .raw)
            #expect(version.prefix(3) == [0x00, 0x04, 0x04])
            #expect(try await tag.transceive([0x30, 0x00]).prefix(3) == [0x04, 0xA1, 0xB2])
            let after = try counts(simulator, codes)
            let sent = Dictionary(uniqueKeysWithValues: codes.map { ($0, after[$0, default: 0] - before[$0, default: 0]) })
            // One InListPassiveTarget and nothing else to find and select it: no deselect, no select
            // by UID, no second RFConfiguration; one WriteRegister switches the CRC off, with no
            // ReadRegister first, and nothing switches it back before the next poll.
            #expect(sent == ["4A": 1, "44": 0, "32": 0, "06": 0, "08": 1, "42": 2, "40": 0])
            // The next poll goes back to easy framing (CRC on): one WriteRegister, and the READ
            // after it goes through InDataExchange again.
            let again = try #require(try await device.poll(modulations: Self.allModulations, timeout: .seconds(10), limit: 1).first)
            let beforeRead = try counts(simulator, codes)
            #expect(try await again.transceive([0x30, 0x00]).prefix(3) == [0x04, 0xA1, 0xB2])
            let read = try counts(simulator, codes)
            #expect(read["40", default: 0] - beforeRead["40", default: 0] == 1)
            #expect(read["08", default: 0] - after["08", default: 0] == 1)
        }
    }

    @Test func aPollForEveryTagLooksForASecondTagWithOneDeselectAndOneSelect() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("sticker")
            let before = try counts(simulator, ["4A", "44", "32"])
            let tags = try await pollTags(device)
            #expect(tags.map(\.target.uid.hexString) == ["04A1B2C3D4E5F6"])
            _ = try await tags[0].transceive([0x30, 0x00])
            let after = try counts(simulator, ["4A", "44", "32"])
            // Select, deselect, a select that finds no other tag, and the select by UID before the
            // READ (the deselect halted it); no RFConfiguration.
            #expect(after["4A"]! - before["4A"]! == 3)
            #expect(after["44"]! - before["44"]! == 1)
            #expect(after["32"]! - before["32"]! == 0)
        }
    }

    // MARK: Presence, removal, several tags

    @Test func aRemovedTagIsNotPresentAndItsCommandsSayTagRemoved() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            for id in ["sticker", "badge", "card", "ticket"] {
                try simulator.place(id)
                let tag = try #require(try await pollTags(device).first)
                #expect(try await device.isPresent(tag), "\(id)")
                try simulator.remove(id)
                #expect(try await !device.isPresent(tag), "\(id)")
                await #expect(throws: NFCError.tagRemoved, "\(id)") { try await tag.transceive([0x30, 0x00]) }
            }
        }
    }

    @Test func twoTagsInTheFieldAreBothReturned() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("sticker")
            try simulator.place("second")
            let tags = try await pollTags(device, count: 2)
            #expect(Set(tags.map(\.target.uid.hexString)) == ["04A1B2C3D4E5F6", "04998877665544"])
            // Each transport talks to its own tag, in any order.
            for tag in tags + tags.reversed() {
                #expect(Array(try await tag.transceive([0x30, 0x00]).prefix(3)) == Array(tag.target.uid.prefix(3)))
            }
        }
    }

    @Test func transportsOfAClosedDeviceFail() async throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario + "\ntimeline: [{at: 0, place: sticker}]")
        defer { simulator.stop() }
        let device = LibNFCDevice(connstring: simulator.connstring)
        _ = try await device.open()
        let tag = try #require(try await pollTags(device).first)
        await device.close()
        await #expect(throws: NFCError.self) { try await tag.transceive([0x30, 0x00]) }
        // Opened again, the old transport belongs to an earlier session.
        _ = try await device.open()
        await #expect(throws: NFCError.tagRemoved) { try await tag.transceive([0x30, 0x00]) }
        #expect(try await !device.isPresent(tag))
        await device.close()
    }
}

extension LibNFCReaderTests {
    /// libnfc polls the technology table's Jewel row (`NMT_JEWEL`: InListPassiveTarget BrTy 04h): the
    /// simulator has no Jewel tags, so the poll ends empty, without an error, when its timeout runs out.
    @Test func aJewelPollEndsEmptyOnAFieldWithoutJewelTags() async throws {
        try await withSimulatedReader(scenario: Self.scenario) { simulator, device in
            try simulator.place("sticker")
            let tags = try await device.poll(modulations: [.jewel], timeout: .milliseconds(300))
            #expect(tags.isEmpty, "an NTAG does not answer a Jewel poll")
            #expect(try simulator.commandCount("4A") >= 1)
        }
    }
}
