import NFCCore
import PN532Sim
import Testing

/// Permanently locking virtual Type 2 tags: the lock bytes each product ends up with, the read-back, the
/// UID check, and that nothing can be written afterwards.
@Suite struct Type2LockTests {
    /// Per product: dynamic lock page and the bytes 0–3 it must hold after the lock (byte 3 keeps its
    /// factory value), from the datasheet figures behind the product rows' ``Type2Product/locking``.
    static let expectations: [(VirtualType2Model, dynamicPage: Int?, dynamicBytes: [UInt8])] = [
        (.ultralight, nil, []),
        (.ultralightC, 40, [0xFF, 0x00, 0x00, 0x00]),
        (.ultralightEV1_11, nil, []),
        (.ultralightEV1_21, 36, [0xFF, 0x03, 0x1F, 0xBD]),
        (.ntag203, 40, [0xFF, 0x00, 0x00, 0x00]),
        (.ntag210, nil, []),
        (.ntag212, 36, [0xFF, 0x03, 0x1F, 0xBD]),
        (.ntag213, 40, [0xFF, 0x0F, 0x3F, 0xBD]),
        (.ntag215, 130, [0xFF, 0x00, 0x0F, 0xBD]),
        (.ntag216, 226, [0xFF, 0x3F, 0x7F, 0xBD]),
    ]

