import NFCCore
import PN532Sim
import Testing

/// TLVs in front of the NDEF Message TLV (a reserved type, Lock Control, Memory Control, Proprietary):
/// the one TLV walker positions them, the NDEF read walks past them, and a write or a format puts the
/// NDEF TLV where the reader found it and keeps them byte for byte (issue 8: an NTAG215 whose page 4
/// held `42 02 AB CD 03 00 FE` lost its 42h TLV to a write).
@Suite struct Type2TLVKeepTests {
    /// A TLV (or two) at the start of the data area, in front of the NDEF TLV.
    struct Prefix: Sendable, CustomStringConvertible {
        var description: String
        var bytes: [UInt8]
    }

    static let prefixes: [Prefix] = [
        // The case: a reserved type (42h), skipped by its length (T2T §2.3).
        Prefix(description: "reserved 42h", bytes: [0x42, 0x02, 0xAB, 0xCD]),
        // Lock Control: 16 lock bits at page 0Ah × 16 bytes = byte 160 (T2T §2.3.2).
        Prefix(description: "lock control", bytes: [0x01, 0x03, 0xA0, 0x10, 0x44]),
        // Memory Control: 4 bytes reserved at page 7 × 4 = byte 28..31, inside the NDEF TLV (T2T §2.3.3).
        Prefix(description: "memory control", bytes: [0x02, 0x03, 0x70, 0x04, 0x02]),
        // Proprietary with the 3-byte length form, then a NULL TLV.
        Prefix(description: "proprietary", bytes: [0xFD, 0xFF, 0x00, 0x02, 0x11, 0x22, 0x00]),
    ]

    static let uriMessage: [UInt8] = (try? NDEFMessage(records: [NDEFRecord.uri("https://example.com/kept")]).bytes) ?? []

    /// An NTAG215 whose data area holds `prefix`, then `03 L message FE` (bytes reserved by a Memory
    /// Control TLV inside it are skipped and filled with EEh).
    private func fixture(_ prefix: [UInt8], message: [UInt8]) async throws -> Type2OperationFixture {
        try await Type2OperationFixture(.ntag215) { tag in
            var memory = tag.memory
            var offset = 16
            for byte in prefix + [0x03, UInt8(message.count)] + message + [0xFE] {
                while (28..<32).contains(offset) && prefix.first == 0x02 {
                    memory[offset] = 0xEE
                    offset += 1
                }
                memory[offset] = byte
                offset += 1
            }
            tag.memory = memory
        }
    }

    // MARK: The walker

