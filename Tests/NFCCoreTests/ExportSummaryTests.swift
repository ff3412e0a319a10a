import Testing
@testable import NFCCore

/// DumpSummary and inferred capabilities (reference notes §3.1), binary and hex text (§4.1, §4.2).
@Suite struct ExportSummaryTests {
    static let uid: [UInt8] = [0x01, 0x02, 0x03, 0x04]

    @Test func type2Summary() {
        let dump = TagDump(cardInfo: CardInfo(type: .ntag213, uid: Self.uid),
                           pages: [Page(number: 4, data: [3, 3, 0xD1, 1]), Page(number: 5, data: [5, 6, 7, 8])])
        let summary = dump.summary
        #expect(summary.userSummary == "Read a Type 2 style memory map with 2 pages.")
        #expect(summary.technicalSummary == "2 pages · export 8 bytes")
        #expect(summary.capabilities == [.readable])
    }

    @Test(arguments: [
        (CardType.mifareUltralight, "Read a Type 2 style memory map with 1 pages."),
        (.type4NDEF, "Read an NFC Forum Type 4 file layout with 1 pages."),
        (.felicaLiteS, "Read FeliCa Type 3 blocks with 1 pages."),
        (.iso15693_generic, "Read ISO 15693 vicinity memory with 1 pages."),
        (.mifareDesfireEV1, "Enumerated DESFire applications and captured 1 pages."),
        (.ePassport, "Passport chips use the dedicated eMRTD workflow instead of generic dump reads."),
        (.mifareClassic1K, "Captured 1 pages from MIFARE Classic 1K."),
        (.unknown(atqa: [0xFF, 0xFF], sak: 0x55), "Captured 1 pages from Unknown (ATQA: FFFF, SAK: 55)."),
    ])
    func userSummaryByFamily(type: CardType, expected: String) {
        #expect(TagDump(cardInfo: CardInfo(type: type, uid: Self.uid), pages: [Page(number: 0, data: [1, 2, 3, 4])])
            .summary.userSummary == expected)
    }

    @Test func storageSummaryPrecedence() {
        let info = CardInfo(type: .felicaStandard, uid: Self.uid)
        #expect(TagDump(cardInfo: info, blocks: [Block(number: 0, data: [1])], files: [FileData(identifier: [1], data: [2])])
            .summary.technicalSummary == "1 blocks · export 1 bytes")
        #expect(TagDump(cardInfo: info, files: [FileData(identifier: [1], data: [2, 3])]).summary.technicalSummary
            == "1 files · export 2 bytes")
        #expect(TagDump(cardInfo: info, ndefMessage: [0xD0, 0, 0]).summary.technicalSummary.hasPrefix("3 NDEF bytes · export 3 bytes"))
        #expect(TagDump(cardInfo: info).summary.technicalSummary == "identification only · export 0 bytes")
    }

    @Test func inferredCapabilities() {
        func caps(_ type: CardType, files: [FileData] = [], family: FamilyDumpData = .none) -> [CardCapability] {
            // The write access is the family's typed data (what a dump read from the CC / attribute block,
            // or an import read from the file's `ndefWritable` key).
            TagDump(cardInfo: CardInfo(type: type, uid: Self.uid), files: files, family: family).summary.capabilities
        }
        #expect(caps(.mifareClassic1K) == [.identificationOnly])
        #expect(caps(.mifarePlusSL3_4K) == [.identificationOnly])
        #expect(caps(.jewelTopaz) == [.identificationOnly])
        #expect(caps(.mifareDesfireEV2) == [.authenticationRequired, .partiallyReadable])
        #expect(caps(.mifareDesfireEV2, files: [FileData(identifier: [1], data: [])]) == [.partiallyReadable])
        #expect(caps(.type4NDEF) == [.readable])
        #expect(caps(.type4NDEF, family: .type4(ndefWritable: true)) == [.readable, .writable])
        #expect(caps(.felicaLite, family: .felica(ndefWritable: true)) == [.readable, .writable])
        #expect(caps(.felicaLite, family: .felica(ndefWritable: false)) == [.readable])
        #expect(caps(.ntag215) == [.readable])
        #expect(caps(.smartMX) == [.readable])
        #expect(caps(.unknown(atqa: [0, 4], sak: 0x28)) == [.identificationOnly])
        // Stored capabilities win.
        #expect(TagDump(cardInfo: CardInfo(type: .mifareClassic1K, uid: Self.uid), capabilities: [.readable])
            .summary.capabilities == [.readable])
    }

    @Test func binaryExportOrder() {
        let info = CardInfo(type: .ntag213, uid: Self.uid)
        #expect(TagDump(cardInfo: info, pages: [Page(number: 5, data: [5]), Page(number: 1, data: [1])]).exportBinary() == [1, 5])
        #expect(TagDump(cardInfo: info, blocks: [Block(number: 2, data: [2, 2]), Block(number: 0, data: [0])]).exportBinary()
            == [0, 2, 2])
        #expect(TagDump(cardInfo: info, files: [FileData(identifier: [0xE1, 0x04], data: [4]), FileData(identifier: [0xE1, 0x03], data: [3])])
            .exportBinary() == [3, 4])
        #expect(TagDump(cardInfo: info, ndefMessage: [9, 9]).exportBinary() == [9, 9])
        #expect(TagDump(cardInfo: info).exportBinary() == [])
    }

    @Test func hexExportOfPagesBlocksAndFiles() {
        let pages = TagDump(cardInfo: CardInfo(type: .ntag213, uid: [0x04, 0xA1]),
                            pages: [Page(number: 0, data: [0x04, 0xA1, 0xB2, 0x9F]), Page(number: 12, data: [0, 1, 2, 3])])
        #expect(pages.exportHex() == """
            Card: NTAG213
            UID: 04A1
            Summary: 2 pages · export 8 bytes
            Capabilities: Readable

            Page   0: 04 A1 B2 9F
            Page  12: 00 01 02 03
            """)
        let blocks = TagDump(cardInfo: CardInfo(type: .iso15693_generic, uid: [0xE0, 0x04]),
                             blocks: [Block(number: 0, data: [0x10, 0x11, 0x12, 0x13]), Block(number: 1, data: [0x20], locked: true)],
                             capabilities: [.readable, .writable])
        #expect(blocks.exportHex() == """
            Card: ISO 15693
            UID: E004
            Summary: 2 blocks · export 5 bytes
            Capabilities: Readable, Writable

            Block   0: 10 11 12 13
            Block   1: 20 [LOCKED]
            """)
        let files = TagDump(cardInfo: CardInfo(type: .type4NDEF, uid: [0x08]),
                            files: [FileData(identifier: [0xE1, 0x03], data: Array(0..<10), name: "CC"),
                                    FileData(identifier: [0x01], data: [0xAA])])
        #expect(files.exportHex() == """
            Card: NFC Forum Type 4 Tag
            UID: 08
            Summary: 2 files · export 11 bytes
            Capabilities: Readable

            CC E103 (10 bytes):
            0000: 00 01 02 03 04 05 06 07
            0008: 08 09
            File 01 (1 bytes):
            0000: AA
            """)
    }

    @Test func hexExportOfIdentificationOnly() {
        let dump = TagDump(cardInfo: CardInfo(type: .mifareClassic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(dump.exportHex() == "Card: MIFARE Classic 1K\nUID: DEADBEEF\nSummary: identification only · export 0 bytes\nCapabilities: Identification Only\n")
    }
}
