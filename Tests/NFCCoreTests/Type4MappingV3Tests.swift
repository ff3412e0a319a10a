import NFCCore
import PN532Sim
import Testing

/// Type 4 mapping version 3.0 (T4T v3.0 §5: the extended NDEF File Control TLV `06 08`, ENLEN) and the
/// MLe / MLc chunking, against the simulator's Type 4 variants.
@Suite struct Type4MappingV3Tests {
    /// A mapping 3.0 CC: CCLEN 0011, version 30, MLe 00FF, MLc 00FF, TLV 06 08 { E104, size 00010000,
    /// read 00, write 00 } — the layout of T4T v3.0's ENDEF-File_Ctrl_TLV.
    static let extendedVector = "00113000FF00FF0608E1040001000000 00".replacingOccurrences(of: " ", with: "")

    @Test func parsesTheExtendedCapabilityContainer() throws {
        let cc = try Type4CapabilityContainer(bytes: try #require([UInt8](hex: Self.extendedVector)))
        #expect(cc.length == 0x11)
        #expect(cc.mappingVersion == 0x30)
        #expect(cc.isExtended)
        #expect(cc.nlenSize == 4)
        #expect(cc.ndefFileID == [0xE1, 0x04])
        #expect(cc.maxNDEFFileSize == 0x10000)
        #expect(cc.maxMessageSize == 0x10000 - 4)
        #expect(cc.isWritable)
        #expect(cc.bytes.hexString == Self.extendedVector)
    }

    @Test func theExtendedTLVIsAMapping30FormOnly() throws {
        let good = try #require([UInt8](hex: Self.extendedVector))
        var asV2 = good
        asV2[2] = 0x20
        #expect(throws: NFCError.invalidResponse(asV2)) { try Type4CapabilityContainer(bytes: asV2) }
        let truncated = Array(good.prefix(16))
        #expect(throws: NFCError.invalidResponse(truncated)) { try Type4CapabilityContainer(bytes: truncated) }
        var tooSmall = good
        tooSmall[11...14] = [0x00, 0x00, 0x00, 0x03]
        #expect(throws: NFCError.invalidResponse(tooSmall)) { try Type4CapabilityContainer(bytes: tooSmall) }
        // Mapping 3.0 with the 2.0 TLV keeps a 2-byte NLEN.
        var plain = try #require([UInt8](hex: Type4Tests.ccVector))
        plain[2] = 0x30
        let cc = try Type4CapabilityContainer(bytes: plain)
        #expect(cc.mappingVersion == 0x30)
        #expect(!cc.isExtended)
        #expect(cc.nlenSize == 2)
        #expect(cc.bytes == plain)
    }

    @Test func readsAnENLENFileWithTheSecondCCRead() async throws {
        let tag = try VirtualType4Tag(uid: Type4Tests.uid, variant: .mapping30, ndef: Type4Tests.hi)
        #expect(tag.capabilityContainer.hexString == "00113000FF00FF0608E104000008000000")
        let transport = VirtualTagTransport(tag: tag)
        #expect(try await Type4NDEF.read(transport: transport) == Type4Tests.hi)
        #expect(transport.sentCommands.map(\.hexString) == [
            "00A4040007D276000085010100", "00A4000C02E103", "00B000000F", "00B0000F02", "00A4000C02E104",
            "00B0000004", "00B0000409",
        ])
    }

    @Test func writesENLENZeroThenDataThenENLEN() async throws {
        let tag = try VirtualType4Tag(uid: Type4Tests.uid, variant: .mapping30, ndef: Type4Tests.hi)
        let transport = VirtualTagTransport(tag: tag)
        try await Type4NDEF.write(Type4Tests.hello, transport: transport)
        #expect(tag.ndefMessage == Type4Tests.hello)
        #expect(Array(tag.ndefFile.prefix(4)) == [0x00, 0x00, 0x00, 0x9D])
        #expect(tag.updates == [
            VirtualType4Tag.Update(offset: 0, count: 4), VirtualType4Tag.Update(offset: 4, count: 157),
            VirtualType4Tag.Update(offset: 0, count: 4),
        ])
        let updates = transport.sentCommands.filter { $0[1] == 0xD6 }
        #expect(updates.first?.hexString == "00D600000400000000")
        #expect(updates.last?.hexString == "00D60000040000009D")
        let dump = try await Type4Dump.dump(info: CardInfo(type: .type4NDEF, uid: Type4Tests.uid), transport: transport)
        #expect(dump.fact("Mapping Version") == "0x30")
        #expect(dump.files[0].data == tag.capabilityContainer)
        #expect(dump.files[1].data == [0x00, 0x00, 0x00, 0x9D] + Type4Tests.hello)
        #expect(dump.ndefMessage == Type4Tests.hello)
    }

    /// Past offset 7FFFh an ENDEF file is read with `B1` and written with `D7`, the offset in data object
    /// 54 and the data in 53 (ISO/IEC 7816-4 §11.3.3); below it the plain B0 / D6 stay.
    @Test func farOffsetsUseTheOddInstructions() async throws {
        let tag = try VirtualType4Tag(uid: Type4Tests.uid, variant: .mapping30, capacity: 40_000)
        let transport = VirtualTagTransport(tag: tag)
        let message = (0..<33_500).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try await Type4NDEF.write(message, transport: transport)
        #expect(tag.ndefMessage == message)
        let sent = transport.sentCommands
        let oddUpdates = sent.filter { $0[1] == 0xD7 }
        #expect(!oddUpdates.isEmpty)
        for command in oddUpdates {
            #expect(Array(command[2...6]) == [0x00, 0x00, command[4], 0x54, 0x03])
            let offset = Int(command[7]) << 16 | Int(command[8]) << 8 | Int(command[9])
            #expect(offset > 0x7FFF)
            #expect(command[10] == 0x53)
            #expect(command.count - 5 <= 0xFF)
        }
        #expect(sent.filter { $0[1] == 0xD6 }.allSatisfy { (Int($0[2]) << 8 | Int($0[3])) <= 0x7FFF })
        // The log covers the file without gaps: ENLEN 0, every data byte once, ENLEN.
        let data = tag.updates.dropFirst().dropLast()
        #expect(tag.updates.first == VirtualType4Tag.Update(offset: 0, count: 4))
        #expect(tag.updates.last == VirtualType4Tag.Update(offset: 0, count: 4))
        #expect(data.reduce(4) { $0 == $1.offset ? $0 + $1.count : -1 } == 4 + message.count)

        let reader = VirtualTagTransport(tag: tag)
        #expect(try await Type4NDEF.read(transport: reader) == message)
        let oddReads = reader.sentCommands.filter { $0[1] == 0xB1 }
        // B0 reads 255 bytes from offset 4 on; the first read past 7FFFh starts at 4 + 129 × 255 = 8083h.
        // Le 255 = 252 data bytes + `53 81 FC`; the last read (101 bytes left) asks for 101 + `53 65`.
        #expect(oddReads.first?.hexString == "00B1000005540300" + "8083FF")
        #expect(oddReads.last?.hexString == "00B1000005540300" + "827B67")
        #expect(reader.sentCommands.filter { $0[1] == 0xB0 }.allSatisfy { (Int($0[2]) << 8 | Int($0[3])) <= 0x7FFF })
    }

    @Test func smallMLcWritesInThirteenByteChunks() async throws {
        let tag = try VirtualType4Tag(uid: Type4Tests.uid, variant: .smallChunks, capacity: 0x100)
        #expect(tag.mle == 0x0F)
        #expect(tag.mlc == 0x0D)
        let transport = VirtualTagTransport(tag: tag)
        try await Type4NDEF.write(Type4Tests.hi + Type4Tests.hi, transport: transport)
        #expect(tag.updates == [
            VirtualType4Tag.Update(offset: 0, count: 2), VirtualType4Tag.Update(offset: 2, count: 13),
            VirtualType4Tag.Update(offset: 15, count: 5), VirtualType4Tag.Update(offset: 0, count: 2),
        ])
        let reader = VirtualTagTransport(tag: tag)
        #expect(try await Type4NDEF.read(transport: reader) == Type4Tests.hi + Type4Tests.hi)
        #expect(reader.sentCommands.suffix(2).map(\.hexString) == ["00B000020F", "00B0001103"])
    }

    @Test func aReadOnlyMapping30TagRefusesBeforeAnyUpdate() async throws {
        let tag = try VirtualType4Tag(uid: Type4Tests.uid, variant: .mapping30, ndef: Type4Tests.hi, writable: false)
        let transport = VirtualTagTransport(tag: tag)
        await #expect(throws: NFCError.tagLocked) { try await Type4NDEF.write(Type4Tests.hello, transport: transport) }
        #expect(!transport.sentCommands.contains { $0[1] == 0xD6 || $0[1] == 0xD7 })
        #expect(tag.updates.isEmpty)
        #expect(tag.ndefMessage == Type4Tests.hi)
    }

    @Test func aDESFireNDEFApplicationUsesTheSameMapping() async throws {
        // DESFireFamily hands its NDEF application to the Type 4 code: the verbs see only APDUs, so
        // a DESFire card type reaches the same write (and its NLEN-first order).
        let tag = try VirtualType4Tag(uid: Type4Tests.uid, variant: .smallChunks, ndef: Type4Tests.hi, capacity: 0x80)
        let family = try #require(TagFamilies.family(for: .mifareDesfireEV2))
        let info = CardInfo(type: .mifareDesfireEV2, uid: Type4Tests.uid)
        let report = try await family.write(ndef: Type4Tests.hello.prefix(40).map { $0 }, to: VirtualTagTransport(tag: tag),
                                            info: info, password: nil)
        #expect(report.messageLength == 40)
        #expect(tag.updates.first == VirtualType4Tag.Update(offset: 0, count: 2))
        #expect(tag.updates.last == VirtualType4Tag.Update(offset: 0, count: 2))
        #expect(tag.updates.dropFirst().dropLast().map(\.count) == [13, 13, 13, 1])
    }
}
