import NFCCore
import PN532Sim
import Testing

/// ``NDEFReader`` on Type 2 tags: only the CC and the pages the TLVs occupy are read.
@Suite struct NDEFReaderType2Tests {
    static let models: [VirtualType2Model] = [
        .ultralight, .ultralightC, .ultralightEV1_11, .ultralightEV1_21, .ntag203, .ntag210, .ntag212, .ntag213,
        .ntag215, .ntag216,
    ]

    /// Pages the commands addressed: READ → its start page, FAST_READ → its range.
    private func pagesAddressed(_ commands: [[UInt8]]) -> [Int] {
        commands.flatMap { command -> [Int] in
            switch command.first {
            case 0x30 where command.count == 2: [Int(command[1])]
            case 0x3A where command.count == 3: Array(Int(command[1])...Int(command[2]))
            default: []
            }
        }
    }

    @Test(arguments: models) func theLargestMessageIsReadOnEveryProduct(_ model: VirtualType2Model) async throws {
        let probe = VirtualType2Tag(model: model, uid: Type2OperationFixture.uid)
        let map = try #require(model.memoryMap)
        let ccSize = Int(probe.memory[14]) * 8
        let capacity = min(ccSize, map.userBytes)
        // TLV header (2 bytes, or 4 from 255 on) and terminator.
        let length = capacity - 3 > 254 ? capacity - 5 : capacity - 3
        let message = ndefMessage(length: length)
        let fixture = try await Type2OperationFixture(model) { tag in
            #expect(throws: Never.self) { try tag.writeNDEF(message) }
        }

        let result = try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        #expect(result == .message(message))

        let commands = fixture.operationCommands
        #expect(commands.first == [0x30, 0x03])
        #expect(commands.allSatisfy { $0.first == 0x30 || $0.first == 0x3A }, "\(commands.map(\.hexString))")
        let hasFastRead = model.product.features.contains(.fastRead)
        #expect(commands.contains { $0.first == 0x3A } == hasFastRead)
        // Nothing past the page of the message's last byte.
        let tlvLength = (length > 254 ? 4 : 2) + length
        let lastPage = (NFCForumTLV.dataAreaOffset + tlvLength - 1) / 4
        #expect(pagesAddressed(commands).allSatisfy { $0 <= lastPage }, "\(commands.map(\.hexString))")
        if hasFastRead {
            // READ 3, then FAST_READs of at most 60 pages covering 7…lastPage.
            #expect(commands.count == 1 + (lastPage - 7 + Type2Dump.maxFastReadPages) / Type2Dump.maxFastReadPages)
        }

        // The dump finds the same message.
        let dump = try await Type2Dump.dump(info: fixture.info, transport: fixture.transport)
        #expect(dump.ndefMessage == message)
    }

    @Test(arguments: models) func aFactoryFreshTagHasAnEmptyMessageFoundWithOneREAD(_ model: VirtualType2Model) async throws {
        let fixture = try await Type2OperationFixture(model)
        let result = try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        #expect(result == .message([]))
        #expect(fixture.operationCommands == [[0x30, 0x03]])
    }

    @Test func ntag216WithATwentyByteMessageSendsTwoCommandsWhereTheDumpReadsEverything() async throws {
        let message = ndefMessage(length: 20)
        let fixture = try await Type2OperationFixture(.ntag216) { try? $0.writeNDEF(message) }
        let result = try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        #expect(result == .message(message))
        // TLV 03 14 + 20 bytes sits in bytes 16…37: pages 4…9. READ 3 brings 3…6, FAST_READ the rest.
        let ndefCommands = fixture.operationCommands
        #expect(ndefCommands == [[0x30, 0x03], [0x3A, 0x07, 0x09]])

        let before = fixture.transport.sentCommands.count
        let dump = try await TagDumper.dump(info: fixture.info, transport: fixture.transport)
        let dumpCommands = Array(fixture.transport.sentCommands.dropFirst(before))
        #expect(dump.ndefMessage == message)
        #expect(dump.pages.count == 231)
        #expect(dumpCommands.count > 2 * ndefCommands.count, "\(dumpCommands.map(\.hexString))")
        #expect(pagesAddressed(dumpCommands).count == 231)
        #expect(pagesAddressed(ndefCommands).count == 4)
    }

