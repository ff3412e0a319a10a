import NFCCore
import PN532Sim
import Testing

/// Write and lock on virtual FeliCa tags through ``TagOperations``.
@Suite struct Type3OperationsTests {
    static let idm: [UInt8] = [0x01, 0x2E, 0x3C, 0x4D, 0x5E, 0x6F, 0x70, 0x81]

    private func fixture(_ model: VirtualFeliCaTag.Model = .liteS, writable: Bool = true) async throws
        -> (VirtualFeliCaTag, VirtualTagTransport, CardInfo)
    {
        let tag = try VirtualFeliCaTag(model: model, idm: Self.idm, ndef: [0xD0, 0x00, 0x00], writable: writable)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        return (tag, transport, info)
    }

    @Test func writesAndReadsBack() async throws {
        let (tag, transport, info) = try await fixture()
        #expect(info.type == .felicaLiteS)
        let message = ndefMessage(length: 40)
        let report = try await TagOperations.write(ndef: message, to: transport, info: info)
        #expect(tag.ndefMessage == message)
        // Attribute block (WriteFlag 0F), three data blocks, attribute block again (Nbw 1 on Lite-S).
        #expect(report.pagesWritten == [0, 1, 2, 3])
        #expect(report.bytesWritten == 5 * 16)
        #expect(report.messageLength == 40)
        #expect(report.uid == Self.idm)
        let attribute = try FeliCaAttributeInfo(bytes: report.capabilityContainer)
        #expect(attribute.length == 40)
        #expect(attribute.writeFlag == 0x00)
    }

    @Test func capacityIsCheckedBeforeTheFirstWrite() async throws {
        let (tag, transport, info) = try await fixture()
        let before = tag.ndefMessage
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 209), to: transport, info: info)
        }
        // Lite-S: Nmaxb 13 blocks = 208 bytes.
        #expect(error?.error == .capacityExceeded(needed: 209, available: 208))
        #expect(error?.pagesWritten == [])
        #expect(!transport.sentCommands.contains { $0.first == 0x08 })
        #expect(tag.ndefMessage == before)
    }

    @Test func aReadOnlyTagIsRefused() async throws {
        let (_, transport, info) = try await fixture(writable: false)
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: transport, info: info)
        }
        #expect(error?.error == .tagLocked)
        #expect(!transport.sentCommands.contains { $0.first == 0x08 })
    }

    @Test func aTagPulledMidWriteReportsTheBlocksKnownWritten() async throws {
        let (_, transport, info) = try await fixture()
        // READ attribute, WRITE block 0, WRITE block 1, then gone.
        transport.remove(afterCommands: 3)
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 40), to: transport, info: info)
        }
        #expect(error?.error == .tagRemoved)
        #expect(error?.pagesWritten == [0, 1])
    }

    @Test func lockClearsRWFlagAndLaterWritesAreRefused() async throws {
        let (tag, transport, info) = try await fixture()
        let report = try await TagOperations.lock(transport, info: info, expectedUID: Self.idm)
        let attribute = try FeliCaAttributeInfo(bytes: try #require(tag.block(0)))  // checksum recomputed
        #expect(attribute.rwFlag == 0x00)
        #expect(report.pagesWritten == [0])
        #expect(report.capabilityContainer == tag.block(0))
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: transport, info: info)
        }
        #expect(error?.error == .tagLocked)
    }

    @Test func lockRefusesAnotherIDm() async throws {
        let (tag, transport, info) = try await fixture()
        let before = tag.block(0)
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.lock(transport, info: info, expectedUID: [1, 2, 3, 4, 5, 6, 7, 8])
        }
        #expect(error?.code == "tag_mismatch")
        #expect(tag.block(0) == before)
    }

    @Test func formatAndPasswordsAreRefused() async throws {
        let (_, transport, info) = try await fixture()
        let format = await operationError { () async throws(TagOperationError) in
            try await TagOperations.format(transport, info: info)
        }
        #expect(format?.code == "unsupported")
        let password = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: transport, info: info,
                                          password: [1, 2, 3, 4])
        }
        #expect(password?.code == "unsupported")
        #expect(!transport.sentCommands.contains { $0.first == 0x08 })
    }
}
