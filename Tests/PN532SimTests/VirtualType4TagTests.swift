import NFCCore
import Testing
@testable import PN532Sim

@Suite struct VirtualType4TagTests {
    let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
    let hi: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69]
    let selectApp: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]

    @Test func targetAndCapabilityContainer() throws {
        let tag = try VirtualType4Tag(uid: uid, ndef: hi, capacity: 0xFE, writable: true, mle: 0x3B, mlc: 0x34)
        #expect(tag.target.sak == 0x20)
        #expect(tag.target.atqa == [0x00, 0x44])
        #expect(tag.target.isISODEP)
        #expect(tag.capabilityContainer.hexString == "000F20003B00340406E10400FE0000")
        #expect(tag.ndefMessage == hi)
    }

    @Test func readsTheFileSystem() throws {
        let tag = try VirtualType4Tag(uid: uid, ndef: hi, capacity: 0xFE)
        _ = tag.activate()
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00, 0x02]) == [0x69, 0x86], "no file selected")
        #expect(tag.process(apdu: [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03]) == [0x6A, 0x82], "application not selected")
        #expect(tag.process(apdu: selectApp) == [0x90, 0x00])
        #expect(tag.process(apdu: [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x05]) == [0x6A, 0x82])
        #expect(tag.process(apdu: [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03]) == [0x90, 0x00])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00, 0x0F]).hexString == "000F2000FF00FF0406E10400FE0000" + "9000")
        #expect(tag.process(apdu: [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04]) == [0x90, 0x00])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00, 0x02]) == [0x00, 0x09, 0x90, 0x00])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x02, 0x09]) == hi + [0x90, 0x00])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x01, 0x00, 0x01]) == [0x6B, 0x00], "offset beyond the file")
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00]) == [0x67, 0x00], "no Le")
        #expect(tag.process(apdu: [0x90, 0x60, 0x00, 0x00, 0x00]) == [0x6E, 0x00], "no DESFire command set")
        #expect(tag.process(apdu: [0x00, 0x84, 0x00, 0x00, 0x08]) == [0x6D, 0x00])
    }

    @Test func honoursMLeAndMLc() throws {
        let tag = try VirtualType4Tag(uid: uid, ndef: hi, capacity: 0xFE, mle: 0x3B, mlc: 0x34)
        _ = tag.activate()
        _ = tag.process(apdu: selectApp)
        _ = tag.process(apdu: [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00, 0x3C]) == [0x67, 0x00])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00, 0x3B]).count == 0x3B + 2)
        #expect(tag.process(apdu: [0x00, 0xD6, 0x00, 0x02, 0x35] + [UInt8](repeating: 1, count: 0x35)) == [0x67, 0x00])
        #expect(tag.process(apdu: [0x00, 0xD6, 0x00, 0x02, 0x34] + [UInt8](repeating: 1, count: 0x34)) == [0x90, 0x00])
        #expect(tag.process(apdu: [0x00, 0xD6, 0x00, 0xFD, 0x02, 0x01, 0x02]) == [0x6B, 0x00], "past the end")
    }

    @Test func updatesOnlyWritableNDEFFiles() throws {
        let tag = try VirtualType4Tag(uid: uid, ndef: hi, capacity: 0xFE, writable: false)
        _ = tag.activate()
        _ = tag.process(apdu: selectApp)
        _ = tag.process(apdu: [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03])
        #expect(tag.process(apdu: [0x00, 0xD6, 0x00, 0x00, 0x01, 0x00]) == [0x69, 0x82], "CC is read-only")
        _ = tag.process(apdu: [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04])
        #expect(tag.process(apdu: [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00]) == [0x69, 0x82])
        tag.isWritable = true
        #expect(tag.process(apdu: [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00]) == [0x90, 0x00])
        #expect(tag.ndefMessage.isEmpty)
    }

    @Test func rejectsBadConstruction() {
        #expect(throws: NFCError.capacityExceeded(needed: 9, available: 8)) {
            try VirtualType4Tag(uid: uid, ndef: hi, capacity: 10)
        }
        #expect(throws: NFCError.self) { try VirtualType4Tag(uid: [1, 2], ndef: []) }
        #expect(throws: NFCError.self) { try VirtualType4Tag(uid: uid, mle: 3) }
    }

    @Test func apdusThroughTheTransport() async throws {
        let tag = try VirtualType4Tag(uid: uid, ndef: hi)
        let transport = VirtualTagTransport(tag: tag)
        #expect(try await transport.sendAPDU(selectApp) == [0x90, 0x00])
        #expect(transport.sentCommands == [selectApp])
    }
}

