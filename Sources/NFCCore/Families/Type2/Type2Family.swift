/// The NFC Forum Type 2 row of ``TagFamilies``: MIFARE Ultralight (C, EV1) and NTAG. Every product fact
/// (memory map, protection, lock layout, factory CC, Flipper name, unsupported-command answer) sits in its
/// ``Type2Product`` row.
public struct Type2Family: TagFamily {
    public init() {}

    public var name: String { "NFC Forum Type 2" }

    public func claims(_ type: CardType) -> Bool { type.family == .mifareUltralight || type.family == .ntag }

    /// ATQA 0044 + SAK 00 (AN10833 §2), then SAK 00 alone: every Type 2 tag starts as Ultralight and
    /// GET_VERSION / READ probes name it (``Type2Refinement``).
    public var classifierRules: [CardClassifier.Rule] {
        [
            .init(atqaMask: 0xFFFF, atqaValues: [0x0044], saks: [0x00], type: .mifareUltralight),
            .init(atqaMask: 0x0000, atqaValues: [], saks: [0x00], type: .mifareUltralight),
        ]
    }

    public func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo {
        try await Type2Refinement.refine(info, transport: transport)
    }

    public func ndefMapping(for type: CardType) -> NDEFMapping? { .type2 }

    public func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult {
        try await Type2NDEFReader.read(info: info, transport: transport)
    }

    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        let record = Type2Dump.Progress(reportingTo: options.progress)
        options.progress?.begin(total: Type2Product.forCardInfo(info)?.map.readablePages, unit: "pages") { error in
            Type2Dump.partialDump(info: info, pages: record.pages, after: error)
        }
        return try await Type2Dump.dump(info: info, transport: transport, progress: record,
                                        chipData: options.target.holdsType2ChipData, keys: options.families.type2Keys)
    }

    public var acceptsPassword: Bool { true }

    public func write(ndef bytes: [UInt8], to transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        try await Type2NDEFWriter.write(bytes, to: transport, info: info, password: password)
    }

    public func format(_ transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        try await Type2Format.format(transport, info: info, password: password)
    }

    public func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8], password: [UInt8]?)
        async throws(TagOperationError) -> LockReport
    {
        try await Type2Lock.lock(transport, info: info, expectedUID: expectedUID, password: password)
    }

    /// Flipper `.nfc`, Proxmark3 MFU and JSON, libnfc MFD (and its 64-byte form): Formats/Type2FileFormats.swift.
    public var fileFormats: [FileFormatRow] { Type2FileFormats.rows }

    /// Page numbers within the product's memory map (``Type2PageImage/checkPageNumbers(_:)``).
    public func checkFileBounds(_ dump: TagDump) throws {
        if claims(dump.cardInfo.type) { try Type2PageImage.checkPageNumbers(dump) }
    }

    /// A JSON file's product name back to its row (the name the Flipper export looks its type up by),
    /// spelled as the file spelled it.
    public func product(named name: String, for info: CardInfo) -> Product? {
        FlipperUltralightType.productRow(named: name, type: info.type).map { Product($0, named: name) }
    }

    public func userSummary(for dump: TagDump, storage: String) -> String? {
        "Read a Type 2 style memory map with \(storage)."
    }

    /// The chip data of a JSON dump's `signature`, `counters`, `tearing` and `pagesTotal` keys, whatever
    /// the card type (a page dump imported as another type keeps them too); nil when it has none.
    public func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData? {
        try Type2Extras.fromJSON(FamilyJSON.decode(Type2Extras.JSONKeys.self, from: json)).map(FamilyDumpData.type2)
    }
}

extension DumpTarget {
    /// Whether the output holds Type 2 chip data (READ_SIG, READ_CNT, CHECK_TEARING_EVENT): JSON,
    /// Flipper (`Signature`, `Counter n`, `Tearing n`) and Proxmark3 MFU (its header) do; MFD, the raw
    /// binary and the hex listing hold the pages only (docs/formats.md, "What each format keeps").
    var holdsType2ChipData: Bool {
        switch self {
        case .everything, .file(.json), .file(.flipper), .file(.pm3), .file(.pm3json): true
        case .file, .memory: false
        }
    }
}