    @Test func theWalkerPositionsEveryTLVInFrontOfTheMessage() throws {
        let memory = [UInt8](repeating: 0, count: 16) + [0x42, 0x02, 0xAB, 0xCD, 0xFD, 0xFF, 0x00, 0x01, 0x77, 0x00,
                                                        0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE]
        let scan = NFCForumTLV.scan(memory: memory, end: memory.count)
        #expect(scan.outcome == .message([0xD0, 0x00, 0x00]))
        #expect(scan.blocks == [
            NFCForumTLV.Block(offset: 16, type: 0x42, lengthFieldSize: 1, length: 2, valueRange: 18..<20),
            NFCForumTLV.Block(offset: 20, type: 0xFD, lengthFieldSize: 3, length: 1, valueRange: 24..<25),
            NFCForumTLV.Block(offset: 25, type: 0x00, lengthFieldSize: 0, length: 0, valueRange: 26..<26),
            NFCForumTLV.Block(offset: 26, type: 0x03, lengthFieldSize: 1, length: 3, valueRange: 28..<31),
        ])
        #expect(scan.messageOffset == 26)
        #expect(scan.messageBlock?.offset == 26)
    }

    @Test func theWalkerPlacesAMissingMessageAtTheTerminatorOrAfterTheLastTLV() {
        let head = [UInt8](repeating: 0, count: 16)
        // Terminator at 20.
        #expect(NFCForumTLV.scan(memory: head + [0x42, 0x02, 0xAB, 0xCD, 0xFE, 0x00], end: 22).messageOffset == 20)
        // The area ends on NULL TLVs: the first of them.
        #expect(NFCForumTLV.scan(memory: head + [0x42, 0x01, 0xAB, 0x00, 0x00, 0x00], end: 22).messageOffset == 19)
        // A message TLV whose value is not read yet is placed already, the walk still asks for the value.
        let partial = NFCForumTLV.scan(memory: head + [0x42, 0x01, 0xAB, 0x03, 0x20], end: 64)
        #expect(partial.messageOffset == 19)
        #expect(partial.outcome == .needsMemory(upTo: 53))
        // Nothing placed while a TLV header is still missing.
        #expect(NFCForumTLV.scan(memory: head + [0x42], end: 64).messageOffset == nil)
    }

    // MARK: Read, write, format on virtual tags

    @Test(arguments: prefixes) func theNDEFReadAndTheDumpFindTheMessageAfterTheTLVs(_ prefix: Prefix) async throws {
        let fixture = try await fixture(prefix.bytes, message: Self.uriMessage)
        #expect(try await NDEFReader.read(info: fixture.info, transport: fixture.transport) == .message(Self.uriMessage))
        let dump = try await Type2Dump.dump(info: fixture.info, transport: fixture.transport)
        #expect(dump.ndefMessage == Self.uriMessage)
    }

    @Test(arguments: prefixes) func aWriteKeepsEveryTLVInFrontOfTheMessage(_ prefix: Prefix) async throws {
        // The tag: the TLV, then an empty NDEF message.
        let fixture = try await fixture(prefix.bytes, message: [])
        let before = fixture.tag.memory
        _ = try await TagOperations.write(ndef: Self.uriMessage, to: fixture.transport, info: fixture.info)
        let start = 16 + prefix.bytes.count
        #expect(Array(fixture.tag.memory[16..<start]) == prefix.bytes, "\(prefix)")
        #expect(fixture.tag.memory[start] == 0x03, "the NDEF TLV is where the reader found the old one")
        if prefix.bytes.first == 0x02 {
            #expect(Array(fixture.tag.memory[28..<32]) == Array(before[28..<32]), "the reserved bytes stay")
        }
        #expect(try await NDEFReader.read(info: fixture.info, transport: fixture.transport) == .message(Self.uriMessage))
        // No page in front of the NDEF TLV's first page was written.
        #expect(fixture.writeCommandPages.allSatisfy { $0 >= start / 4 }, "\(fixture.writeCommandPages)")
    }

    @Test(arguments: prefixes) func aFormatKeepsEveryTLVInFrontOfTheMessage(_ prefix: Prefix) async throws {
        let fixture = try await fixture(prefix.bytes, message: Self.uriMessage)
        _ = try await TagOperations.format(fixture.transport, info: fixture.info)
        let start = 16 + prefix.bytes.count
        #expect(Array(fixture.tag.memory[16..<start]) == prefix.bytes, "\(prefix)")
        #expect(Array(fixture.tag.memory[start..<start + 3]) == [0x03, 0x00, 0xFE])
        #expect(try await NDEFReader.read(info: fixture.info, transport: fixture.transport) == .message([]))
    }

    // MARK: A read-protected NTAG213 (AUTH0 10h, PROT 1)

    /// Pages of the READs the tag refused (a refusal is followed by a re-select, recorded as `[]`).
    private func refusedREADs(_ commands: [[UInt8]]) -> [Int] {
        zip(commands, commands.dropFirst()).compactMap { command, next in
            command.count == 2 && command[0] == 0x30 && next.isEmpty ? Int(command[1]) : nil
        }
    }

    private func readProtectedNTAG213(message: [UInt8]) async throws -> Type2OperationFixture {
        try await Type2OperationFixture(.ntag213) { tag in
            try? tag.writeNDEF(message)
            tag.setAuth0(0x10)
            tag.setReadProtection(true)
        }
    }

    @Test func dumpNDEFReadAndWriteStopAtTheSamePageAndSaySoTheSameWay() async throws {
        // 60 bytes: TLV in bytes 16…78, pages 4…19 — past AUTH0.
        let long = ndefMessage(length: 60)
        let dumped = try await readProtectedNTAG213(message: long)
        let dump = try await Type2Dump.dump(info: dumped.info, transport: dumped.transport)
        #expect(dump.fact("Unauthenticated Boundary") == "Page 16")
        #expect(dump.capabilities == [.authenticationRequired, .partiallyReadable])
        #expect(dump.pages.map(\.number) == Array(0..<16))
        #expect(refusedREADs(dumped.operationCommands) == [16])

        let read = try await readProtectedNTAG213(message: long)
        let result = try await NDEFReader.read(info: read.info, transport: read.transport)
        #expect(result == .unreadable(.authenticationRequired))
        #expect(refusedREADs(read.operationCommands) == [16], "\(read.operationCommands.map(\.hexString))")

        let written = try await readProtectedNTAG213(message: long)
        let before = written.tag.memory
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 50), to: written.transport, info: written.info)
        }
        #expect(error?.error == .authenticationRequired)
        #expect(error?.code == result.error?.code)
        #expect(error?.message == result.error?.message)
        #expect(written.writeCommandPages.isEmpty)
        #expect(written.tag.memory == before)
        #expect(refusedREADs(written.operationCommands) == [16], "\(written.operationCommands.map(\.hexString))")
    }

    @Test func belowTheProtectedPageTheNDEFReadAndTheWriteGoThrough() async throws {
        // 40 bytes: TLV in bytes 16…57, pages 4…14; the terminator in page 14 too.
        let short = ndefMessage(length: 40)
        let read = try await readProtectedNTAG213(message: short)
        #expect(try await NDEFReader.read(info: read.info, transport: read.transport) == .message(short))

        // The config page (41) is read-protected; the pages to write read, so they lie below AUTH0.
        let written = try await readProtectedNTAG213(message: ndefMessage(length: 30))
        let report = try await TagOperations.write(ndef: short, to: written.transport, info: written.info)
        #expect(report.pagesWritten.allSatisfy { $0 < 16 })
        #expect(written.storedMessage == short)
        // One byte more than fits below page 16 (a TLV 16…63 and its terminator at 64): refused, untouched.
        let before = written.tag.memory
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 47), to: written.transport, info: written.info)
        }
        #expect(error?.code == "auth_required")
        #expect(written.tag.memory == before)
    }
}
