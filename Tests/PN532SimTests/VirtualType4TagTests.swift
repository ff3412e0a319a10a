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
