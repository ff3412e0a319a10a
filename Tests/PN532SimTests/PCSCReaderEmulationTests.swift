import NFCCore
import Testing
@testable import PN532Sim

/// The PC/SC part 3 reader + card emulation behind `nfcbridge-sim --vpcd`, driven in-process: ATRs,
/// Get Data, Read/Update Binary, Load Keys + General Authenticate, the transparent session and
/// ISO-DEP pass-through, with the status words docs/simulator.md lists.
@Suite struct PCSCReaderEmulationTests {
    let field = RFField()
    let catalog = TagCatalog()

    /// A reader with the tag `spec` describes in its slot.
    func reader(_ spec: TagSpec, profile: PCSCReaderEmulation.Profile = .init()) throws -> PCSCReaderEmulation {
        let tag = try catalog.define(spec)
        let reader = PCSCReaderEmulation(field: field, profile: profile)
        reader.insert(field.place(tag, id: spec.id))
        return reader
    }

    func send(_ reader: PCSCReaderEmulation, _ hex: String) -> String {
        reader.process(hex.hexBytes).hexString
    }

    @Test func storageCardATRsNameTheCardByItsSAK() throws {
        // Gemalto Prox-DU/SU reference manual prints these three; FeliCa as ACR122U API §4.1.
        let classic1K = try reader(TagSpec(id: "c1", kind: .classic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(classic1K.atr?.hexString == "3B8F8001804F0CA000000306030001000000006A")
        let classic4K = try reader(TagSpec(id: "c4", kind: .classic4K))
        #expect(classic4K.atr?.hexString == "3B8F8001804F0CA0000003060300020000000069")
        let ntag = try reader(TagSpec(id: "n", kind: .ntag215))
        #expect(ntag.atr?.hexString == "3B8F8001804F0CA0000003060300030000000068")
        let mini = try reader(TagSpec(id: "m", kind: .classicMini))
        #expect(mini.atr?.hexString == "3B8F8001804F0CA000000306030026000000004D")
        let felica = try reader(TagSpec(id: "f", kind: .felicaLiteS))
        #expect(felica.atr?.hexString == "3B8F8001804F0CA0000003061100" + "3B0000000042")
    }

    @Test func isoDEPCardsGetTheirATSHistoricalBytes() throws {
        // ACR1283L reference manual §5.3.1: "ATR for DESFire = 3B 81 80 01 80 80".
        let desfire = try reader(TagSpec(id: "d", kind: .desfireEV2))
        #expect(desfire.atr?.hexString == "3B8180018080")
        let type4 = try reader(TagSpec(id: "t", kind: .type4))
        #expect(type4.atr?.hexString == "3B8180018080")
        // T0 78: TA, TB, TC present, so the historical bytes are 80 31; TCK = 82 ^ 80 ^ 01 ^ 80 ^ 31.
        #expect(PCSCAnswerToReset.isoDEP(ats: [0x78, 0x80, 0x70, 0x02, 0x80, 0x31]).hexString == "3B8280018031B2")
    }

    @Test func getDataGivesUIDAndATSWithTheReadersLengthRules() throws {
        let ntag = try reader(TagSpec(id: "n", kind: .ntag215, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]))
        #expect(send(ntag, "FFCA000000") == "041122334455669000")
        #expect(send(ntag, "FFCA000007") == "041122334455669000")
        #expect(send(ntag, "FFCA000004") == "6C07")
        #expect(send(ntag, "FFCA000008") == "041122334455666282")
        #expect(send(ntag, "FFCA010000") == "6A81", "no ATS on a Type 2 tag")
        #expect(send(ntag, "FFCA020000") == "6A81", "ATQA is not answered by default")
        #expect(send(ntag, "FFCA000100") == "6B00")
        let desfire = try reader(TagSpec(id: "d", kind: .desfireEV2))
        #expect(send(desfire, "FFCA010000") == "0675778102809000")
    }

    @Test func profileAnswersATQAAndSAK() throws {
        let classic = try reader(TagSpec(id: "c", kind: .classic1K), profile: .init(answersATQAAndSAK: true))
        #expect(send(classic, "FFCA020000") == "00049000")
        #expect(send(classic, "FFCA030000") == "089000")
    }

    @Test func type2PagesAreReadAndWrittenThroughReadAndUpdateBinary() throws {
        let ntag = try reader(TagSpec(id: "n", kind: .ntag215))
        let tag = try #require(catalog.tag(id: "n") as? VirtualType2Tag)
        // READ 30h gives four pages; page 3 is the CC (NTAG215: E1 10 3E 00).
        #expect(send(ntag, "FFB0000310").hasPrefix("E1103E00"))
        #expect(send(ntag, "FFB0000304") == "E1103E009000")
        #expect(send(ntag, "FFB0000311") == "6700")
        #expect(send(ntag, "FFD6000404DEADBEEF") == "9000")
        #expect(Array(tag.memory[16..<20]) == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(send(ntag, "FFD600050800112233 44556677".replacingOccurrences(of: " ", with: "")) == "9000")
        #expect(Array(tag.memory[20..<28]).hexString == "0011223344556677")
        #expect(send(ntag, "FFD6000003DEADBE") == "6700")
        // Page 0 is the serial number: the tag NAKs, the reader says 63 00 and re-selects for the next command.
        #expect(send(ntag, "FFD6000004DEADBEEF") == "6300")
        #expect(send(ntag, "FFB0000404") == "DEADBEEF9000")
    }

    @Test func transparentSessionCarriesType2Frames() throws {
        var spec = TagSpec(id: "n", kind: .ntag215)
        spec.password = [0x12, 0x34, 0x56, 0x78]
        spec.pack = [0xAB, 0xCD]
        spec.auth0 = 0x04
        let ntag = try reader(spec)
        #expect(send(ntag, "FFC20001039501 60".replacingOccurrences(of: " ", with: "")) == "C003016986" + "9000",
                "an exchange needs a session first")
        #expect(send(ntag, "FFC20000028100") == "C00300900090 00".replacingOccurrences(of: " ", with: ""))
        // GET_VERSION (NTAG213/215/216 §10.1): 00 04 04 02 01 00 11 03.
        #expect(send(ntag, "FFC2000103950160") == "C003009000" + "920100" + "96020000" + "9708" + "0004040201001103" + "9000")
        let signature = send(ntag, "FFC200010495023C00")
        #expect(signature.hasPrefix("C003009000920100960200009720") && signature.hasSuffix("9000"))
        // PWD_AUTH with the wrong password: NAK (4 bits) — then the right one gives PACK.
        #expect(send(ntag, "FFC2000107" + "95051B00000000") == "C003009000" + "920104" + "96020000" + "970100" + "9000")
        #expect(send(ntag, "FFC2000107" + "95051B12345678") == "C003009000920100960200009702ABCD9000")
        #expect(send(ntag, "FFD6000404CAFEF00D") == "9000", "authenticated: page 4 may be written")
        #expect(send(ntag, "FFC20000028200") == "C0030090009000")
        #expect(send(ntag, "FFC2000103950160").hasPrefix("C003016986"), "session ended")
        #expect(send(ntag, "FFC20000027700") == "C00301" + "6A81" + "9000")
        #expect(send(ntag, "FFC2000200") == "6A81", "Switch Protocol is not modelled")
    }

