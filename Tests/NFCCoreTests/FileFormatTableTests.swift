@testable import NFCCore
import PN532Sim
import Testing

/// The file-format table (issue 19): one list of formats with their facts, each family's rows of save,
/// load and detect, and look-ups that never write a file to learn which formats hold a dump.
@Suite struct FileFormatTableTests {
    /// What writing `dump` as `format` says: written, or refused only as partial (what ``ExportFormat/holds(_:)``
    /// promises without writing).
    static func writes(_ format: ExportFormat, _ dump: TagDump) -> Bool {
        do {
            _ = try format.render(dump)
            return true
        } catch let error as NFCError {
            return error.errorCode == .partialDump
        } catch {
            return false
        }
    }

    /// Well-formed dumps of every family and shape: each fixture read back, and dumps the fixtures lack.
    static func dumps() async throws -> [TagDump] {
        var dumps = GoldenOutputTests.fixtureFiles.compactMap { try? DumpImporter.importDump(ExportFixtures.bytes($0)) }
        let ntag213 = ExportFixtures.filled(try ExportFixtures.type2Dump("ntag213"))
        var partial = ntag213
        partial.pages = Array(ntag213.pages.prefix(4))
        var empty = ntag213
        empty.pages = []
        let iso = CardInfo(type: .iso15693_ICODE_SLIX, uid: [0xE0, 4, 1, 2, 3, 4, 5, 6])
        dumps += [
            partial, empty, ExportProxmarkTests.classic1K(), ExportProxmarkTests.classic1K(sectorsRead: 3),
            TagDump(cardInfo: CardInfo(type: .mifareDesfireEV1, uid: DESFireFamilyTests.uid),
                    files: [FileData(identifier: [0x01, 0x00, 0x00, 0x01], data: [0xCA, 0xFE], name: "000001/01")]),
            TagDump(cardInfo: CardInfo(type: .felicaLite, uid: [1, 2, 3, 4, 5, 6, 7, 8]),
                    blocks: (0..<4).map { Block(number: $0, data: [UInt8](repeating: UInt8($0), count: 16)) }),
            TagDump(cardInfo: iso, blocks: (0..<28).map { Block(number: $0, data: [UInt8(truncatingIfNeeded: $0), 0, 0, 0]) }),
            // 300 blocks: more than a Flipper ISO15693-3 file has room for.
            TagDump(cardInfo: iso, blocks: (0..<300).map { Block(number: $0, data: [UInt8(truncatingIfNeeded: $0), 0, 0, 0]) }),
            TagDump(cardInfo: iso),
        ]
        // Dumps read from virtual cards: a DESFire with its application walk, and a Light.
        for model in [VirtualDESFireTag.Model.ev1, .light] {
            let (_, transport) = try DESFireFamilyTests.card(model)
            dumps.append(try await TagDumper.dump(info: try await TagIdentifier.identify(transport), transport: transport))
        }
        return dumps
    }

    /// The table's `holds` answers what writing the file would: for every dump and every format, without
    /// writing it.
    @Test func holdsAgreesWithWritingForEveryFormatAndDump() async throws {
        let dumps = try await Self.dumps()
        #expect(dumps.count > 50)
        for dump in dumps {
            for format in ExportFormat.allCases {
                #expect(format.holds(dump) == Self.writes(format, dump),
                        "\(format.rawValue) of \(dump.cardInfo.type) (\(dump.pages.count) pages, \(dump.blocks.count) blocks)")
            }
        }
    }

    /// A DESFire dump with its walk names Flipper in the MFD refusal; a Light's does not (Flipper
    /// cannot key its application): the hint asks the Flipper row, which writes the one and not the other.
    @Test func desfireHintFollowsTheFlipperRow() async throws {
        for (model, hint) in [(VirtualDESFireTag.Model.ev1, "use json or flipper"), (.light, "use json")] {
            let (_, transport) = try DESFireFamilyTests.card(model)
            let dump = try await TagDumper.dump(info: try await TagIdentifier.identify(transport), transport: transport)
            let error = #expect(throws: NFCError.self) { try ExportFormat.mfd.render(dump) }
            #expect(error?.message.hasSuffix("(applications and files): \(hint)") == true, "\(model): \(error?.message ?? "")")
            #expect(ExportFormat.flipper.holds(dump) == (model == .ev1))
        }
    }

    /// The formats import reads are those with a load row, in table order; the others are refused by name.
    @Test func readableFormatsAreTheRowsWithALoad() throws {
        #expect(ExportFormat.readable == [.flipper, .pm3, .pm3json, .eml, .mfd, .json])
        let bytes = try ExportFixtures.bytes("type2/ntag213.mfd")
        for format in ExportFormat.allCases where !ExportFormat.readable.contains(format) {
            #expect(throws: NFCError.unsupportedOperation(
                "\(format.rawValue) files are written, not read: read flipper, pm3, pm3json, eml, mfd or json")) {
                try DumpImporter.importDump(bytes, format: format)
            }
        }
        for format in ExportFormat.readable {
            #expect(format.facts.importName != nil && format.facts.content != nil, "\(format.rawValue)")
        }
    }

    /// A family has at most one row per format: the row order inside a family never decides a save.
    @Test func aFamilyRegistersEachFormatOnce() {
        for family in TagFamilies.all {
            let formats = family.fileFormats.map(\.format)
            #expect(Set(formats).count == formats.count, "\(family.name): \(formats.map(\.rawValue))")
        }
        let generic = GenericFileFormats.rows.map(\.format)
        #expect(generic == [.json, .hex, .bin])
        #expect(TagFamilies.all.allSatisfy { family in family.fileFormats.allSatisfy { !generic.contains($0.format) } })
    }

    /// Detection asks only rows of formats whose files are images or plain text (JSON and Flipper text
    /// are told by their first bytes), and a detected format is one import reads.
    @Test func detectingRowsAreForImagesAndText() {
        for family in TagFamilies.all {
            for row in family.fileFormats where row.detect != nil {
                #expect([.image, .text].contains(row.format.facts.content), "\(family.name) \(row.format.rawValue)")
                #expect(row.load != nil, "\(family.name) \(row.format.rawValue)")
            }
        }
    }
}
