import NFCCore
import PN532Sim
import Testing

/// What the import's message says each ATQB field is.
private let applicationDataMeaning = "(the ATQB's Application Data, ISO/IEC 14443-3 §7.9.3)"
private let protocolInfoMeaning = "(the ATQB's Protocol Info, ISO/IEC 14443-3 §7.9.4)"

/// An ISO 14443-B card's ATQB fields in the dump JSON: `applicationData` and `protocolInfo` written as
/// hex (the scan report's keys), read back by the JSON import, and refused when malformed.
@Suite struct TypeBDumpJSONTests {
    static let pupi: [UInt8] = [0x1A, 0x2B, 0x3C, 0x4D]

    /// The simulator's B card with the NFC Forum Type 4 application (ATQB application data
    /// `00E2AF01`, protocol info `008175`), identified and dumped in process.
    func bCardDump() async throws -> TagDump {
        let message = try NDEFMessage(records: [.uri("https://example.com/b")]).bytes
        let application = try VirtualType4Tag(uid: [0x04, 1, 2, 3, 4, 5, 6], ndef: message)
        let transport = VirtualTagTransport(tag: try VirtualTypeBTag(pupi: Self.pupi, application: application))
        let info = try await TagIdentifier.identify(transport)
        return try await TagDumper.dump(info: info, transport: transport)
    }

    @Test func aBCardDumpWritesTheATQBFieldsAndReadsThemBack() async throws {
        let dump = try await bCardDump()
        #expect(dump.cardInfo.applicationData == [0x00, 0xE2, 0xAF, 0x01])
        #expect(dump.cardInfo.protocolInfo == [0x00, 0x81, 0x75])
        let json = try dump.exportJSON()
        #expect(json.contains(#""applicationData" : "00E2AF01""#), "\(json)")
        #expect(json.contains(#""protocolInfo" : "008175""#), "\(json)")
        #expect(!json.contains(#""atqa""#) && !json.contains(#""sak""#), "\(json)")

        // export → import → export, through the importer `nfcbridge import` / `export --from` run.
        let imported = try DumpImporter.importDump(Array(json.utf8), format: .json)
        #expect(imported.cardInfo.applicationData == [0x00, 0xE2, 0xAF, 0x01])
        #expect(imported.cardInfo.protocolInfo == [0x00, 0x81, 0x75])
        #expect(imported == dump)
        #expect(try imported.exportJSON() == json)
        let compact = try dump.exportJSON(prettyPrinted: false)
        #expect(try TagDump.importJSON(Array(compact.utf8)).exportJSON(prettyPrinted: false) == compact)
    }

    /// A hand-built generic B card (identification only: no memory) keeps its fields too.
    @Test func aGenericBCardDumpRoundTrips() throws {
        var info = CardInfo(type: .iso14443B_generic, uid: Self.pupi)
        info.applicationData = [0x12, 0x34, 0x56, 0x78]
        info.protocolInfo = [0x11, 0x81, 0xE1]
        let dump = TagDump(cardInfo: info)
        let json = try dump.exportJSON()
        #expect(json.contains(#""applicationData" : "12345678""#) && json.contains(#""protocolInfo" : "1181E1""#), "\(json)")
        let imported = try TagDump.importJSON(Array(json.utf8))
        #expect(imported == dump)
        #expect(try imported.exportJSON() == json)
    }

    @Test func aTypeADumpHasNeitherKey() throws {
        let dump = TagDump(cardInfo: CardInfo(type: .ntag213, uid: [0x04, 1, 2, 3, 4, 5, 6], atqa: [0x00, 0x44], sak: 0x00),
                           pages: [Page(number: 0, data: [0x04, 1, 2, 0x8B])])
        let json = try dump.exportJSON()
        #expect(!json.contains("applicationData") && !json.contains("protocolInfo"), "\(json)")
        let imported = try TagDump.importJSON(Array(json.utf8))
        #expect(imported.cardInfo.applicationData == nil && imported.cardInfo.protocolInfo == nil)
    }

    @Test(arguments: [
        ("applicationData", "00E2AF", "applicationData '00E2AF' is not 4 bytes \(applicationDataMeaning)"),
        ("applicationData", "00E2AF0102", "applicationData '00E2AF0102' is not 4 bytes \(applicationDataMeaning)"),
        ("applicationData", "", "applicationData '' is not 4 bytes \(applicationDataMeaning)"),
        ("applicationData", "00E2AFZZ", "applicationData '00E2AFZZ' is not hex"),
        ("protocolInfo", "0081", "protocolInfo '0081' is not 3 bytes \(protocolInfoMeaning)"),
        ("protocolInfo", "00817500", "protocolInfo '00817500' is not 3 bytes \(protocolInfoMeaning)"),
        ("protocolInfo", "00817G", "protocolInfo '00817G' is not hex"),
    ])
    func aMalformedATQBFieldIsRefused(key: String, value: String, message: String) throws {
        let json = #"{"cardType":"ISO 14443-B","uid":"1A2B3C4D","\#(key)":"\#(value)"}"#
        let error = #expect(throws: NFCError.self) { try DumpImporter.importDump(Array(json.utf8), format: .json) }
        #expect(error?.code == "malformed_dump")
        #expect(error == NFCError.malformedDump(message), "\(String(describing: error))")
    }

    @Test func aNonStringATQBFieldIsRefused() throws {
        let json = #"{"cardType":"ISO 14443-B","uid":"1A2B3C4D","protocolInfo":[0,129,117]}"#
        let error = #expect(throws: NFCError.self) { try TagDump.importJSON(Array(json.utf8)) }
        #expect(error?.code == "malformed_dump")
        #expect("\(String(describing: error))".contains("protocolInfo"), "\(String(describing: error))")
    }
}