    @Test func classicNeedsAnAuthenticationAndOnlyTheLastOneCounts() throws {
        var spec = TagSpec(id: "c", kind: .classic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF])
        spec.keys = [TagSpec.SectorKeys(sector: 1, keyA: [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5], keyB: VirtualClassicTag.factoryKey)]
        let classic = try reader(spec)
        let tag = try #require(catalog.tag(id: "c") as? VirtualClassicTag)
        #expect(send(classic, "FFB0000410") == "6982", "no authentication yet")
        #expect(send(classic, "FF82000006FFFFFFFFFFFF") == "9000")
        #expect(send(classic, "FF82000106A0A1A2A3A4A5") == "9000")
        #expect(send(classic, "FF82000206A0A1A2A3A4A5") == "6988")
        #expect(send(classic, "FF82000005A0A1A2A3A4") == "6989")
        #expect(send(classic, "FF86000005010004" + "6000") == "6300", "sector 1 does not have the factory key A")
        #expect(send(classic, "FF86000005010004" + "6001") == "9000")
        #expect(send(classic, "FFD6000510" + "00112233445566778899AABBCCDDEEFF") == "9000")
        #expect(tag.block(5)?.hexString == "00112233445566778899AABBCCDDEEFF")
        #expect(send(classic, "FFB0000510") == "00112233445566778899AABBCCDDEEFF9000")
        #expect(send(classic, "FFB0000508") == "00112233445566779000")
        // Sector 0 with the factory key: sector 1 is no longer authenticated.
        #expect(send(classic, "FF86000005010000" + "6000") == "9000")
        #expect(send(classic, "FFB0000010").hasPrefix("DEADBEEF"))
        #expect(send(classic, "FFB0000510") == "6982")
        // A failed authentication leaves nothing authenticated.
        #expect(send(classic, "FF86000005010004" + "6100") == "9000")
        #expect(send(classic, "FF86000005010008" + "6001") == "6300")
        #expect(send(classic, "FFB0000510") == "6982")
        // The older FF 88 form, and the errors around it.
        #expect(send(classic, "FF880005 6001".replacingOccurrences(of: " ", with: "")) == "9000")
        #expect(send(classic, "FFB0000510").hasSuffix("9000"))
        #expect(send(classic, "FF86000005010004" + "6201") == "6986", "key type 62 does not exist")
        #expect(send(classic, "FFB0004010") == "6A82", "block 64 does not exist on a 1K")
        #expect(send(classic, "FFD6000508001122") == "6700")
    }

    @Test func isoDEPCardsGetPlainAPDUs() throws {
        let type4 = try reader(TagSpec(id: "t", kind: .type4, ndef: try NDEFMessage(records: [.uri("https://a.b")]).bytes))
        #expect(send(type4, "00A4040007D276000085010100") == "9000")
        #expect(send(type4, "00A4000C02E103") == "9000")
        #expect(send(type4, "00B000000F").hasPrefix("000F20"))
        #expect(send(type4, "FFB0000010") == "6A81", "Read Binary pseudo-APDU is for storage cards")
        // An extended-length READ BINARY (Lc 00 + 2 bytes) is the card's to judge, not the reader's.
        let extended = "00B000000000" + "0F"
        let twin = try VirtualType4Tag(uid: [0x04, 1, 2, 3, 4, 5, 6], ndef: try NDEFMessage(records: [.uri("https://a.b")]).bytes)
        _ = twin.activate()
        _ = twin.process(apdu: "00A4040007D276000085010100".hexBytes)
        _ = twin.process(apdu: "00A4000C02E103".hexBytes)
        #expect(send(type4, extended) == twin.process(apdu: extended.hexBytes).hexString)
        let desfire = try reader(TagSpec(id: "d", kind: .desfireEV2))
        let version = send(desfire, "9060000000")
        #expect(version.hasPrefix("04") && version.hasSuffix("91AF"), "GetVersion, ISO-wrapped: \(version)")
        let ntag = try reader(TagSpec(id: "n", kind: .ntag215))
        #expect(send(ntag, "00A4040007D276000085010100") == "6E00")
        #expect(send(ntag, "FF00000000") == "6D00")
        #expect(send(ntag, "FFCA") == "6700")
    }

    /// An ISO/IEC 14443-4 B card: the part 3 ATR of its ATQB (application data, protocol info, MBLI 0),
    /// GET DATA UID = the PUPI, no ATS, and APDUs through to its Type 4 application.
    @Test func typeBCardsGetTheirATQBInTheATRAndPlainAPDUs() throws {
        let ndef = try NDEFMessage(records: [.uri("https://b.example")]).bytes
        let card = try reader(TagSpec(id: "b", kind: .type4B, uid: [0x1A, 0x2B, 0x3C, 0x4D], ndef: ndef))
        #expect(card.atr?.hexString == "3B888001" + "00E2AF01" + "008175" + "00" + "B1")
        #expect(send(card, "FFCA000000") == "1A2B3C4D9000")
        #expect(send(card, "FFCA010000") == "6A81", "an ATS is a type A card's")
        #expect(send(card, "FFB0000010") == "6A81", "Read Binary pseudo-APDU is for storage cards")
        #expect(send(card, "00A4040007D276000085010100") == "9000")
        #expect(send(card, "00A4000C02E103") == "9000")
        #expect(send(card, "00B000000F").hasPrefix("000F20"))
    }

    /// FeliCa frames go through the transparent session with their LEN byte both ways (ACR1252U
    /// reference manual §5.2.6: FeliCa commands "start with Length Byte"): a Polling for any system
    /// with request code 01 answers IDm, PMm and the system code.
    @Test func felicaFramesCarryTheirLengthThroughTheTransparentSession() throws {
        let idm: [UInt8] = [0x01, 0x2E, 0x3D, 0x23, 0xBA, 0x07, 0x5C, 0x45]
        let card = try reader(TagSpec(id: "f", kind: .felicaLiteS, uid: idm))
        #expect(send(card, "FFCA000000") == idm.hexString + "9000")
        #expect(send(card, "FFC2000002810000") == "C00300900090" + "00")
        let answer = send(card, "FFC200010C" + "90020000" + "9506" + "0600FFFF0100")
        let pmm = try #require(card.card?.tag.target.pmm)
        #expect(answer == "C00300900092010096020000" + "9714" + "1401" + idm.hexString + pmm.hexString + "88B4" + "9000", "\(answer)")
        #expect(send(card, "FFC200010C" + "90020000" + "9506" + "0600ABCD0100") == "C003026401" + "9000", "no answer for another system")
    }

    @Test func faultsActOnTheCard() throws {
        let ntag = try reader(TagSpec(id: "n", kind: .ntag215))
        let tag = try #require(catalog.tag(id: "n") as? VirtualType2Tag)
        field.corruptNextWrite()
        #expect(send(ntag, "FFD6000404DEADBEEF") == "9000")
        #expect(Array(tag.memory[16..<20]) == [0xDE, 0xAD, 0xBE, 0x10], "last byte flipped")
        field.removeAfterCommands(1, id: "n")
        #expect(send(ntag, "FFB0000404") == "DEADBE109000")
        #expect(send(ntag, "FFB0000404") == "6300")
        #expect(!field.contains(id: "n"))
    }

    @Test func commandAPDUParsing() {
        #expect(CommandAPDU([0xFF, 0xCA, 0x00]) == nil)
        #expect(CommandAPDU([0xFF, 0xCA, 0x00, 0x00])?.le == nil)
        #expect(CommandAPDU([0xFF, 0xCA, 0x00, 0x00, 0x00])?.le == 256)
        #expect(CommandAPDU([0xFF, 0xD6, 0x00, 0x04, 0x02, 0xAA, 0xBB])?.data == [0xAA, 0xBB])
        #expect(CommandAPDU([0xFF, 0xD6, 0x00, 0x04, 0x02, 0xAA, 0xBB, 0x10])?.le == 16)
        #expect(CommandAPDU([0xFF, 0xD6, 0x00, 0x04, 0x03, 0xAA, 0xBB]) == nil)
        #expect(BERTLV.parse([0x5F, 0x46, 0x04, 1, 2, 3, 4, 0x95, 0x81, 0x01, 0x60])?.map(\.tag) == [0x5F46, 0x95])
        #expect(BERTLV.parse([0x95, 0x05, 0x01]) == nil)
        #expect(BERTLV.encode(tag: 0x97, [UInt8](repeating: 0, count: 200)).prefix(3) == [0x97, 0x81, 0xC8])
    }
}

extension String {
    /// Hex text (no spaces) as bytes; test-only.
    fileprivate var hexBytes: [UInt8] {
        var bytes: [UInt8] = [], index = startIndex
        while index < endIndex, let next = self.index(index, offsetBy: 2, limitedBy: endIndex) {
            bytes.append(UInt8(self[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
