import NFCCore
import Testing
@testable import PN532Sim

/// The Gen1a unlock on the air (scenario `magic: gen1a`): HLTA, then the 7-bit 40h and the 8-bit 43h
/// without CRC, each ACKed by a magic card and unanswered by a genuine one (libnfc `nfc-mfsetuid`).
@Suite struct Gen1aUnlockTests {
    private func chip(with tag: any VirtualTag) -> PN532Chip {
        let field = RFField()
        field.place(tag, id: "t")
        let chip = PN532Chip(field: field, timing: PN532Timing())
        _ = chip.handle([0x12, 0x14])
        _ = chip.handle([0x32, 0x01, 0x01])
        // InListPassiveTarget selects it, then CRC off both ways (raw frames).
        _ = chip.handle([0x4A, 0x01, 0x00])
        _ = chip.handle([0x08, 0x63, 0x02, 0x00, 0x63, 0x03, 0x00])
        return chip
    }

    /// The answers to HLTA, 40h (7 bits) and 43h (8 bits): nil for silence, else the data bytes.
    private func unlock(_ chip: PN532Chip) -> [[UInt8]?] {
        let halt: [UInt8] = [0x50, 0x00]
        var answers: [[UInt8]?] = []
        for (frame, lastBits) in [(halt + ISO14443.crcA(halt), UInt8(0)), ([0x40], 7), ([0x43], 0)] {
            _ = chip.handle([0x08, 0x63, 0x3D, lastBits])
            let data = chip.handle([0x42] + frame).answer?.data ?? []
            answers.append(data.first == 0x00 ? Array(data.dropFirst()) : nil)
        }
        return answers
    }

    @Test func aGen1aClassicAcksBothSteps() throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: [0x9A, 0x1B, 0x2C, 0x3D], gen1a: true)
        let chip = chip(with: tag)
        #expect(unlock(chip) == [nil, [0x0A], [0x0A]])
        #expect(chip.registers[.control] & 0x07 == 4, "a 4-bit ACK")
    }

    @Test func aGen1aUltralightAcksBothSteps() {
        let tag = VirtualType2Tag(model: .ultralight, uid: [0x04, 0xD1, 0xE2, 0xF3, 0xA4, 0xB5, 0xC6], gen1a: true)
        #expect(unlock(chip(with: tag)) == [nil, [0x0A], [0x0A]])
    }

    @Test func genuineCardsStaySilent() throws {
        let classic = try VirtualClassicTag(model: .classic1K, uid: [0x9A, 0x1B, 0x2C, 0x3E])
        #expect(unlock(chip(with: classic)) == [nil, nil, nil])
        let ntag = VirtualType2Tag(model: .ntag216, uid: [0x04, 0xD1, 0xE2, 0xF3, 0xA4, 0xB5, 0xC7])
        #expect(unlock(chip(with: ntag)) == [nil, nil, nil])
    }

    @Test func theScenarioSaysWhichTagsAreMagic() throws {
        let scenario = try Scenario.parse("tags:\n  - {id: m, type: classic_1k, magic: gen1a}\n  - {id: g, type: ntag215}\n", file: "t.yaml")
        #expect(scenario.tags.map(\.gen1a) == [true, false])
        #expect(throws: SimulatorError.self) {
            try Scenario.parse("tags:\n  - {id: d, type: desfire_ev2, magic: gen1a}\n", file: "t.yaml")
        }
        #expect(throws: SimulatorError.self) {
            try Scenario.parse("tags:\n  - {id: n, type: ntag215, signature: 0102}\n", file: "t.yaml")
        }
    }
}

/// The Gen4 GTU clone (scenario `magic: gen4`, ``VirtualGen4GTU``): only the version read with the
/// factory password is answered; another password, another sub-command and a genuine card get nothing
/// from the Gen4 side.
@Suite struct VirtualGen4GTUTests {
    @Test func onlyTheVersionReadWithTheFactoryPasswordIsAnswered() {
        let tag = VirtualType2Tag(model: .ntag215, uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06], gen4: true)
        _ = tag.activate()
        #expect(tag.receive([0xCF, 0x00, 0x00, 0x00, 0x00, 0xCC]) == .data([0x00, 0x00, 0x00, 0x06, 0xA0]))
        #expect(tag.receive([0xCF, 0x11, 0x22, 0x33, 0x44, 0xCC]) == .silent)
        #expect(tag.receive([0xCF, 0x00, 0x00, 0x00, 0x00, 0xC6]) == .silent)
        let genuine = VirtualType2Tag(model: .ntag215, uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07])
        _ = genuine.activate()
        #expect(genuine.receive([0xCF, 0x00, 0x00, 0x00, 0x00, 0xCC]) != .data([0x00, 0x00, 0x00, 0x06, 0xA0]))
    }
}
