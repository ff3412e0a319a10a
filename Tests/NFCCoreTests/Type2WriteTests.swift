import NFCCore
import PN532Sim
import Testing

/// NDEF writes to virtual Type 2 tags through ``TagOperations``: what reaches the tag, what is refused
/// before the first WRITE, and what a failure reports.
@Suite struct Type2WriteTests {
    /// Pages a TLV of `tlvLength` bytes from memory offset `start` covers, in the order the writer sends
    /// them to a tag that shows an empty message: the highest first (its ACK says AUTH0 protects none of
    /// them), every other page but the one holding the length byte, then that page.
    private func expectedWriteOrder(start: Int, tlvLength: Int) -> [Int] {
        let pages = Array(start / 4...(start + tlvLength - 1) / 4)
        let lengthPage = (start + 1) / 4
        let highest = pages.last ?? lengthPage
        return [highest] + pages.filter { $0 != lengthPage && $0 != highest } + [lengthPage]
    }

    // MARK: Every product

    @Test(arguments: [
        (VirtualType2Model.ntag213, 16), (.ntag215, 16), (.ntag216, 16), (.ultralight, 16), (.ultralightC, 16),
        (.ultralightEV1_11, 16), (.ultralightEV1_21, 16), (.ntag203, 21), (.ntag210, 16), (.ntag212, 16),
    ])
    func writesOnlyTheNeededPages(model: VirtualType2Model, tlvStart: Int) async throws {
        let fixture = try await Type2OperationFixture(model)
        let before = fixture.tag.memory
        let message = ndefMessage(length: 30)
        let report = try await TagOperations.write(ndef: message, to: fixture.transport, info: fixture.info)

        // 03 1E + 30 bytes + FE = 33 bytes. NTAG203 keeps its factory Lock Control TLV (01 03 A0 10 44).
        let order = expectedWriteOrder(start: tlvStart, tlvLength: 33)
        #expect(fixture.writeCommandPages == order)
        #expect(report.pagesWritten == order)
        #expect(report.bytesWritten == order.count * 4)
        #expect(report.messageLength == 30)
        #expect(report.uid == Type2OperationFixture.uid)
        #expect(report.cardType == fixture.info.type)
        #expect(fixture.storedMessage == message)
        // Nothing outside the written pages changed.
        for page in 0..<fixture.tag.memory.count / 4 where !order.contains(page) {
            #expect(fixture.page(page) == Array(before[page * 4..<page * 4 + 4]), "page \(page)")
        }
        #expect(fixture.page(tlvStart / 4 + 8)[tlvStart % 4] == 0xFE)
    }

    @Test func writesAMessageWithTheThreeByteLengthForm() async throws {
        let fixture = try await Type2OperationFixture(.ntag216)
        let message = ndefMessage(length: 700)
        let report = try await TagOperations.write(ndef: message, to: fixture.transport, info: fixture.info)
        #expect(Array(fixture.tag.memory[16..<20]) == [0x03, 0xFF, 0x02, 0xBC])
        #expect(fixture.storedMessage == message)
        // 4 + 700 + 1 = 705 bytes: pages 4–180.
        #expect(report.pagesWritten.sorted() == Array(4...180))
    }

    @Test func writesTheNDEFMessageValue() async throws {
        let fixture = try await Type2OperationFixture(.ntag213)
        let message = NDEFMessage(records: [NDEFRecord.uri("https://example.com/nfc")])
        _ = try await TagOperations.write(message, to: fixture.transport, info: fixture.info)
        #expect(fixture.storedMessage == (try message.bytes))
    }

    @Test func rewritingTheSameMessageWritesNothing() async throws {
        let fixture = try await Type2OperationFixture(.ntag213)
        let message = ndefMessage(length: 40)
        _ = try await TagOperations.write(ndef: message, to: fixture.transport, info: fixture.info)
        let writes = fixture.writeCommandPages.count
        let report = try await TagOperations.write(ndef: message, to: fixture.transport, info: fixture.info)
        #expect(report.pagesWritten.isEmpty)
        #expect(fixture.writeCommandPages.count == writes)
    }

    // MARK: Capacity

