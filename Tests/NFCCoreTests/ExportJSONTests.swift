import Foundation
import Testing
@testable import NFCCore

/// JSON and hex text exports with NDEF, against the worked example of the reference notes §4.3
/// (DumpInteropTests case 1), and the JSON import of upstream-only files.
@Suite struct ExportJSONTests {
    /// NTAG213, UID 01020304, page 4 = 03 03 D1 01, NDEF Text "Hi"/en, Write Access = Writable,
    /// capabilities [readable, writable].
    static let case1 = TagDump(
        cardInfo: CardInfo(type: .ntag213, uid: [0x01, 0x02, 0x03, 0x04]),
        pages: [Page(number: 4, data: [0x03, 0x03, 0xD1, 0x01])],
        ndefMessage: [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x48, 0x69],
        facts: [Fact(key: "Write Access", value: "Writable")],
        capabilities: [.readable, .writable])

    @Test func compactJSONIsByteExact() throws {
        #expect(try Self.case1.exportJSON(prettyPrinted: false) == ExportFixtures.text("interop/case1.compact.json"))
    }

    @Test func prettyJSONIsTheSameDocument() throws {
        let pretty = try Self.case1.exportJSON()
        #expect(pretty.contains("\n  \"cardType\" : \"NTAG213\",\n"))
        let reparsed = try JSONSerialization.jsonObject(with: Data(pretty.utf8)) as? NSDictionary
        let compact = try JSONSerialization.jsonObject(with: Data(try Self.case1.exportJSON(prettyPrinted: false).utf8)) as? NSDictionary
        #expect(reparsed == compact)
    }

    @Test func hexTextIsByteExact() throws {
        #expect(Self.case1.exportHex() == (try ExportFixtures.text("interop/case1.txt")))
    }

    @Test func summaryCountsNDEFRecords() {
        #expect(Self.case1.summary.technicalSummary == "1 pages · export 4 bytes · 1 NDEF records")
    }

    /// Upstream-only JSON (no additive keys) imports: the derived keys are ignored and the listed
    /// capabilities are the dump's own.
    @Test func upstreamJSONImports() throws {
        let dump = try TagDump.importJSON(try ExportFixtures.bytes("interop/case1.compact.json"))
        #expect(dump == Self.case1)
    }

    /// Slashes are escaped as Foundation does by default (upstream's encoder), and an undecodable
    /// NDEF message leaves `parsedNDEF` out.
    @Test func uriRecordsAndBrokenNDEF() throws {
        var dump = Self.case1
        dump.ndefMessage = [0xD1, 0x01, 0x0D, 0x55, 0x04] + Array("example.com/".utf8)
        let json = try dump.exportJSON(prettyPrinted: false)
        #expect(json.contains(#""parsedNDEF":[{"type":"URI","value":"https:\/\/example.com\/"}]"#))
        dump.ndefMessage = [0xD1, 0x01]
        let broken = try dump.exportJSON(prettyPrinted: false)
        #expect(!broken.contains("parsedNDEF"))
        #expect(broken.contains(#""ndefHex":"D101""#))
        #expect(broken.contains(#""technicalSummary":"1 pages · export 4 bytes""#))
    }

    /// Additive keys appear only when known, and keep the upstream keys' bytes.
    @Test func additiveKeys() throws {
        var dump = Self.case1
        dump.cardInfo.atqa = [0x00, 0x44]
        dump.cardInfo.sak = 0x00
        dump.cardInfo.version = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
        dump.cardInfo.probes = ["GET_VERSION: ok"]
        dump.type2 = Type2Extras(signature: [UInt8](repeating: 0xAB, count: 32), counters: [nil, nil, 7],
                                 tearing: [nil, nil, 0xBD], totalPages: 45)
        let json = try dump.exportJSON(prettyPrinted: false)
        #expect(json.contains(#""atqa":"0044""#))
        #expect(json.contains(#""counters":[null,null,7]"#))
        #expect(json.contains(#""tearing":[null,null,"BD"]"#))
        #expect(json.contains(#""pagesTotal":45"#))
        #expect(json.contains(#""probes":["GET_VERSION: ok"]"#))
        #expect(json.contains(#""sak":"00""#))
        #expect(json.contains(#""version":"0004040201000F03""#))
        #expect(try TagDump.importJSON(Array(json.utf8)) == dump)
        // Without them the document is upstream's, byte for byte.
        #expect(try Self.case1.exportJSON(prettyPrinted: false) == ExportFixtures.text("interop/case1.compact.json"))
    }

    /// A dump that stores no capabilities exports the inferred ones and reads back with none.
    @Test func inferredCapabilitiesRoundTrip() throws {
        var dump = Self.case1
        dump.capabilities = []
        let json = try dump.exportJSON(prettyPrinted: false)
        #expect(json.contains(#""capabilities":["Readable"],"capabilitiesInferred":true"#))
        #expect(try TagDump.importJSON(Array(json.utf8)) == dump)
    }

    /// Every family round-trips through JSON (blocks with lock flags, files with and without names,
    /// FeliCa PMm / system code, ATS, products, unknown ATQA/SAK types).
    @Test func otherFamiliesRoundTrip() throws {
        let dumps = [
            TagDump(cardInfo: CardInfo(type: .iso15693_generic, uid: [0xE0, 0x04, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB]),
                    blocks: [Block(number: 0, data: [0x10, 0x11, 0x12, 0x13]), Block(number: 1, data: [0x20], locked: true)],
                    facts: [Fact(key: "Block Size", value: "4", monospaced: true)]),
            TagDump(cardInfo: CardInfo(type: .felicaLiteS, uid: Array(1...8), pmm: Array(0x10...0x17), systemCode: [0x88, 0xB4]),
                    blocks: [Block(number: 0x80, data: Array(repeating: 0, count: 16))]),
            TagDump(cardInfo: CardInfo(type: .mifareDesfireEV2, uid: Array(1...7), atqa: [0x03, 0x44], sak: 0x20,
                                       ats: [0x75, 0x77, 0x81, 0x02, 0x80], product: Product(named: "MIFARE DESFire EV2 4K")),
                    files: [FileData(identifier: [0x12, 0x34, 0x56, 0x01], data: [1, 2], name: "App 563412 File 1"),
                            FileData(identifier: [0x02], data: [])]),
            TagDump(cardInfo: CardInfo(type: .unknown(atqa: [0xFF, 0xFF], sak: 0x55), uid: [1, 2, 3, 4])),
        ]
        for dump in dumps {
            #expect(try TagDump.importJSON(Array(dump.exportJSON().utf8)) == dump)
        }
    }
}
