import NFCCore
import Testing
@testable import PN532Sim

/// The simulator's eMRTD chip answers like a passport without BAC / PACE, and logs what it got.
@Suite struct EMRTDVirtualTagTests {
    @Test func answersAsAPassportWithoutAccessKeys() throws {
        let tag = try VirtualEMRTDTag(uid: [0x08, 0x01, 0x02, 0x03])
        #expect(tag.target.sak == 0x20 && tag.target.atqa == [0x00, 0x04] && tag.target.isISODEP)
        _ = tag.activate()
        #expect(tag.process(apdu: [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]) == [0x6A, 0x82])
        #expect(tag.process(apdu: [0x00, 0xB0, 0x00, 0x00, 0x04]) == [0x69, 0x82])
        #expect(tag.process(apdu: [0x00, 0xA4, 0x04, 0x0C, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]) == [0x90, 0x00])
        #expect(tag.process(apdu: [0x00, 0xA4, 0x02, 0x0C, 0x02, 0x01, 0x1E]) == [0x69, 0x82], "EF.COM needs secure messaging")
        #expect(tag.process(apdu: [0x90, 0x60, 0x00, 0x00, 0x00]) == [0x6E, 0x00])
        #expect(tag.process(apdu: [0x00, 0x84, 0x00, 0x00, 0x08]).suffix(2) == [0x90, 0x00])
        #expect(tag.receivedAPDUs.count == 6)
        #expect(tag.receivedAPDUs.last == [0x00, 0x84, 0x00, 0x00, 0x08])
        let dump = try #require(TagMemoryDump.make(tag))
        #expect(dump.apdus == tag.receivedAPDUs)
        #expect(try VirtualTagFactory.make(TagSpec(id: "p", kind: .emrtd)) is VirtualEMRTDTag)
        #expect(throws: NFCError.self) { try VirtualEMRTDTag(uid: [1, 2, 3]) }
    }
}