    @Test(arguments: [(VirtualType2Model.ntag213, 143, 142), (.ntag215, 493, 492), (.ultralight, 47, 46)])
    func capacityIsCheckedBeforeTheFirstWrite(model: VirtualType2Model, length: Int, available: Int) async throws {
        let fixture = try await Type2OperationFixture(model)
        let before = fixture.tag.memory
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: length), to: fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .capacityExceeded(needed: length, available: available))
        #expect(error?.code == "capacity_exceeded")
        #expect(error?.pagesWritten == [])
        #expect(fixture.writeCommandPages.isEmpty)
        #expect(fixture.tag.memory == before)
    }

    @Test func aMessageThatFillsTheDataAreaGoesWithoutTerminator() async throws {
        let fixture = try await Type2OperationFixture(.ntag213)
        let message = ndefMessage(length: 142)
        let report = try await TagOperations.write(ndef: message, to: fixture.transport, info: fixture.info)
        #expect(report.pagesWritten.sorted() == Array(4...39))
        #expect(fixture.storedMessage == message)
        #expect(fixture.page(40) == [0x00, 0x00, 0x00, 0xBD])  // the dynamic lock page is untouched
    }

    // MARK: Control TLVs (nfcpy test_tag_tt2.py image)

    /// Ultralight with CC E1 10 06 00 and the nfcpy TLV area: NULL, Lock Control reserving bytes 48–49,
    /// Memory Control reserving bytes 28–31, NULL, then an empty NDEF TLV at byte 32.
    private static let controlTLVImage: [UInt8] = [
        0x00, 0x01, 0x03, 0xC0, 0x10, 0x22, 0x02, 0x03, 0x70, 0x04, 0x02, 0x00, 0xFF, 0xFF, 0xFF, 0xFF,
        0x03, 0x00, 0xFE, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xAA, 0xBB,
    ]

    private func controlTLVFixture() async throws -> Type2OperationFixture {
        try await Type2OperationFixture(.ultralight) { tag in
            var memory = tag.memory
            memory.replaceSubrange(12..<16, with: [0xE1, 0x10, 0x06, 0x00])
            memory.replaceSubrange(16..<16 + Self.controlTLVImage.count, with: Self.controlTLVImage)
            tag.memory = memory
        }
    }

    @Test func controlTLVsStayAndTheirReservedBytesAreSkipped() async throws {
        let fixture = try await controlTLVFixture()
        let message = ndefHex("D50010000102030405060708090A0B0C0D0E0F")
        _ = try await TagOperations.write(ndef: message, to: fixture.transport, info: fixture.info)
        // 22 TLV bytes from byte 32: 32–47, then 50–55 around the lock bytes at 48–49.
        #expect(fixture.writeCommandPages == [13, 9, 10, 11, 12, 8])
        #expect(Array(fixture.tag.memory[16..<32]) == Array(Self.controlTLVImage[0..<16]))
        #expect(Array(fixture.tag.memory[48..<50]) == [0xAA, 0xBB])
        #expect(fixture.storedMessage == message)
    }

    @Test func reservedBytesCountAgainstTheCapacity() async throws {
        let fixture = try await controlTLVFixture()
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 29), to: fixture.transport, info: fixture.info)
        }
        // Bytes 32–63 minus the two lock bytes: 30 free, 28 for the message.
        #expect(error?.error == .capacityExceeded(needed: 29, available: 28))
        #expect(fixture.writeCommandPages.isEmpty)
    }

    // MARK: Locked tags

    @Test func aReadOnlyCapabilityContainerIsRefused() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            memory[15] = 0x0F
            tag.memory = memory
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .tagLocked)
        #expect(error?.code == "tag_locked")
        #expect(fixture.writeCommandPages.isEmpty)
    }

    @Test func aStaticLockBitOnAPageToWriteIsRefused() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            memory[11] = 0x01  // L8: page 8 read-only
            tag.memory = memory
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 30), to: fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .tagLocked)
        #expect(fixture.writeCommandPages.isEmpty)
        // A message that ends before page 8 is fine: 2 + 6 + 1 bytes cover pages 4–6.
        let small = ndefMessage(length: 6)
        _ = try await TagOperations.write(ndef: small, to: fixture.transport, info: fixture.info)
        #expect(fixture.storedMessage == small)
    }

    @Test func aDynamicLockBitOnAPageToWriteIsRefused() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            memory[40 * 4] = 0x01  // pages 16–17 read-only
            tag.memory = memory
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 60), to: fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .tagLocked)
        #expect(fixture.writeCommandPages.isEmpty)
    }

    @Test func anUnformattedTagIsRefused() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            memory.replaceSubrange(12..<16, with: [0, 0, 0, 0])
            tag.memory = memory
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: fixture.transport, info: fixture.info)
        }
        #expect(error?.code == "unsupported")
        #expect(fixture.writeCommandPages.isEmpty)
    }

    // MARK: Failures half-way

    @Test func aCorruptedWriteIsFoundByTheReadBack() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { $0.corruptNextWrite() }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 30), to: fixture.transport, info: fixture.info)
        }
        // The corrupted WRITE is the first: page 12, the highest.
        #expect(error?.error == .verifyFailed(page: 12))
        #expect(error?.code == "verify_failed")
        #expect(error?.pagesWritten == [12, 5, 6, 7, 8, 9, 10, 11, 4])
    }

    @Test func aTagPulledMidWriteReportsThePagesKnownWritten() async throws {
        let message = ndefMessage(length: 30)
        // A dry run on an identical tag tells which command is the third WRITE.
        let dryRun = try await Type2OperationFixture(.ntag213)
        _ = try await TagOperations.write(ndef: message, to: dryRun.transport, info: dryRun.info)
        let writeIndices = dryRun.operationCommands.indices.filter { dryRun.operationCommands[$0].first == 0xA2 }
        try #require(writeIndices.count >= 3)

        let fixture = try await Type2OperationFixture(.ntag213)
        fixture.transport.remove(afterCommands: writeIndices[2])
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: message, to: fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .tagRemoved)
        #expect(error?.code == "tag_removed")
        #expect(error?.pagesWritten == [12, 5])
        // The length byte is written last, so the torn tag holds an empty message, not a broken one.
        #expect(fixture.storedMessage == [])
    }

    /// The first WRITE goes to the highest page (12): refused, it leaves the tag as it was; the tag is
    /// re-selected and AUTH0 read (not set: the refusal is the WRITE's own, `write_failed`).
    @Test func aRefusedFirstWriteLeavesTheTagAsItWas() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { $0.failWrites(fromPage: 8) }
        let before = fixture.tag.memory
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 30), to: fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .writeFailed(page: 12))
        #expect(error?.pagesWritten == [])
        #expect(fixture.writeCommandPages == [12])
        #expect(fixture.tag.memory == before)
    }

    // MARK: Passwords

    static let password: [UInt8] = [0x12, 0x34, 0x56, 0x78]

    private func protectedFixture(_ model: VirtualType2Model, readProtected: Bool = false) async throws
        -> Type2OperationFixture
    {
        try await Type2OperationFixture(model) { tag in
            tag.setPassword(Self.password, pack: [0xAB, 0xCD])
            tag.setAuth0(4)
            tag.setReadProtection(readProtected)
        }
    }

    @Test(arguments: [VirtualType2Model.ntag213, .ntag216, .ultralightEV1_21, .ntag212])
    func theRightPasswordIsSentFirst(model: VirtualType2Model) async throws {
        let fixture = try await protectedFixture(model)
        let message = ndefMessage(length: 30)
        _ = try await TagOperations.write(ndef: message, to: fixture.transport, info: fixture.info,
                                          password: Self.password)
        #expect(fixture.operationCommands.first == [0x1B] + Self.password)
        #expect(fixture.storedMessage == message)
    }

    @Test(arguments: [false, true])
    func aWrongPasswordIsRefusedBeforeAnyWrite(readProtected: Bool) async throws {
        let fixture = try await protectedFixture(.ntag213, readProtected: readProtected)
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 30), to: fixture.transport, info: fixture.info,
                                          password: [0, 0, 0, 0])
        }
        #expect(error?.error == .authenticationFailed)
        #expect(error?.code == "auth_failed")
        #expect(fixture.writeCommandPages.isEmpty)
    }

    @Test(arguments: [false, true])
    func aMissingPasswordIsReportedWithNothingWritten(readProtected: Bool) async throws {
        let fixture = try await protectedFixture(.ntag213, readProtected: readProtected)
        let before = fixture.tag.memory
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 30), to: fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .authenticationRequired)
        #expect(error?.code == "auth_required")
        // Write protection only: the first WRITE (the highest page) is the test, NAKed, nothing written.
        // Read protection: the read of the pages to write is refused first, no WRITE at all.
        #expect(fixture.writeCommandPages == (readProtected ? [] : [12]))
        #expect(fixture.tag.memory == before)
    }

    @Test func aPasswordForATagWithoutPWDAuthIsRefused() async throws {
        let fixture = try await Type2OperationFixture(.ultralight)
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: fixture.transport, info: fixture.info,
                                          password: Self.password)
        }
        #expect(error?.code == "unsupported")
        #expect(fixture.operationCommands.isEmpty)
    }
}
