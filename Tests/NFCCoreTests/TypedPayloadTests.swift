import NFCCore
import PN532Sim
import Testing

/// What the compiler checks since issue 19: a product is its row (equal by row identity, read through
/// the family's typed view, found again by a JSON import), and a family's dump setting is keyed by its
/// own type.
@Suite struct TypedPayloadTests {
    static let uid: [UInt8] = [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81]

    @Test func aBareNameIsNotTheRowOfThatName() {
        let row = Product(Type2Product.ntag215)
        #expect(row == Product(Type2Product.ntag215))
        #expect(row != Product(named: "NTAG215"))
        #expect(row != Product(Type2Product.ntag216))
        #expect(Set([row, Product(named: "NTAG215")]).count == 2)
        #expect(row.type2 == .ntag215)
        #expect(row.iso15693 == nil)
        #expect(Product(named: "NTAG215").type2 == nil)
    }

    /// The JSON file keeps only the product's name; its import finds the row identification found —
    /// an NTAG215's base row by name, a DESFire EV2's GET_VERSION row from `version`, a FeliCa
    /// Lite-S's IC row from the PMm — so the card reads back equal, row and all (a DESFire JSON file
    /// keeps no walk, so the card, not the whole dump, is compared).
    @Test func aJSONImportFindsTheRowIdentificationFound() async throws {
        let tags: [any VirtualTag] = [
            VirtualType2Tag(model: .ntag215, uid: Self.uid),
            try VirtualDESFireTag(uid: Self.uid, model: .ev2, applications: []),
            try VirtualFeliCaTag(model: .liteS, idm: FeliCaTests.idm, ndef: FeliCaTests.message),
        ]
        for tag in tags {
            let transport = VirtualTagTransport(tag: tag)
            let info = try await TagIdentifier.identify(transport)
            let product = try #require(info.product, "\(info.type)")
            #expect(product != Product(named: product.name), "\(product): identification stores the row")
            let dump = try await TagDumper.dump(info: info, transport: transport)
            let imported = try TagDump.importJSON(Array(dump.exportJSON().utf8))
            #expect(imported.cardInfo.product == product, "\(product)")
            #expect(imported.cardInfo == dump.cardInfo, "\(product)")
        }
    }

    @Test func aFamilySettingIsKeyedByItsOwnType() throws {
        var options = FamilyDumpOptions()
        #expect(options.classicKeys == .standard)
        let keys = try ClassicKeyDictionary(userKeys: [[0x01, 0x02, 0x03, 0x04, 0x05, 0x06]])
        options.classicKeys = keys
        #expect(options[ClassicKeyDictionary.self] == keys)
        #expect(options == FamilyDumpOptions(keys))
        #expect(options != FamilyDumpOptions())
        #expect(DumpOptions(families: options).families.classicKeys == keys)
    }
}