    @Test(arguments: expectations)
    func locksEveryProduct(model: VirtualType2Model, dynamicPage: Int?, dynamicBytes: [UInt8]) async throws {
        let fixture = try await Type2OperationFixture(model)
        let ccBefore = fixture.page(3)
        let report = try await TagOperations.lock(fixture.transport, info: fixture.info,
                                                  expectedUID: Type2OperationFixture.uid)

        #expect(Array(fixture.page(2)[2...3]) == [0xFF, 0xFF])
        #expect(fixture.page(3) == Array(ccBefore.prefix(3)) + [0x0F])
        if let dynamicPage { #expect(fixture.page(dynamicPage) == dynamicBytes) }
        // CC first (the static bits lock its page), then the dynamic bits, then the static bits.
        let order = [3] + (dynamicPage.map { [$0] } ?? []) + [2]
        #expect(fixture.writeCommandPages == order)
        #expect(report.pagesWritten == order)
        #expect(report.capabilityContainer == fixture.page(3))
        #expect(report.lockBytes == [0xFF, 0xFF] + dynamicBytes.prefix(3))

        // Every user page is read-only now, by the tag's own rules.
        let map = try #require(Type2MemoryMap.forType(fixture.info.type))
        for page in 3...map.userEnd {
            let isLocked = Type2LockMap.isLocked(page: page, type: fixture.info.type, memory: fixture.tag.memory)
            #expect(isLocked, "page \(page)")
        }
        let writes = fixture.writeCommandPages.count
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .tagLocked)
        #expect(fixture.writeCommandPages.count == writes)
        // The tag itself refuses a raw WRITE of the last user page.
        await #expect(throws: NFCError.writeFailed(page: map.userEnd)) {
            try await Type2Command.write(page: map.userEnd, data: [1, 2, 3, 4], to: fixture.transport)
        }
    }

    @Test func lockingALockedTagWritesNothing() async throws {
        let fixture = try await Type2OperationFixture(.ntag213)
        _ = try await TagOperations.lock(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid)
        let writes = fixture.writeCommandPages.count
        let report = try await TagOperations.lock(fixture.transport, info: fixture.info,
                                                  expectedUID: Type2OperationFixture.uid)
        #expect(report.pagesWritten.isEmpty)
        #expect(fixture.writeCommandPages.count == writes)
    }

    @Test func anotherTagIsNotLocked() async throws {
        let fixture = try await Type2OperationFixture(.ntag213)
        let before = fixture.tag.memory
        let other: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.lock(fixture.transport, info: fixture.info, expectedUID: other)
        }
        #expect(error?.error == .tagMismatch(expected: other, actual: Type2OperationFixture.uid))
        #expect(error?.code == "tag_mismatch")
        #expect(fixture.operationCommands.isEmpty)
        #expect(fixture.tag.memory == before)
    }

    @Test func aSerialNumberThatDiffersFromTheSelectedUIDIsRefused() async throws {
        // The selected UID says one thing, pages 0–1 another (a swapped or cloned tag).
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            memory[4] ^= 0xFF
            tag.memory = memory
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.lock(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid)
        }
        #expect(error?.code == "tag_mismatch")
        #expect(fixture.writeCommandPages.isEmpty)
    }

    @Test func aFailedLockBitWriteIsFoundByTheReadBack() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            memory[15] = 0x0F  // CC already read-only: the dynamic lock page is the first write
            tag.memory = memory
            tag.corruptNextWrite()
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.lock(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid)
        }
        #expect(error?.error == .verifyFailed(page: 40))
        #expect(error?.pagesWritten == [40, 2])
    }

    @Test func aProtectedTagNeedsItsPassword() async throws {
        let password: [UInt8] = [0x01, 0x02, 0x03, 0x04]
        let fixture = try await Type2OperationFixture(.ntag215) { tag in
            tag.setPassword(password, pack: [0, 0])
            tag.setAuth0(2)
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.lock(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid)
        }
        #expect(error?.error == .authenticationRequired)
        #expect(fixture.writeCommandPages.isEmpty)
        _ = try await TagOperations.lock(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid,
                                         password: password)
        #expect(fixture.page(130) == [0xFF, 0x00, 0x0F, 0xBD])
    }

    @Test func anUnformattedTagKeepsItsBlankCC() async throws {
        let fixture = try await Type2OperationFixture(.ultralight) { tag in
            var memory = tag.memory
            memory.replaceSubrange(12..<16, with: [0, 0, 0, 0])
            tag.memory = memory
        }
        let report = try await TagOperations.lock(fixture.transport, info: fixture.info,
                                                  expectedUID: Type2OperationFixture.uid)
        #expect(fixture.page(3) == [0, 0, 0, 0])
        #expect(report.pagesWritten == [2])
    }

    @Test func aProductWithUnknownLockBitsIsRefused() async throws {
        // NTAG I2C 1K: identification keeps it a generic Ultralight; its lock bytes live elsewhere.
        let fixture = try await Type2OperationFixture(.custom(version: [0x00, 0x04, 0x04, 0x05, 0x02, 0x01, 0x13, 0x03],
                                                              totalPages: 231))
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.lock(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid)
        }
        #expect(error?.code == "unsupported")
        #expect(fixture.writeCommandPages.isEmpty)
    }

    // MARK: The table

    /// The lock bits of each row are exactly the bits ``Type2LockMap`` decodes for the product (so the
    /// reader's notion of "locked" and the lock procedure agree), and block-locking bits never overlap them.
    @Test func theDynamicLockTableMatchesTheLockMap() {
        let types = CardType.knownCases.filter { Type2MemoryMap.forType($0) != nil }
        for type in types {
            let map = Type2MemoryMap.forType(type)
            let layout = Type2Product.forType(type)?.locking.dynamicLayout
            #expect((layout != nil) == (map?.dynamicLockPage != nil), "\(type)")
            guard let layout else { continue }
            var mask: [UInt8] = [0, 0, 0]
            for bit in Type2LockMap.dynamicBits(for: type) { mask[bit.byte] |= 1 << bit.bit }
            #expect(layout.lockBits == mask, "\(type)")
            #expect(zip(layout.lockBits, layout.blockLockingBits).allSatisfy { $0 & $1 == 0 }, "\(type)")
        }
    }

    /// Granularity per datasheet: NTAG213 and MF0UL21/NTAG212 lock 2 pages a bit, NTAG215/216 16 pages a
    /// bit, Ultralight C / NTAG203 4 pages a bit.
    @Test(arguments: [
        (CardType.ntag213, 12, 2), (.ntag212, 10, 2), (.mifareUltralightEV1_MF0UL21, 10, 2), (.ntag215, 8, 16),
        (.ntag216, 14, 16), (.mifareUltralightC, 6, 4), (.ntag203, 6, 4),
    ])
    func dynamicLockGranularity(type: CardType, bits: Int, pagesPerBit: Int) {
        let dynamicBits = Type2LockMap.dynamicBits(for: type)
        #expect(dynamicBits.count == bits)
        #expect(dynamicBits.first?.pages == 16...(15 + pagesPerBit))
    }
}