    @Test func lockAndMemoryControlTLVsAreWalkedAndTheirBytesSkipped() async throws {
        let message = ndefMessage(length: 30)
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            // Lock Control: 16 lock bits at page 40 (bytes per page 2^4, page 0Ah × 16 = 160).
            // Memory Control: 4 bytes reserved at page 7 (bytes per page 2^2, page 7 × 4 = 28).
            var area: [UInt8] = [0x01, 0x03, 0xA0, 0x10, 0x44, 0x02, 0x03, 0x70, 0x04, 0x02, 0x03, UInt8(message.count)]
            // Offsets 16…27 hold the two control TLVs and the NDEF TLV header; 28…31 are reserved.
            area += [0xEE, 0xEE, 0xEE, 0xEE] + message + [0xFE]
            memory.replaceSubrange(16..<16 + area.count, with: area)
            tag.memory = memory
        }
        let result = try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        #expect(result == .message(message))
        // The value runs from byte 32 to 61: pages 7…15 after READ 3.
        #expect(fixture.operationCommands == [[0x30, 0x03], [0x3A, 0x07, 0x0F]])
    }

    @Test func aTLVHeaderBeyondTheFirstREADIsFetchedThenItsValue() async throws {
        let message = ndefMessage(length: 12)
        let fixture = try await Type2OperationFixture(.ntag215) { tag in
            var memory = tag.memory
            // 14 NULL TLVs push the NDEF TLV to byte 30 (page 7).
            let area = [UInt8](repeating: 0x00, count: 14) + [0x03, UInt8(message.count)] + message + [0xFE]
            memory.replaceSubrange(16..<16 + area.count, with: area)
            tag.memory = memory
        }
        let result = try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        #expect(result == .message(message))
        // Header at 30…31 (page 7), value 32…43 (pages 8…10).
        #expect(fixture.operationCommands == [[0x30, 0x03], [0x3A, 0x07, 0x07], [0x3A, 0x08, 0x0A]])
    }

    @Test(arguments: [
        // Blank OTP page: never NDEF formatted.
        [UInt8]([0x00, 0x00, 0x00, 0x00]),
        // amiibo-style CC: no E1h magic.
        [0xF1, 0x10, 0xFF, 0xEE],
    ])
    func aCCWithoutE1HasNoMessage(_ cc: [UInt8]) async throws {
        let fixture = try await Type2OperationFixture(.ntag215) { tag in
            var memory = tag.memory
            memory.replaceSubrange(12..<16, with: cc)
            tag.memory = memory
            try? tag.writeNDEF([0xD0, 0x00, 0x00])
        }
        #expect(try await NDEFReader.read(info: fixture.info, transport: fixture.transport) == .noMessage)
        #expect(fixture.operationCommands == [[0x30, 0x03]])
    }

    @Test func anUnknownMappingVersionOrClosedReadAccessIsUnreadable() async throws {
        for cc: [UInt8] in [[0xE1, 0x20, 0x3E, 0x00], [0xE1, 0x10, 0x3E, 0x80]] {
            let fixture = try await Type2OperationFixture(.ntag215) { tag in
                var memory = tag.memory
                memory.replaceSubrange(12..<16, with: cc)
                tag.memory = memory
            }
            let result = try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
            #expect(result.status == "unreadable")
            #expect(result.error?.code == "unsupported")
            #expect(fixture.operationCommands == [[0x30, 0x03]])
        }
    }

    @Test func noNDEFTLVBeforeTheTerminatorIsNoMessage() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            memory.replaceSubrange(16..<20, with: [0xFD, 0x01, 0x42, 0xFE])
            tag.memory = memory
        }
        #expect(try await NDEFReader.read(info: fixture.info, transport: fixture.transport) == .noMessage)
    }

    @Test func aTLVLongerThanTheDataAreaIsUnreadable() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            // 200 bytes announced; the CC gives 144.
            memory.replaceSubrange(16..<18, with: [0x03, 0xC8])
            tag.memory = memory
        }
        let result = try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        guard case .unreadable(.invalidNDEF) = result else {
            Issue.record("expected invalid_ndef, got \(result)")
            return
        }
        #expect(fixture.operationCommands == [[0x30, 0x03]])
    }

    @Test(arguments: [
        // AUTH0 inside the message: FAST_READ of the rest is refused.
        (VirtualType2Model.ntag213, UInt8(10)),
        // AUTH0 5: READ 3 rolls over to page 0 at page 5, which must not be taken for data.
        (.ntag213, 5),
        (.ultralightEV1_21, 6),
        // Protected from page 4: READ 3 gives 3, then page 0.
        (.ntag215, 4),
    ])
    func aReadProtectedMessageIsUnreadableAndTheTagStaysSelected(_ model: VirtualType2Model, _ auth0: UInt8) async throws {
        let message = ndefMessage(length: 40)
        let fixture = try await Type2OperationFixture(model) { tag in
            try? tag.writeNDEF(message)
            tag.setAuth0(auth0)
            tag.setReadProtection(true)
        }
        let result = try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        #expect(result == .unreadable(.authenticationRequired), "\(fixture.info.type): \(fixture.operationCommands.map(\.hexString))")
        // Re-selected after the refusal: the tag answers again.
        #expect(try await Type2Command.read(page: 0, from: fixture.transport).count == 16)
    }

    @Test(arguments: [VirtualType2Model.ultralightC, .ntag213])
    func aShortMessageBehindAUTH0IsNotTakenFromARolledOverREAD(_ model: VirtualType2Model) async throws {
        // TLV 03 08 + 8 bytes + FE in bytes 16…26: pages 4…6, all in READ 3's answer — but READ rolls
        // over at AUTH0 = 6 and answers page 0 as page 6.
        let message = ndefMessage(length: 8)
        let fixture = try await Type2OperationFixture(model) { tag in
            try? tag.writeNDEF(message)
            tag.setAuth0(6)
            tag.setReadProtection(true)
        }
        let result = try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        // A protected Ultralight C identifies as a plain Ultralight, whose map knows no password.
        let expected: NFCError = fixture.info.type == .mifareUltralight ? .commandRefused(command: 0x30, nak: nil) : .authenticationRequired
        #expect(result == .unreadable(expected), "\(fixture.info.type)")
        let firstData = fixture.operationCommands.dropFirst().first
        #expect(firstData == [0x30, 0x06] || firstData == [0x3A, 0x06, 0x06], "\(fixture.operationCommands.map(\.hexString))")
    }

    @Test func protectionAboveTheMessageDoesNotStopTheRead() async throws {
        let message = ndefMessage(length: 30)
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            try? tag.writeNDEF(message)
            tag.setAuth0(16)
            tag.setReadProtection(true)
        }
        #expect(try await NDEFReader.read(info: fixture.info, transport: fixture.transport) == .message(message))
    }

    @Test func aRefusedOrUnansweredPageOnAProductWithoutPasswordIsUnreadable() async throws {
        let info = CardInfo(type: .ntag203, uid: Type2OperationFixture.uid, atqa: [0x00, 0x44], sak: 0x00)
        // CC E1 10 12 00, then an NDEF TLV of 40 bytes from page 4: pages 7… are needed.
        let first = "E1101200" + "0328D101" + "24550168" + "74747073"
        for (reply, expected) in [
            (ScriptedAPDUTransport.Reply.error(.commandRefused(command: 0x30, nak: 0x00)),
             NDEFReadResult.unreadable(.commandRefused(command: 0x30, nak: nil))),
            (.error(.timeout), .unreadable(.timeout)),
        ] {
            let transport = ScriptedAPDUTransport([("3003", .bytes(first)), ("3007", reply)])
            #expect(try await NDEFReader.read(info: info, transport: transport) == expected)
            transport.verifyAllConsumed()
        }
    }

    @Test func aTagRemovedMidReadThrows() async throws {
        let message = ndefMessage(length: 400)
        let fixture = try await Type2OperationFixture(.ntag215) { try? $0.writeNDEF(message) }
        fixture.transport.remove(afterCommands: 1)
        await #expect(throws: NFCError.tagRemoved) {
            try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        }
    }

    @Test func aTagRemovedDuringTheFirstREADThrows() async throws {
        let fixture = try await Type2OperationFixture(.ultralight)
        fixture.transport.remove()
        await #expect(throws: NFCError.tagRemoved) {
            try await NDEFReader.read(info: fixture.info, transport: fixture.transport)
        }
    }
}
