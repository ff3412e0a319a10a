import NFCCore
import PN532Sim
import Testing

/// Formatting virtual Type 2 tags: the OTP capability container is only ever ORed into a value it can reach.
@Suite struct Type2FormatTests {
    /// A tag whose CC page is `cc` and whose data area starts with leftovers that look like TLVs.
    private func fixture(_ model: VirtualType2Model, cc: [UInt8]) async throws -> Type2OperationFixture {
        try await Type2OperationFixture(model) { tag in
            var memory = tag.memory
            memory.replaceSubrange(12..<16, with: cc)
            memory.replaceSubrange(16..<24, with: [0x01, 0x03, 0x30, 0x10, 0x44, 0x5A, 0x5A, 0x5A])
            tag.memory = memory
        }
    }

    @Test(arguments: [
        (VirtualType2Model.ultralight, UInt8(0x06)), (.ultralightC, 0x12), (.ultralightEV1_11, 0x06),
        (.ultralightEV1_21, 0x10), (.ntag203, 0x12), (.ntag210, 0x06), (.ntag212, 0x10), (.ntag213, 0x12),
        (.ntag215, 0x3E), (.ntag216, 0x6D),
    ])
    func formatsABlankTag(model: VirtualType2Model, size: UInt8) async throws {
        let fixture = try await fixture(model, cc: [0, 0, 0, 0])
        let report = try await TagOperations.format(fixture.transport, info: fixture.info)
        let cc: [UInt8] = [0xE1, 0x10, size, 0x00]
        #expect(fixture.page(3) == cc)
        #expect(report.capabilityContainer == cc)
        // The leftovers are not taken for a Lock Control TLV: the empty message starts the data area.
        #expect(Array(fixture.page(4).prefix(3)) == [0x03, 0x00, 0xFE])
        #expect(fixture.storedMessage == [])
        // Data first, CC last.
        #expect(fixture.writeCommandPages == [4, 3])
        #expect(report.pagesWritten == [4, 3])
        #expect(report.messageLength == 0)
    }

    @Test func aPartlyProgrammedCCIsCompleted() async throws {
        let fixture = try await fixture(.ntag213, cc: [0xE1, 0x00, 0x02, 0x00])
        _ = try await TagOperations.format(fixture.transport, info: fixture.info)
        #expect(fixture.page(3) == [0xE1, 0x10, 0x12, 0x00])
    }

    @Test(arguments: [[UInt8]([0xE1, 0x10, 0xFF, 0x00]), [0x0E, 0x10, 0x12, 0x00], [0xE1, 0x20, 0x12, 0x00]])
    func aCCThatCannotBecomeTheRightOneIsRefused(cc: [UInt8]) async throws {
        let fixture = try await fixture(.ntag213, cc: cc)
        let before = fixture.tag.memory
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.format(fixture.transport, info: fixture.info)
        }
        #expect(error?.code == "unsupported")
        #expect(error?.message.contains("one-time programmable") == true)
        #expect(error?.pagesWritten == [])
        #expect(fixture.writeCommandPages.isEmpty)
        #expect(fixture.tag.memory == before)
    }

    @Test func aReadOnlyTagIsRefused() async throws {
        let fixture = try await fixture(.ntag213, cc: [0xE1, 0x10, 0x12, 0x0F])
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.format(fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .tagLocked)
        #expect(fixture.writeCommandPages.isEmpty)
    }

    @Test func aLockedCCPageIsRefusedBeforeTheDataIsWritten() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            memory.replaceSubrange(10..<16, with: [0x08, 0x00, 0, 0, 0, 0])  // L-CC set, CC blank
            tag.memory = memory
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.format(fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .tagLocked)
        #expect(fixture.writeCommandPages.isEmpty)
    }

    @Test func aCorrectCCIsLeftAlone() async throws {
        let fixture = try await Type2OperationFixture(.ntag213)
        _ = try await TagOperations.write(ndef: ndefMessage(length: 40), to: fixture.transport, info: fixture.info)
        let writes = fixture.writeCommandPages.count
        let report = try await TagOperations.format(fixture.transport, info: fixture.info)
        #expect(Array(fixture.writeCommandPages.dropFirst(writes)) == [4])
        #expect(fixture.page(3) == [0xE1, 0x10, 0x12, 0x00])
        #expect(report.capabilityContainer == [0xE1, 0x10, 0x12, 0x00])
        #expect(fixture.storedMessage == [])
    }

    @Test func formattingAnNTAG203KeepsItsLockControlTLV() async throws {
        let fixture = try await Type2OperationFixture(.ntag203)
        _ = try await TagOperations.write(ndef: ndefMessage(length: 20), to: fixture.transport, info: fixture.info)
        _ = try await TagOperations.format(fixture.transport, info: fixture.info)
        #expect(Array(fixture.tag.memory[16..<24]) == [0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x00, 0xFE])
        #expect(fixture.storedMessage == [])
    }

    @Test func theFactoryCCTableFollowsTheDatasheets() {
        // NTAG213/215/216 §8.5.6: E1 10 12 00, E1 10 3E 00, E1 10 6D 00; user bytes / 8 elsewhere.
        #expect(Type2Format.capabilityContainer(for: .ntag213)?.bytes == [0xE1, 0x10, 0x12, 0x00])
        #expect(Type2Format.capabilityContainer(for: .ntag215)?.bytes == [0xE1, 0x10, 0x3E, 0x00])
        #expect(Type2Format.capabilityContainer(for: .ntag216)?.bytes == [0xE1, 0x10, 0x6D, 0x00])
        #expect(Type2Format.capabilityContainer(for: .mifareUltralightEV1_MF0UL21)?.bytes == [0xE1, 0x10, 0x10, 0x00])
        #expect(Type2Format.capabilityContainer(for: .mifareClassic1K) == nil)
    }
}
