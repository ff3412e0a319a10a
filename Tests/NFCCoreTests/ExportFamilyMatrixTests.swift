import Testing
@testable import NFCCore

/// Every family-file export (Flipper, Proxmark3 binary, JSON, key file, `.eml`, MFD) of a dump of
/// every card type: written, or refused with `unsupported` — never another error for a well-formed
/// dump — and the formats added for issue 9 name the family they cannot hold (docs/formats.md, "Which
/// format holds which family").
@Suite struct ExportFamilyMatrixTests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    static let types: [CardType] = [
        .mifareUltralight, .mifareUltralightC, .mifareUltralightEV1_MF0UL11, .mifareUltralightEV1_MF0UL21, .ntag203,
        .ntag210, .ntag212, .ntag213, .ntag215, .ntag216,
        .mifareClassic1K, .mifareClassic4K, .mifareMini, .mifarePlusSL1_2K, .mifarePlusSL1_4K,
        .mifarePlusSL2_2K, .mifarePlusSL3_4K,
        .mifareDesfire, .mifareDesfireEV1, .mifareDesfireEV2, .mifareDesfireEV3,
        .type4NDEF, .felicaLite, .felicaLiteS, .felicaStandard,
        .iso15693_ICODE_SLIX, .iso15693_ST25TV, .iso15693_generic, .iso15693_ST25DV,
        .ePassport, .myNumberCard, .jewelTopaz, .iso14443B_generic, .smartMX, .unknown(atqa: [0x00, 0x04], sak: 0x20),
    ]

    /// The exports, by their `--format` name.
    static let exports: [(String, @Sendable (TagDump) throws -> [UInt8])] = [
        ("flipper", { Array(try $0.exportFlipperNFC().utf8) }),
        ("pm3", { try $0.exportProxmark3MFU() }),
        ("pm3json", { Array(try $0.exportProxmark3JSON().utf8) }),
        ("pm3key", { try $0.exportProxmark3Keys() }),
        ("eml", { Array(try $0.exportProxmark3EML().utf8) }),
        ("mfd", { try $0.exportLibNFCMFD() }),
    ]

    /// A dump of `type` read in full, holding what its family reads: every page of a Type 2 product,
    /// every block of a Classic layout, 16-byte blocks for FeliCa, 4-byte blocks for ISO 15693, files
    /// for DESFire and Type 4, nothing for the rest.
    static func dump(_ type: CardType) -> TagDump {
        let info = CardInfo(type: type, uid: uid)
        if let map = Type2MemoryMap.forType(type) {
            let pages = (0..<map.readablePages).map { Page(number: $0, data: $0 == 0 ? [0x04, 0x11, 0x22, 0xBC] : [1, 2, 3, 4]) }
            return TagDump(cardInfo: info, pages: pages)
        }
        if let layout = ClassicLayout.forType(type) {
            let trailer = [UInt8](repeating: 0xFF, count: 6) + [0xFF, 0x07, 0x80, 0x69] + [UInt8](repeating: 0xFF, count: 6)
            let blocks = (0..<layout.totalBlocks).map {
                Block(number: $0, data: layout.isTrailer($0) ? trailer : [UInt8](repeating: UInt8($0 & 0xFF), count: 16))
            }
            return TagDump(cardInfo: info, blocks: blocks)
        }
        switch type.family {
        case .felica: return TagDump(cardInfo: info, blocks: [Block(number: 0, data: [UInt8](repeating: 1, count: 16))])
        case .iso15693:
            return TagDump(cardInfo: CardInfo(type: type, uid: [0xE0, 0x04] + uid.prefix(6)),
                           blocks: (0..<8).map { Block(number: $0, data: [1, 2, 3, 4]) })
        case .mifareDesfire, .type4:
            return TagDump(cardInfo: info, files: [FileData(identifier: [0x56, 0x34, 0x12, 0x01], data: [1, 2, 3], name: "563412/01")])
        default: return TagDump(cardInfo: info)
        }
    }

    /// What each cell must do: the formats a family holds write a file; the others answer
    /// `unsupported`, and the new ones (pm3json, pm3key, eml) name the family.
    @Test(arguments: types)
    func everyExportOfEveryFamilyWritesOrIsUnsupported(type: CardType) {
        let dump = Self.dump(type)
        let isType2 = Type2MemoryMap.forType(type) != nil
        let isClassic = ClassicLayout.forType(type) != nil
        for (name, export) in Self.exports {
            let holds: Bool
            switch name {
            // (DESFire's Flipper file needs the application walk a dump read from a card has; this
            // dump has only files, so its Flipper export is refused too: DESFireFlipperExportTests.)
            case "pm3key", "eml": holds = isClassic
            case "flipper": holds = isType2 || isClassic || type.family == .iso15693
            default: holds = isType2 || isClassic
            }
            do {
                let bytes = try export(dump)
                #expect(holds, "\(type) \(name) wrote \(bytes.count) bytes")
                #expect(!bytes.isEmpty, "\(type) \(name)")
            } catch let error as NFCError {
                #expect(!holds, "\(type) \(name): \(error)")
                #expect(error.code == "unsupported", "\(type) \(name): \(error)")
                if ["pm3json", "pm3key", "eml"].contains(name) || type.family == .mifareDesfire && name != "flipper" {
                    #expect(error.message.contains(type.family.description), "\(type) \(name): \(error.message)")
                }
            } catch {
                Issue.record("\(type) \(name): \(error)")
            }
        }
    }
}
