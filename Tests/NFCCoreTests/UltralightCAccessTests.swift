import NFCCore
import Testing

@Suite struct UltralightCAccessTests {
    @Test func upstreamVectorIsWriteOnly() throws {
        // Upstream test vector READ 30 28 → AUTH0 10h, AUTH1 01h. Upstream said "Read and write" (inverted);
        // MF0ICU2 §7.5.8: AUTH1 bit 0 = 1 restricts writes only.
        let answer = [UInt8](hex: "90919293949596971000000001000000") ?? []
        let access = try UltralightCAccess(pages40Through43: answer)
        #expect(access.auth0 == 0x10 && access.auth1 == 0x01)
        #expect(access.protection == .writeOnly)
        #expect(access.protection.rawValue == "Write-only")
        #expect(access.firstProtectedPage == 16)
        #expect(access.protectsWrites && !access.protectsReads)
        #expect(access.facts == [Fact(key: "Protection", value: "Write-only"), Fact(key: "First Protected Page", value: "16")])
    }

    @Test func auth1BitZeroClearProtectsReadsAndWrites() {
        let access = UltralightCAccess(auth0: 0x10, auth1: 0x00)
        #expect(access.protection == .readAndWrite)
        #expect(access.protection.rawValue == "Read and write")
        #expect(access.protectsReads)
    }

    @Test(arguments: [UInt8(0x30), 0x31, 0x3F, 0xFF])
    func auth0FromThirtyHexDisables(auth0: UInt8) {
        // Upstream treated only exactly 30h as "off".
        let access = UltralightCAccess(auth0: auth0, auth1: 0x00)
        #expect(access.protection == .disabled)
        #expect(access.firstProtectedPage == nil)
        #expect(access.facts == [Fact(key: "Protection", value: "Disabled")])
    }

    @Test func decodingRefusesShortAnswersAndMissingPages() {
        #expect(throws: NFCError.invalidResponse([0x00])) { try UltralightCAccess(pages40Through43: [0x00]) }
        #expect(UltralightCAccess(pages: [Page(number: 42, data: [0x10, 0, 0, 0])]) == nil)
        #expect(UltralightCAccess(pages: [Page(number: 42, data: [0x10, 0, 0, 0]), Page(number: 43, data: [])]) == nil)
        #expect(UltralightCAccess(pages: [Page(number: 42, data: [0x2F, 0, 0, 0]), Page(number: 43, data: [0, 0, 0, 0])])?
            .protection == .readAndWrite)
    }
}
