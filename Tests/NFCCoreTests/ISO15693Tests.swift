import NFCCore
@testable import PN532Sim
import Testing

/// ISO 15693: identification by manufacturer and IC reference, the spec's dump rules, Type 5 NDEF and
/// LOCK BLOCK, against PN532Sim's ``VirtualISO15693Tag`` (its own datasheet tables) on an
/// ``ISO15693TagLink``.
@Suite struct ISO15693Tests {
    /// A one-record NDEF Text message ("en"), short or long record by its length.
    static func textMessage(_ text: String) -> [UInt8] {
        let payload: [UInt8] = [0x02, 0x65, 0x6E] + Array(text.utf8)
        if payload.count < 256 { return [0xD1, 0x01, UInt8(payload.count), 0x54] + payload }
        let length = UInt32(payload.count)
        return [0xC1, 0x01, UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF),
                UInt8(length & 0xFF), 0x54] + payload
    }

    static func identify(_ tag: ISO15693TagLink) async throws -> CardInfo {
        try await TagIdentifier.identify(tag)
    }

    // MARK: Frames

    @Test func requestsAreAddressedWithTheUIDLeastSignificantByteFirst() {
        let request = ISO15693Request(command: 0x20, uid: [0xE0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x56, 0x78], parameters: [0x05])
        #expect(request.frame == [0x22, 0x20, 0x78, 0x56, 0x34, 0x12, 0x50, 0x01, 0x04, 0xE0, 0x05])
        #expect(request.blockNumber == 5)
        let extended = ISO15693Request(command: 0x30, parameters: [0x34, 0x01])
        #expect(extended.frame == [0x02, 0x30, 0x34, 0x01])
        #expect(extended.blockNumber == 0x134)
    }

    @Test func systemInformationAnswersParse() throws {
        // GET SYSTEM INFORMATION of an ICODE SLIX: flags 0F, UID, DSFID 00, AFI 00, 1Bh blocks − 1, 03h size − 1, IC ref 01.
        let basic = try ISO15693SystemInfo.parse([0x0F, 0x78, 0x56, 0x34, 0x12, 0x50, 0x01, 0x04, 0xE0, 0x00, 0x00, 0x1B, 0x03, 0x01])
        #expect(basic == ISO15693SystemInfo(uid: [0xE0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x56, 0x78], dsfid: 0, afi: 0,
                                            blockCount: 28, blockSize: 4, icReference: 0x01))
        // EXTENDED of an ST25DV64K: 07FFh blocks − 1, LSB first.
        let extended = try ISO15693SystemInfo.parseExtended([0x0F, 1, 2, 3, 4, 5, 6, 0x02, 0xE0, 0x00, 0x00, 0xFF, 0x07, 0x03, 0x26])
        #expect(extended.blockCount == 2048)
        #expect(extended.blockSize == 4)
        #expect(extended.icReference == 0x26)
        #expect(throws: NFCError.self) { try ISO15693SystemInfo.parse([0x0F, 1, 2, 3]) }
    }

    // MARK: Identification

    @Test func st25dv64kIsTypedByIcReferenceAndExtendedSize() async throws {
        let tag = try ISO15693TestTags.st25dv64k()
        let info = try await Self.identify(tag)
        #expect(info.type == .iso15693_ST25DV)
        #expect(info.product?.name == "ST25DV64K")
        #expect(info.probes == ["GET SYSTEM INFORMATION: no size", "EXTENDED GET SYSTEM INFORMATION: 2048 blocks"])
        #expect(tag.commands == [0x2B, 0x3B])
    }

    @Test func icodeSLIXNeedsNoExtendedCommand() async throws {
        let tag = try ISO15693TestTags.icodeSLIX()
        let info = try await Self.identify(tag)
        #expect(info.type == .iso15693_ICODE_SLIX)
        #expect(info.product?.name == "ICODE SLIX")
        #expect(tag.commands == [0x2B])
    }

    /// UID byte 1 (MSB first) is the manufacturer; NXP's type indicator, ST's IC reference and size, and
    /// TI's product bits name the product.
    @Test(arguments: [
        ([0xE0, 0x04, 0x01, 0x08, 0x01, 0x02, 0x03, 0x04] as [UInt8], nil as UInt8?, 80, CardType.iso15693_ICODE_SLIX2, "ICODE SLIX2" as String?),
        ([0xE0, 0x04, 0x01, 0x18, 0x01, 0x02, 0x03, 0x04], nil, 63, .iso15693_ICODE_DNA, "ICODE DNA"),
        ([0xE0, 0x04, 0x01, 0x00, 0x01, 0x02, 0x03, 0x04], nil, 28, .iso15693_generic, "ICODE SLI"),
        ([0xE0, 0x02, 0x23, 0x00, 0x01, 0x02, 0x03, 0x04], 0x23, 64, .iso15693_ST25TV, "ST25TV02K"),
        ([0xE0, 0x02, 0x23, 0x00, 0x01, 0x02, 0x03, 0x04], 0x23, 16, .iso15693_ST25TV, "ST25TV512"),
        ([0xE0, 0x02, 0x24, 0x00, 0x01, 0x02, 0x03, 0x04], 0x24, 128, .iso15693_ST25DV, "ST25DV04K"),
        ([0xE0, 0x07, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04], nil, 64, .iso15693_TagIt, "Tag-it HF-I Plus"),
        ([0xE0, 0x07, 0xC4, 0x00, 0x01, 0x02, 0x03, 0x04], nil, 8, .iso15693_TagIt, "Tag-it HF-I Pro"),
        ([0xE0, 0x16, 0x01, 0x00, 0x01, 0x02, 0x03, 0x04], nil, 16, .iso15693_generic, nil),
    ])
    func productsByManufacturerAndICReference(uid: [UInt8], icReference: UInt8?, blocks: Int, type: CardType,
                                              product: String?) async throws {
        let tag = try ISO15693TagLink(.plain("t", uid: uid, blockCount: blocks, icReference: icReference), uid: uid)
        let info = try await Self.identify(tag)
        #expect(info.type == type)
        #expect(info.product?.name == product)
    }

    @Test func aTagWithoutSystemInformationIsTypedFromItsUID() async throws {
        let tag = try ISO15693TestTags.tagItStandard()
        let info = try await Self.identify(tag)
        #expect(info.type == .iso15693_TagIt)
        #expect(info.product?.name == "Tag-it HF-I Standard")
        #expect(info.probes == ["GET SYSTEM INFORMATION: refused (command not supported)",
                                "EXTENDED GET SYSTEM INFORMATION: refused (command not supported)"])
    }

    // MARK: Dump

    /// The ST25DV64K's row has READ MULTIPLE BLOCKS (ST25DV datasheet, "Read Multiple Blocks" and
    /// "Extended Read Multiple Blocks"): 32 blocks a command, 64 commands for the 2048 blocks where single
    /// reads took 2048 — 23h up to block 255, 33h from 256 on (two-byte address and count, LSB first).
    @Test func st25dv64kDumpsAll2048BlocksWithReadMultipleBlocks() async throws {
        let pattern = (0..<8192).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 256) }
        let tag = try ISO15693TestTags.st25dv64k(memory: pattern)
        tag.setLocked(300)
        let info = try await Self.identify(tag)
        tag.forgetRequests()
        let progress = DumpProgress()
        var options = DumpOptions()
        options.progress = progress
        let dump = try await TagDumper.dump(info: info, transport: tag, options: options)
        #expect(dump.blocks.count == 2048)
        #expect(dump.blocks.map(\.number) == Array(0..<2048))
        #expect(dump.blocks.flatMap(\.data) == pattern)
        #expect(dump.blocks.filter(\.locked).map(\.number) == [300])
        let reads = tag.requests.filter { [0x20, 0x23, 0x30, 0x33].contains($0[1]) }
        #expect(reads.prefix(8).allSatisfy { $0[1] == 0x23 })
        #expect(reads.dropFirst(8).allSatisfy { $0[1] == 0x33 })
        #expect(reads.count == 64)
        #expect(reads[7].suffix(2) == [0xE0, 0x1F])  // blocks 224 to 255
        #expect(reads[8].suffix(4) == [0x00, 0x01, 0x1F, 0x00])  // block 256 and 32 blocks, LSB first
        #expect(dump.fact("Blocks") == "2048")
        #expect(dump.fact("Block Size") == "4 bytes")
        #expect(dump.fact("IC Reference") == "0x26")
        #expect(dump.fact("IC Manufacturer") == "STMicroelectronics")
        #expect(dump.fact("Blocks Read") == nil)
        #expect(dump.capabilities == [.readable])
        #expect(progress.read == 2048)
        #expect(progress.total == 2048)
        #expect(progress.unit == "blocks")
    }

    /// A READ MULTIPLE BLOCKS the tag refuses (or does not answer): the rest of the dump is read one
    /// block at a time, every block still there.
    @Test(arguments: [false, true])
    func aRefusedReadMultipleBlocksFallsBackToSingleReads(silent: Bool) async throws {
        let pattern = (0..<8192).map { UInt8(truncatingIfNeeded: $0 * 3) }
        let tag = try ISO15693TestTags.st25dv64k(memory: pattern, faults: .init(refused: [0x23: silent ? .silence : .notSupported]))
        let info = try await Self.identify(tag)
        tag.forgetRequests()
        let dump = try await TagDumper.dump(info: info, transport: tag)
        #expect(dump.blocks.flatMap(\.data) == pattern)
        #expect(tag.commands.filter { $0 == 0x23 }.count == 1)
        #expect(tag.commands.filter { $0 == 0x20 || $0 == 0x30 }.count == 2048)
    }

    @Test func icodeSLIXDumps28BlocksAndTheirLocks() async throws {
        let tag = try ISO15693TestTags.icodeSLIX(memory: Array(0..<112))
        tag.setLocked(3)
        let info = try await Self.identify(tag)
        let dump = try await TagDumper.dump(info: info, transport: tag)
        #expect(dump.blocks.count == 28)
        #expect(dump.blocks[27].data == [108, 109, 110, 111])
        #expect(dump.blocks.filter(\.locked).map(\.number) == [3])
        #expect(dump.facts.map(\.key) == ["IC Manufacturer", "Block Size", "Blocks", "DSFID", "AFI", "IC Reference"])
        #expect(dump.summary.userSummary == "Read ISO 15693 vicinity memory with 28 blocks.")
        #expect(!tag.commands.contains(0x30))
    }

    /// The spec: a tag that rejects EXTENDED READ SINGLE BLOCK is dumped up to block 255, `Blocks Read`
    /// 256 of 2048, Partially Readable — whether it answers an error or nothing.
    @Test(arguments: [false, true])
    func rejectedExtendedReadsGiveAPartialDump(silent: Bool) async throws {
        // A 2048-block tag whose system information says so, but whose EXTENDED READ SINGLE BLOCK
        // (30h) is refused on the link, as a tag without it would (the spec's partial case).
        let uid: [UInt8] = [0xE0, 0x16, 0x04, 0x00, 0x01, 0x02, 0x03, 0x04]
        var model = VirtualISO15693Model.plain("no extended read", uid: uid, blockCount: 2048)
        model.systemInfoFlags = 0x03
        model.hasExtendedCommands = true
        let tag = try ISO15693TagLink(model, uid: uid, faults: .init(refused: [0x30: silent ? .silence : .notSupported]))
        let info = try await Self.identify(tag)
        let dump = try await TagDumper.dump(info: info, transport: tag)
        #expect(dump.blocks.count == 256)
        #expect(dump.fact("Blocks Read") == "256 of 2048")
        #expect(dump.fact("Blocks") == "2048")
        #expect(dump.capabilities == [.readable, .partiallyReadable])
        #expect(tag.commands.filter { $0 == 0x30 }.count == 1)
    }

    @Test func aTagThatReportsNoSizeIsUnsupported() async throws {
        let tag = try ISO15693TestTags.tagItStandard()
        let info = try await Self.identify(tag)
        let error = await #expect(throws: NFCError.self) { try await TagDumper.dump(info: info, transport: tag) }
        #expect(error?.code == "unsupported")
        #expect(error?.message.contains("does not report its memory size") == true)
        #expect(!tag.commands.contains(0x20))
    }

    @Test func aTagWithoutTheSecurityStatusOptionIsStillReadInFull() async throws {
        let tag = try ISO15693TestTags.icodeSLIX(memory: Array(0..<112), faults: .init(refusesReadOption: true))
        tag.setLocked(2)
        let dump = try await TagDumper.dump(info: try await Self.identify(tag), transport: tag)
        #expect(dump.blocks.flatMap(\.data) == Array(0..<112))
        #expect(dump.blocks.allSatisfy { !$0.locked })
    }

    @Test func aReaderWithoutISO15693IsRefusedNamingIt() async throws {
        let info = CardInfo(type: .iso15693_generic, uid: ISO15693TestTags.slixUID)
        let transport = FrameOnlyISO15693Transport(target: Target(modulation: .iso15693, uid: info.uid))
        let error = await #expect(throws: NFCError.self) { try await TagDumper.dump(info: info, transport: transport) }
        #expect(error?.code == "unsupported")
        #expect(error?.message.contains("ISO 15693") == true)
        let result = try await NDEFReader.read(info: info, transport: transport)
        #expect(result.status == "not_read")
        let write = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: [0xD0, 0x00, 0x00], to: transport, info: info)
        }
        #expect(write?.code == "unsupported")
    }

    @Test func dumpsRoundTripThroughJSON() async throws {
        let tag = try ISO15693TestTags.icodeSLIX(memory: [0xE1, 0x40, 0x0D, 0x00, 0x03, 0x00, 0xFE])
        tag.setLocked(5)
        let dump = try await TagDumper.dump(info: try await Self.identify(tag), transport: tag)
        let imported = try TagDump.importJSON(Array(dump.exportJSON().utf8))
        #expect(imported == dump)
        #expect(imported.family == .iso15693(ISO15693SystemInfo(uid: ISO15693TestTags.slixUID, dsfid: 0, afi: 0,
                                                                 blockCount: 28, blockSize: 4, icReference: 0x01)))
    }

    // MARK: Type 5 NDEF

    /// The reference vector: 5 blocks × 4 bytes, text "A" ⇒ block 0 = `E1 40 02 00`, block 1 starts with 03.
    @Test func formatAndWriteFollowTheMLENRule() async throws {
        let uid: [UInt8] = [0xE0, 0x16, 0, 0, 1, 2, 3, 4]
        let tag = try ISO15693TagLink(.plain("5 blocks", uid: uid, blockCount: 5), uid: uid)
        let info = try await Self.identify(tag)
        let report = try await TagOperations.write(ndef: Self.textMessage("A"), to: tag, info: info)
        #expect(tag.block(0) == [0xE1, 0x40, 0x02, 0x00])
        #expect(tag.block(1).first == 0x03)
        #expect(report.capabilityContainer == [0xE1, 0x40, 0x02, 0x00])
        #expect(try await NDEFReader.read(info: info, transport: tag) == .message(Self.textMessage("A")))
        let tooLong = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: Self.textMessage("ABCDEFGHIJ"), to: tag, info: info)
        }
        #expect(tooLong?.code == "capacity_exceeded")
        #expect(tooLong?.pagesWritten == [Int]())
    }

    @Test func fourByteCCRoundTripOnICODESLIX() async throws {
        let tag = try ISO15693TestTags.icodeSLIX()
        let info = try await Self.identify(tag)
        let format = try await TagOperations.format(tag, info: info)
        // 112 bytes: MLEN (112 − 4) / 8 = 0Dh; LOCK BLOCK feature bit for a product that has it.
        #expect(format.capabilityContainer == [0xE1, 0x40, 0x0D, 0x08])
        #expect(try await NDEFReader.read(info: info, transport: tag) == .message([]))
        let message = Self.textMessage("ICODE SLIX, NFC Forum Type 5")
        tag.forgetRequests()
        let report = try await TagOperations.write(ndef: message, to: tag, info: info)
        #expect(report.capabilityContainer == [0xE1, 0x40, 0x0D, 0x08])
        #expect(report.messageLength == message.count)
        #expect(report.pagesWritten.first == 1)  // the CC stays
        #expect(try await NDEFReader.read(info: info, transport: tag) == .message(message))
        #expect(Array(tag.memory[4..<(6 + message.count)]) == [0x03, UInt8(message.count)] + message)
        // Torn-write order: the block holding the TLV length is written first with length 0, last with the length.
        let writes = tag.requests.filter { $0[1] == 0x21 && $0[10] == 1 }
        #expect(writes.count == 2)
        #expect(writes.first?[12] == 0x00)
        #expect(writes.last?[12] == UInt8(message.count))
        // The dump finds the same message.
        let dump = try await TagDumper.dump(info: info, transport: tag)
        #expect(dump.ndefMessage == message)
        #expect(dump.fact("NDEF Bytes") == "\(message.count)")
    }

    @Test func eightByteCCRoundTripOnST25DV64KWithExtendedWrites() async throws {
        let tag = try ISO15693TestTags.st25dv64k()
        let info = try await Self.identify(tag)
        // 1500 bytes of text: a 3-byte TLV length, and blocks past 255 (EXTENDED WRITE SINGLE BLOCK).
        let message = Self.textMessage(String(repeating: "0123456789", count: 150))
        let report = try await TagOperations.write(ndef: message, to: tag, info: info)
        // 8192 bytes: (8192 − 4) / 8 > FFh, so an 8-byte CC with MLEN (8192 − 8) / 8 = 03FFh; magic E2h.
        #expect(report.capabilityContainer == [0xE2, 0x40, 0x00, 0x00, 0x00, 0x00, 0x03, 0xFF])
        #expect(Array(tag.memory[8..<12]) == [0x03, 0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)])
        #expect(tag.commands.contains(0x31))
        #expect(try await NDEFReader.read(info: info, transport: tag) == .message(message))
    }

    /// ST's own CC (`E2 40 00 01 00 00 04 00`, MLEN counting the CC) is kept, and read within the memory.
    @Test func aVendorCCIsKept() async throws {
        let tag = try ISO15693TestTags.st25dv64k(memory: [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0x04, 0x00, 0x03, 0x00, 0xFE])
        let info = try await Self.identify(tag)
        #expect(try await NDEFReader.read(info: info, transport: tag) == .message([]))
        let message = Self.textMessage("hello")
        let report = try await TagOperations.write(ndef: message, to: tag, info: info)
        #expect(report.capabilityContainer == [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0x04, 0x00])
        #expect(!report.pagesWritten.contains(0) && !report.pagesWritten.contains(1))
        #expect(try await NDEFReader.read(info: info, transport: tag) == .message(message))
    }

    @Test func aReadOnlyCCRefusesWrites() async throws {
        let tag = try ISO15693TestTags.icodeSLIX(memory: [0xE1, 0x43, 0x0D, 0x00, 0x03, 0x00, 0xFE])
        let info = try await Self.identify(tag)
        tag.forgetRequests()
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: Self.textMessage("x"), to: tag, info: info)
        }
        #expect(error?.code == "tag_locked")
        #expect(!tag.commands.contains(0x21))
    }

    @Test func unformattedAndUnknownVersionTagsAreReportedAsSuch() async throws {
        let blank = try ISO15693TestTags.icodeSLIX()
        #expect(try await NDEFReader.read(info: try await Self.identify(blank), transport: blank) == .noMessage)
        let future = try ISO15693TestTags.icodeSLIX(memory: [0xE1, 0x80, 0x0D, 0x00, 0x03, 0x00, 0xFE])
        let result = try await NDEFReader.read(info: try await Self.identify(future), transport: future)
        #expect(result.status == "unreadable")
    }

    @Test func tagItWritesCarryTheOptionFlag() async throws {
        let tag = try ISO15693TestTags.tagItPlus()
        let info = try await Self.identify(tag)
        #expect(info.product?.name == "Tag-it HF-I Plus")
        let message = Self.textMessage("Tag-it")
        _ = try await TagOperations.write(ndef: message, to: tag, info: info)
        #expect(tag.requests.filter { $0[1] == 0x21 }.allSatisfy { $0[0] & 0x40 != 0 })
        #expect(try await NDEFReader.read(info: info, transport: tag) == .message(message))
    }

    @Test func aTagPulledMidWriteReportsTheBlocksWritten() async throws {
        let tag = try ISO15693TestTags.icodeSLIX(faults: .init(removedAtWriteFrom: 3))
        let info = try await Self.identify(tag)
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: Self.textMessage("a message of some length"), to: tag, info: info)
        }
        #expect(error?.code == "tag_removed")
        #expect(error?.pagesWritten == [0, 1, 2])
    }

    // MARK: Lock

    @Test func lockSetsTheCCReadOnlyAndLocksEveryAreaBlock() async throws {
        let tag = try ISO15693TestTags.icodeSLIX()
        let info = try await Self.identify(tag)
        _ = try await TagOperations.write(ndef: Self.textMessage("locked"), to: tag, info: info)
        let report = try await TagOperations.lock(tag, info: info, expectedUID: info.uid)
        #expect(report.capabilityContainer == [0xE1, 0x43, 0x0D, 0x08])
        // T5T area: CC 4 bytes + 13 × 8 = 108 bytes = blocks 0–26; block 27 stays writable.
        #expect(tag.lockedBlocks == Set(0..<27))
        let expectedBlocks: [Int] = [0] + Array(1..<27) + [0]
        #expect(report.pagesWritten == expectedBlocks)
        #expect(report.lockBytes == [UInt8](repeating: 0x01, count: 27))
        #expect(try await NDEFReader.read(info: info, transport: tag) == .message(Self.textMessage("locked")))
        let again = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: Self.textMessage("x"), to: tag, info: info)
        }
        #expect(again?.code == "tag_locked")
        // A second lock changes nothing.
        let second = try await TagOperations.lock(tag, info: info, expectedUID: info.uid)
        #expect(second.pagesWritten == [])
    }

    @Test func st25dvLockIsTheCCOnly() async throws {
        let tag = try ISO15693TestTags.st25dv64k()
        let info = try await Self.identify(tag)
        _ = try await TagOperations.format(tag, info: info)
        tag.forgetRequests()
        let report = try await TagOperations.lock(tag, info: info, expectedUID: info.uid)
        #expect(report.capabilityContainer == [0xE2, 0x43, 0x00, 0x00, 0x00, 0x00, 0x03, 0xFF])
        #expect(report.lockBytes == [])
        #expect(report.pagesWritten == [0])
        #expect(!tag.commands.contains(0x22) && !tag.commands.contains(0x32))
    }

    @Test func lockRefusesAnotherTagAndAnUnformattedOne() async throws {
        let tag = try ISO15693TestTags.icodeSLIX()
        let info = try await Self.identify(tag)
        let mismatch = await operationError { () async throws(TagOperationError) in
            try await TagOperations.lock(tag, info: info, expectedUID: [0xE0, 0x04, 0, 0, 0, 0, 0, 0])
        }
        #expect(mismatch?.code == "tag_mismatch")
        let blank = await operationError { () async throws(TagOperationError) in
            try await TagOperations.lock(tag, info: info, expectedUID: info.uid)
        }
        #expect(blank?.code == "unsupported")
        #expect(tag.lockedBlocks.isEmpty)
    }
}
