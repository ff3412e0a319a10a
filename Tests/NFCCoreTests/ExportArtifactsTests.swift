import Testing
@testable import NFCCore

/// `exportAll` (reference notes §4.7).
@Suite struct ExportArtifactsTests {
    static let deadbeef = TagDump(cardInfo: CardInfo(type: .ntag213, uid: [0xDE, 0xAD, 0xBE, 0xEF]),
                                  pages: [Page(number: 0, data: [1, 2, 3, 4]), Page(number: 1, data: [5, 6, 7, 8])])

    /// Pages 0 and 1 of an NTAG213: partial, so the fixed-offset files (MFD, Proxmark3), which would
    /// hold zeros for pages 2–44, are left out (issue 10); the raw binary holds the pages read.
    @Test func partialPageDumpHasNoFixedOffsetFiles() throws {
        let artifacts = try Self.deadbeef.exportAll()
        #expect(artifacts.map(\.fileName) == ["ntag-deadbeef.txt", "ntag-deadbeef.json", "ntag-deadbeef.bin", "ntag-deadbeef.nfc"])
        #expect(artifacts[2].data == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    /// Six artifacts as upstream, then the Proxmark3 JSON (the key file and `.eml` are Classic's).
    @Test func sevenArtifactsForAPageDump() throws {
        let deadbeef = ExportFixtures.filled(Self.deadbeef)
        let artifacts = try deadbeef.exportAll()
        #expect(artifacts.map(\.fileName) == ["ntag-deadbeef.txt", "ntag-deadbeef.json", "ntag-deadbeef.bin",
                                              "ntag-deadbeef.mfd", "ntag-deadbeef.nfc", "ntag-deadbeef-proxmark3.bin",
                                              "ntag-deadbeef-proxmark3.json"])
        #expect(artifacts.map(\.contentType) == ["text/plain", "application/json", "application/octet-stream",
                                                 "application/octet-stream", "text/plain", "application/octet-stream",
                                                 "application/json"])
        #expect(artifacts[6].data == Array(try deadbeef.exportProxmark3JSON().utf8))
        #expect(artifacts[2].data.prefix(8) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(artifacts[3].data.prefix(8) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(artifacts[3].data == (try deadbeef.exportLibNFCMFD()))
        #expect(artifacts[4].data == Array(try deadbeef.exportFlipperNFC().utf8))
        #expect(artifacts[5].data == (try deadbeef.exportProxmark3MFU()))
        #expect(artifacts[1].data == Array(try deadbeef.exportJSON().utf8))
        #expect(artifacts[0].data == Array(deadbeef.exportHex().utf8))
    }

    @Test func malformedPagesLeaveThePageFormatsOut() throws {
        var dump = Self.deadbeef
        dump.pages.append(Page(number: 2, data: [1, 2]))
        #expect(try dump.exportAll().map(\.fileName) == ["ntag-deadbeef.txt", "ntag-deadbeef.json", "ntag-deadbeef.bin"])
    }

    @Test(arguments: [
        (CardType.mifareUltralightC, [UInt8]([0x04, 0xA1]), "mifare-ultralight-04a1"),
        (.type4NDEF, [0x08, 0x01], "nfc-forum-type-4-0801"),
        (.iso15693_generic, [0xE0], "iso-15693-e0"),
        (.mifareDesfireEV1, [0x04], "mifare-desfire-04"),
        (.ePassport, [0x01], "passport-emrtd-01"),
        (.jewelTopaz, [0x01], "jewel-topaz-01"),
    ])
    func baseNames(type: CardType, uid: [UInt8], expected: String) {
        #expect(TagDump(cardInfo: CardInfo(type: type, uid: uid)).exportBaseName == expected)
    }
}
