import Foundation
import LibNFCReader
import NFCCore
import Testing
import TestSupport

/// A tag the PN532 finds by itself (InAutoPoll, UM0701-02 §7.3.13) goes to the scan as the chip left
/// it, selected; the search for more tags (deselect, then a list of the field) comes with the next
/// poll (issue 25: place → `scanned` no longer waits for it). Real libnfc against `nfcbridge-sim`.
@Suite(.serialized) struct AutoPollArrivalTests {
    static let scenario = """
        tags:
          - {id: sticker, type: ntag215, uid: 04A1B2C3D4E5F6}
          - {id: second, type: ntag213, uid: 04998877665544}
          - {id: card, type: type4, uid: 04C1C2C3C4C5C6, ndef: [{uri: 'https://example.com/a'}]}
        """

    /// Runs `body` with an auto-polling device (as the agent opens it) on a fresh simulator.
    func withAutoPollingReader(_ body: (SimulatorProcess, LibNFCDevice) async throws -> Void) async throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let device = LibNFCDevice(connstring: simulator.connstring, configuration: LibNFCConfiguration(autoPoll: true))
        _ = try await device.open()
        do {
            try await body(simulator, device)
        } catch {
            await device.close()
            throw error
        }
        await device.close()
    }

    /// PN532 commands by hex code that the chip received since `before`.
    func sent(_ simulator: SimulatorProcess, since before: [String: Int]) throws -> [String: Int] {
        var result: [String: Int] = [:]
        for (code, count) in before { result[code] = try simulator.commandCount(code) - count }
        return result
    }

    func counts(_ simulator: SimulatorProcess) throws -> [String: Int] {
        try Dictionary(uniqueKeysWithValues: ["60", "4A", "44", "40"].map { ($0, try simulator.commandCount($0)) })
    }

    @Test func theScanGoesFirstAndTheNextPollSearchesForMoreTags() async throws {
        try await withAutoPollingReader { simulator, device in
            try simulator.place("sticker")
            let before = try counts(simulator)
            let tags = try await device.poll(modulations: [.iso14443a], timeout: .seconds(10))
            #expect(tags.map(\.target.uid.hexString) == ["04A1B2C3D4E5F6"])
            let tag = try #require(tags.first)
            // The first exchange goes to the tag as InAutoPoll left it: no deselect, no select.
            #expect(Array(try await tag.transceive([0x30, 0x00]).prefix(3)) == [0x04, 0xA1, 0xB2])
            #expect(try sent(simulator, since: before) == ["60": 1, "4A": 0, "44": 0, "40": 1])
            #expect(await device.hasDeferredSearch())

            // The next poll is the search: one deselect and one list that finds no other tag.
            let middle = try counts(simulator)
            let again = try await device.poll(modulations: [.iso14443a], timeout: .seconds(1))
            #expect(again.map(\.target.uid.hexString) == ["04A1B2C3D4E5F6"])
            #expect(try sent(simulator, since: middle) == ["60": 0, "4A": 1, "44": 1, "40": 0])
            #expect(await !device.hasDeferredSearch())
            let found = try #require(again.first)
            #expect(try await device.isPresent(found))
            #expect(Array(try await found.transceive([0x30, 0x00]).prefix(3)) == [0x04, 0xA1, 0xB2])
        }
    }

    @Test func aTagLiftedDuringTheScanIsNotCountedByTheSearchAfterIt() async throws {
        try await withAutoPollingReader { simulator, device in
            try simulator.place("sticker")
            let tags = try await device.poll(modulations: [.iso14443a], timeout: .seconds(10))
            let tag = try #require(tags.first)
            try simulator.remove("sticker")
            // The scan's next exchange finds the tag gone ...
            await #expect(throws: NFCError.tagRemoved) { try await tag.transceive([0x30, 0x04]) }
            #expect(await device.hasDeferredSearch())
            // ... and the search that follows does not count it as seen, nor asks it again: one list.
            let before = try counts(simulator)
            let after = try await device.poll(modulations: [.iso14443a], timeout: .seconds(1))
            #expect(after.isEmpty)
            #expect(try sent(simulator, since: before) == ["60": 0, "4A": 1, "44": 0, "40": 0])
            #expect(await !device.hasDeferredSearch())
        }
    }

    @Test func aGarbledAnswerToTheSearchsSelectKeepsTheTag() async throws {
        try await withAutoPollingReader { simulator, device in
            try simulator.place("sticker")
            let tags = try await device.poll(modulations: [.iso14443a], timeout: .seconds(10))
            let tag = try #require(tags.first)
            await #expect(throws: NFCError.commandRefused(command: 0x30, nak: 0x0)) {
                try await tag.transceive([0x30, 0xF0], framing: .raw)
            }
            // The search selects the tag the NAK left IDLE; that answer is garbled on the line. A
            // garbled answer is an answer: the tag stays in the list.
            try simulator.expectOK(["cmd": "fault", "fault": "garble_next_answer", "code": "4A"])
            let after = try await device.poll(modulations: [.iso14443a], timeout: .seconds(1))
            #expect(after.map(\.target.uid.hexString) == ["04A1B2C3D4E5F6"])
            let found = try #require(after.first)
            #expect(Array(try await found.transceive([0x30, 0x00]).prefix(3)) == [0x04, 0xA1, 0xB2])
        }
    }

    @Test func aTagTheScanLeftIdleIsSelectedAgainByTheSearch() async throws {
        try await withAutoPollingReader { simulator, device in
            try simulator.place("sticker")
            try simulator.place("second")
            let tags = try await device.poll(modulations: [.iso14443a], timeout: .seconds(10))
            let tag = try #require(tags.first)
            // READ past the last page (NTAG213 2Ch, NTAG215 86h) is NAKed (NTAG213/215/216 datasheet
            // §10.2), which sends the tag to IDLE (MF0ULX1 §8.3); raw framing sees the NAK, and nothing
            // selects the tag after it: the scan leaves it unselected. An IDLE tag ignores HLTA, so a
            // deselect alone would leave it answering the list, which would end at it and miss the other.
            await #expect(throws: NFCError.commandRefused(command: 0x30, nak: 0x0)) {
                try await tag.transceive([0x30, 0xF0], framing: .raw)
            }
            let before = try counts(simulator)
            let after = try await device.poll(modulations: [.iso14443a], timeout: .seconds(1))
            #expect(Set(after.map(\.target.uid.hexString)) == ["04A1B2C3D4E5F6", "04998877665544"])
            #expect(after.first?.target.uid == tag.target.uid, "the tag found first leads the list")
            // A select by UID, a deselect of it, then the list: the other tag, its deselect, nothing more.
            #expect(try sent(simulator, since: before) == ["60": 0, "4A": 3, "44": 2, "40": 0])
            for found in after {
                #expect(Array(try await found.transceive([0x30, 0x00]).prefix(3)) == Array(found.target.uid.prefix(3)))
            }
        }
    }

    @Test func aSecondTagInTheFieldIsFoundByTheSearchAfterTheFirstScan() async throws {
        try await withAutoPollingReader { simulator, device in
            try simulator.place("sticker")
            try simulator.place("second")
            let first = try await device.poll(modulations: [.iso14443a], timeout: .seconds(10))
            #expect(first.count == 1)
            #expect(await device.hasDeferredSearch())
            let all = try await device.poll(modulations: [.iso14443a], timeout: .seconds(1))
            #expect(Set(all.map(\.target.uid.hexString)) == ["04A1B2C3D4E5F6", "04998877665544"])
            #expect(all.first?.target.uid == first.first?.target.uid, "the tag found first leads the list")
            for tag in all {
                #expect(Array(try await tag.transceive([0x30, 0x00]).prefix(3)) == Array(tag.target.uid.prefix(3)))
            }
        }
    }

    @Test func anISODEPTagTakesAPDUsAtOnceAndItsPresenceCheckSelectsItFirst() async throws {
        try await withAutoPollingReader { simulator, device in
            try simulator.place("card")
            let tags = try await device.poll(modulations: [.iso14443a], timeout: .seconds(10))
            let card = try #require(tags.first as? LibNFCTransport)
            #expect(!card.target.ats.isEmpty, "InAutoPoll type 20h: the chip sent RATS")
            let before = try counts(simulator)
            // SELECT the NDEF Tag Application (T4T v2.0 §5.4.2) with no select first.
            #expect(try await card.sendAPDU([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]).suffix(2) == [0x90, 0x00])
            #expect(try sent(simulator, since: before)["4A"] == 0)
            // libnfc did not see the chip's selection: the presence check selects the card itself.
            #expect(try await device.isPresent(card))
            #expect(try sent(simulator, since: before)["4A", default: 0] >= 1)
            try simulator.remove("card")
            #expect(try await !device.isPresent(card))
        }
    }
}
