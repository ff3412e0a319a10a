/// The FeliCa (NFC Forum Type 3) row of ``TagFamilies``: Lite, Lite-S and Standard.
public struct FeliCaFamily: TagFamily {
    public init() {}

    public var name: String { "FeliCa" }

    public func claims(_ type: CardType) -> Bool { type.family == .felica }

    /// System code 88B4 → Lite or Lite-S by block 90h (``FeliCaRefinement``).
    public func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo {
        let (refined, stop) = await FeliCaRefinement.run(info, transport: transport)
        if let stop { throw stop }
        return refined
    }

    public func ndefMapping(for type: CardType) -> NDEFMapping? { .type3 }

    public func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult {
        try await FeliCaNDEFReader.read(transport: transport, known: info.feliCaIdentificationBlocks)
    }

    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        try await FeliCaDump.dump(info: info, transport: transport)
    }

    public func write(ndef bytes: [UInt8], to transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        try await Type3NDEFOperations.write(bytes, to: transport, info: info)
    }

    public func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8], password: [UInt8]?)
        async throws(TagOperationError) -> LockReport
    {
        try await Type3NDEFOperations.lock(transport, info: info)
    }

    public func userSummary(for dump: TagDump, storage: String) -> String? { "Read FeliCa Type 3 blocks with \(storage)." }

    public func inferredCapabilities(of dump: TagDump) -> [CardCapability]? {
        dump.ndefWriteAccess?.ndefWritable == true ? [.readable, .writable] : [.readable]
    }

    /// The attribute block's RWFlag of a FeliCa dump: its JSON `ndefWritable` key, or in a file written
    /// without it the attribute block (block 0) of a dump that holds an NDEF message, as ``FeliCaDump``
    /// records it — never the `Read / Write` fact.
    public func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData? {
        guard claims(dump.cardInfo.type) else { return nil }
        if let writable = try FamilyJSON.decode(NDEFWriteAccess.JSONKeys.self, from: json).ndefWritable {
            return .felica(ndefWritable: writable)
        }
        guard dump.ndefMessage != nil, let block = dump.blocks.first(where: { $0.number == 0 }),
            let attribute = try? FeliCaAttributeInfo(bytes: block.data)
        else { return nil }
        return .felica(ndefWritable: attribute.isWritable)
    }

    /// The IC row of the file's PMm (byte 1, ``FeliCaICTable``), when the file names it.
    public func product(named name: String, for info: CardInfo) -> Product? {
        guard claims(info.type), let pmm = info.pmm, let product = FeliCaICTable.product(pmm: pmm),
              product.name == name
        else { return nil }
        return product
    }
}

extension FamilyDumpData {
    /// FeliCa (Type 3): what the attribute block says about writing NDEF.
    public static func felica(ndefWritable: Bool) -> FamilyDumpData { FamilyDumpData(NDEFWriteAccess(ndefWritable: ndefWritable)) }
}