/// The simulator's Type 4 variants (its own table): mapping 3.0 with ENLEN and the odd-INS forms, and
/// the small-MLc tag, on the APDU level.
@Suite struct VirtualType4VariantTests {
    let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
    let hi: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69]
    let selectApp: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]

    func selected(_ tag: VirtualType4Tag, file: [UInt8] = [0xE1, 0x04]) -> VirtualType4Tag {
        _ = tag.activate()
        _ = tag.process(apdu: selectApp)
        _ = tag.process(apdu: [0x00, 0xA4, 0x00, 0x0C, 0x02] + file)
        return tag
    }

    @Test func mapping30HasTheExtendedTLVAndENLEN() throws {
        let tag = selected(try VirtualType4Tag(uid: uid, variant: .mapping30, ndef: hi, capacity: 0x9000), file: [0xE1, 0x03])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00, 0x11]).hexString == "00113000FF00FF0608E104000090000000" + "9000")
        _ = tag.process(apdu: [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00, 0x04]) == [0x00, 0x00, 0x00, 0x09, 0x90, 0x00])
        #expect(tag.nlenSize == 4)
        #expect(tag.ndefMessage == hi)
    }

    @Test func oddInstructionsAddressPast7FFF() throws {
        let tag = selected(try VirtualType4Tag(uid: uid, variant: .mapping30, capacity: 0x9000))
        // UPDATE BINARY D7 at 8000h: 54 03 008000, 53 02 AABB.
        #expect(tag.process(apdu: [0x00, 0xD7, 0x00, 0x00, 0x09, 0x54, 0x03, 0x00, 0x80, 0x00, 0x53, 0x02, 0xAA, 0xBB]) == [0x90, 0x00])
        #expect(Array(tag.ndefFile[0x8000...0x8001]) == [0xAA, 0xBB])
        #expect(tag.updates == [VirtualType4Tag.Update(offset: 0x8000, count: 2)])
        // READ BINARY B1 at 8000h, Le 4: the answer is 53 02 AABB.
        #expect(tag.process(apdu: [0x00, 0xB1, 0x00, 0x00, 0x05, 0x54, 0x03, 0x00, 0x80, 0x00, 0x04]) == [0x53, 0x02, 0xAA, 0xBB, 0x90, 0x00])
        #expect(tag.process(apdu: [0x00, 0xB1, 0x00, 0x00, 0x05, 0x55, 0x03, 0x00, 0x80, 0x00, 0x04]) == [0x67, 0x00], "no offset object")
        #expect(tag.process(apdu: [0x00, 0xD7, 0x00, 0x00, 0x09, 0x54, 0x03, 0x00, 0x90, 0x00, 0x53, 0x02, 0xAA, 0xBB]) == [0x6B, 0x00],
                "past the end")
        // A mapping 2.0 tag knows no odd INS.
        let plain = selected(try VirtualType4Tag(uid: uid, ndef: hi))
        #expect(plain.process(apdu: [0x00, 0xB1, 0x00, 0x00, 0x05, 0x54, 0x03, 0x00, 0x00, 0x00, 0x04]) == [0x6D, 0x00])
    }

    @Test func smallChunksEnforceMLc() throws {
        let tag = selected(try VirtualType4Tag(uid: uid, variant: .smallChunks, ndef: hi, capacity: 0x80))
        #expect(tag.process(apdu: [0x00, 0xD6, 0x00, 0x02, 0x0E] + [UInt8](repeating: 1, count: 14)) == [0x67, 0x00])
        #expect(tag.process(apdu: [0x00, 0xD6, 0x00, 0x02, 0x0D] + [UInt8](repeating: 1, count: 13)) == [0x90, 0x00])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00, 0x10]) == [0x67, 0x00], "Le above MLe 0Fh")
        #expect(tag.updates == [VirtualType4Tag.Update(offset: 2, count: 13)])
    }

    @Test func scenarioKindsBuildTheVariants() throws {
        let v3 = try #require(try VirtualTagFactory.make(TagSpec(id: "a", kind: .type4V3)) as? VirtualType4Tag)
        #expect(v3.isExtended && v3.mappingVersion == 0x30)
        let small = try #require(try VirtualTagFactory.make(TagSpec(id: "b", kind: .type4SmallMLc)) as? VirtualType4Tag)
        #expect(small.mle == 0x0F && small.mlc == 0x0D && !small.isExtended)
        #expect(TagKind(name: "type4_v3") == .type4V3)
        #expect(TagKind(name: "type4-small-mlc") == .type4SmallMLc)
        #expect(throws: NFCError.self) { try VirtualType4Tag(uid: uid, capacity: 0x9000) }
        #expect(throws: NFCError.self) { try VirtualType4Tag(uid: uid, mlc: 8, mappingVersion: 0x30, isExtended: true) }
    }
}
