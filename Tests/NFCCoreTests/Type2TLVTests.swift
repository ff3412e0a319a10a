@testable import NFCCore
import Testing

@Suite struct Type2TLVTests {
    /// Tag memory: pages 0-3 then `area` from page 4.
    private func memory(_ area: [UInt8]) -> [UInt8] {
        [UInt8](repeating: 0, count: 12) + [0xE1, 0x10, 0x06, 0x0F] + area
    }

    @Test func nfcpyImageWithLockAndMemoryControlTLVs() throws {
        // nfcpy test_tag_tt2.py: a Memory Control TLV reserves 4 bytes at offset 28 and a Lock Control TLV
        // two lock bytes at offset 48, which fall inside the NDEF message and must be skipped.
        var area: [UInt8] = [0x00, 0x01, 0x03, 0xC0, 0x10, 0x22, 0x02, 0x03, 0x70, 0x04, 0x02, 0x00,
                             0xFF, 0xFF, 0xFF, 0xFF, 0x03, 0x13, 0xD5, 0x00, 0x10]
        area += (0x00...0x0F).map { UInt8($0) }
        // Insert the two lock bytes at absolute offset 48 (area offset 32).
        area.insert(contentsOf: [0xAA, 0xBB], at: 32)
        area.append(0xFE)
        let message = try #require(NFCForumTLV.extractMessage(fromMemory: memory(area)))
        #expect(message.hexString.lowercased() == "d50010000102030405060708090a0b0c0d0e0f")
    }

    /// The writer's read-ahead counts the TLV area instead of building it: the count is the built
    /// area's, at every header size and the limit.
    @Test func theAreaLengthIsTheBuiltAreasCount() throws {
        for count in [0, 1, 254, 255, 256, 0xFFFE] {
            let built = try NFCForumTLV.makeArea(message: [UInt8](repeating: 0x42, count: count))
            #expect(NFCForumTLV.areaLength(messageLength: count) == built.count, "\(count)")
        }
        #expect(NFCForumTLV.areaLength(messageLength: 0xFFFF) == nil)
        // NTAG213: a 254-byte message takes pages 4…68 (TLV 257 bytes), capped at the last user page 39.
        #expect(Type2NDEFWriter.lastPage(of: [UInt8](repeating: 0, count: 10), map: .ntag213) == 7)
        #expect(Type2NDEFWriter.lastPage(of: [UInt8](repeating: 0, count: 254), map: .ntag213) == 39)
    }

    /// One header-size rule for building and counting: one length byte up to 254, FFh + two from 255.
    @Test func theHeaderLengthSwitchesAt255Bytes() throws {
        for (count, header) in [(0, 2), (254, 2), (255, 4), (0xFFFE, 4)] {
            #expect(NFCForumTLV.headerLength(for: count) == header, "\(count)")
            let built = try NFCForumTLV.makeArea(message: [UInt8](repeating: 0x42, count: count))
            #expect(built.count - count - 1 == header, "\(count)")
        }
    }

    @Test func shortAndLongLengths() throws {
        let short = [UInt8](repeating: 0x42, count: 254)
        #expect(try NFCForumTLV.makeArea(message: short).prefix(2) == [0x03, 0xFE])
        let long = [UInt8](repeating: 0x42, count: 255)
        let area = try NFCForumTLV.makeArea(message: long)
        #expect(Array(area.prefix(4)) == [0x03, 0xFF, 0x00, 0xFF])
        #expect(area.last == 0xFE)
        #expect(area.count == 4 + 255 + 1)
        #expect(NFCForumTLV.extractMessage(fromMemory: memory(area)) == long)
        #expect(NFCForumTLV.extractMessage(fromMemory: memory(try NFCForumTLV.makeArea(message: short))) == short)
    }

    @Test func capacityPaddingAndTerminator() throws {
        #expect(try NFCForumTLV.makeArea(message: [0xD0, 0x00, 0x00], capacity: 8, padded: true)
            == [0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE, 0x00, 0x00])
        // A message TLV that fills the capacity exactly leaves the terminator out.
        #expect(try NFCForumTLV.makeArea(message: [1, 2, 3, 4], capacity: 6) == [0x03, 0x04, 1, 2, 3, 4])
        #expect(throws: NFCError.capacityExceeded(needed: 8, available: 6)) {
            try NFCForumTLV.makeArea(message: [1, 2, 3, 4, 5], capacity: 6)
        }
        #expect(try NFCForumTLV.makeArea(message: []) == [0x03, 0x00, 0xFE])
    }

    @Test func corruptDataNeverTraps() {
        // Truncated NDEF value, truncated long length, length past the end, terminator first, nothing.
        #expect(NFCForumTLV.extractMessage(fromMemory: memory([0x03, 0x10, 0x01, 0x02])) == nil)
        #expect(NFCForumTLV.extractMessage(fromMemory: memory([0x03, 0xFF, 0x01])) == nil)
        #expect(NFCForumTLV.extractMessage(fromMemory: memory([0x01, 0xFF, 0xFF, 0xFF])) == nil)
        #expect(NFCForumTLV.extractMessage(fromMemory: memory([0xFE, 0x03, 0x01, 0x55])) == nil)
        #expect(NFCForumTLV.extractMessage(fromMemory: memory([])) == nil)
        #expect(NFCForumTLV.extractMessage(fromMemory: []) == nil)
        #expect(NFCForumTLV.extractMessage(fromMemory: memory([UInt8](repeating: 0, count: 48))) == nil)
        // A control TLV reserving bytes far away or with a zero size field.
        #expect(NFCForumTLV.extractMessage(fromMemory: memory([0x02, 0x03, 0xFF, 0x00, 0x0F, 0x03, 0x01, 0x55])) == [0x55])
        // A Lock Control TLV too short to mean anything is skipped like any TLV.
        #expect(NFCForumTLV.extractMessage(fromMemory: memory([0x01, 0x01, 0x00, 0x03, 0x01, 0x55])) == [0x55])
        // Size 0 means 256 lock bits: 32 reserved bytes from page 4 swallow the rest of this memory.
        #expect(NFCForumTLV.extractMessage(fromMemory: memory([0x01, 0x03, 0x40, 0x00, 0x02, 0x03, 0x01, 0x55])) == nil)
        // Every byte value at every position: must return, never trap.
        for value in UInt8.min...UInt8.max {
            _ = NFCForumTLV.extractMessage(fromMemory: memory([value, value, value, 0x03, value]))
        }
    }

    @Test func proprietaryAndNullTLVsAreSkipped() {
        let area: [UInt8] = [0x00, 0x00, 0xFD, 0x02, 0xAA, 0xBB, 0x03, 0x02, 0x11, 0x22, 0xFE]
        #expect(NFCForumTLV.extractMessage(fromMemory: memory(area)) == [0x11, 0x22])
    }

    @Test func extractFromPagesStopsAtAGap() {
        let pages = [Page(number: 4, data: [0x03, 0x02, 0x11, 0x22]), Page(number: 5, data: [0xFE, 0, 0, 0])]
        #expect(NFCForumTLV.extractMessage(from: pages) == [0x11, 0x22])
        let gap = [Page(number: 4, data: [0x03, 0x05, 0x11, 0x22]), Page(number: 6, data: [0x33, 0x44, 0x55, 0xFE])]
        #expect(NFCForumTLV.extractMessage(from: gap) == nil)
        let oddPage = [Page(number: 4, data: [0x03, 0x02, 0x11]), Page(number: 5, data: [0x22, 0xFE, 0, 0])]
        #expect(NFCForumTLV.extractMessage(from: oddPage) == nil)
    }
}
