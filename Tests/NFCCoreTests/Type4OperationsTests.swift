import NFCCore
import PN532Sim
import Testing

/// Write, format and lock on virtual Type 4 tags through ``TagOperations``.
@Suite struct Type4OperationsTests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    private func fixture(writable: Bool = true) async throws -> (VirtualType4Tag, VirtualTagTransport, CardInfo) {
        let tag = try VirtualType4Tag(uid: Self.uid, ndef: [0xD0, 0x00, 0x00], capacity: 0xFE, writable: writable,
                                      mle: 0x3B, mlc: 0x34)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        return (tag, transport, info)
    }

    /// UPDATE BINARY APDUs sent.
    private func updates(_ transport: VirtualTagTransport) -> Int {
        transport.sentCommands.filter { $0.count > 1 && $0[1] == 0xD6 }.count
    }

    @Test func writesAndReadsBack() async throws {
        let (tag, transport, info) = try await fixture()
        #expect(NDEFMapping.forType(info.type) == .type4)
        let message = ndefMessage(length: 120)  // more than MLc: several UPDATE BINARY
        let report = try await TagOperations.write(ndef: message, to: transport, info: info)
        #expect(tag.ndefMessage == message)
        #expect(report.messageLength == 120)
        #expect(report.bytesWritten == 122)
        #expect(report.pagesWritten == [])
        #expect(report.capabilityContainer == tag.capabilityContainer)
    }

    @Test func capacityAndLockAreCheckedBeforeTheFirstUpdate() async throws {
        let (_, transport, info) = try await fixture()
        let tooLong = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 0xFD), to: transport, info: info)
        }
        #expect(tooLong?.error == .capacityExceeded(needed: 0xFD, available: 0xFC))
        let (_, lockedTransport, lockedInfo) = try await fixture(writable: false)
        let locked = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: lockedTransport, info: lockedInfo)
        }
        #expect(locked?.error == .tagLocked)
        #expect(updates(transport) == 0)
        #expect(updates(lockedTransport) == 0)
    }

    @Test func lockAndFormatAreUnsupported() async throws {
        let (tag, transport, info) = try await fixture()
        let lock = await operationError { () async throws(TagOperationError) in
            try await TagOperations.lock(transport, info: info, expectedUID: Self.uid)
        }
        #expect(lock?.code == "unsupported")
        let format = await operationError { () async throws(TagOperationError) in
            try await TagOperations.format(transport, info: info)
        }
        #expect(format?.code == "unsupported")
        #expect(updates(transport) == 0)
        #expect(tag.isWritable)
    }

    @Test func lockingAnAlreadyReadOnlyTagSucceedsWithoutWriting() async throws {
        let (_, transport, info) = try await fixture(writable: false)
        let report = try await TagOperations.lock(transport, info: info, expectedUID: Self.uid)
        #expect(report.pagesWritten == [])
        #expect(report.capabilityContainer.last == 0xFF)
        #expect(updates(transport) == 0)
    }

    @Test func classicTagsHaveNoNDEFOperations() async throws {
        // MIFARE Plus in SL3 (AES only): the Classic family without a sector layout. Classic 1K itself has
        // AN1305 NDEF operations now (ClassicWriteTests).
        let info = CardInfo(type: .mifarePlusSL3_4K, uid: [1, 2, 3, 4])
        let transport = VirtualTagTransport(tag: try VirtualType4Tag(uid: [1, 2, 3, 4]))
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: transport, info: info)
        }
        #expect(error?.code == "unsupported")
        #expect(transport.sentCommands.isEmpty)
    }
}
