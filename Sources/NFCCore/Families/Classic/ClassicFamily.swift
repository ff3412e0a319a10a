/// The MIFARE Classic row of ``TagFamilies``: Mini, 1K, 4K, and MIFARE Plus (only SL1 has the Classic
/// sector layout ``ClassicLayout`` describes; SL2/SL3 are AES only and refuse every verb).
public struct ClassicFamily: TagFamily {
    public init() {}

    public var name: String { "MIFARE Classic" }

    public func claims(_ type: CardType) -> Bool { type.family == .mifareClassic || type.family == .mifarePlus }

    /// NXP AN10833 §2 (libnfc target-subr.c): Mini SAK 09, 1K 08, 4K 18 by the ATQA's low byte; Plus
    /// by exact ATQA with SAK 08/18 (SL1) or 10/11 (SL2); then SAK alone.
    public var classifierRules: [CardClassifier.Rule] {
        [
            .init(atqaMask: 0xFF0F, atqaValues: [0x0004], saks: [0x09], type: .mifareMini),
            .init(atqaMask: 0xFF0F, atqaValues: [0x0004], saks: [0x08], type: .mifareClassic1K),
            .init(atqaMask: 0xFF0F, atqaValues: [0x0002], saks: [0x18], type: .mifareClassic4K),
            .init(atqaMask: 0xFFFF, atqaValues: [0x0004, 0x0002, 0x0044, 0x0042], saks: [0x08], type: .mifarePlusSL1_2K),
            .init(atqaMask: 0xFFFF, atqaValues: [0x0004, 0x0002, 0x0044, 0x0042], saks: [0x18], type: .mifarePlusSL1_4K),
            .init(atqaMask: 0xFFFF, atqaValues: [0x0004, 0x0002, 0x0044, 0x0042], saks: [0x10], type: .mifarePlusSL2_2K),
            .init(atqaMask: 0xFFFF, atqaValues: [0x0004, 0x0002, 0x0044, 0x0042], saks: [0x11], type: .mifarePlusSL2_4K),
            .init(atqaMask: 0x0000, atqaValues: [], saks: [0x08], type: .mifareClassic1K),
            .init(atqaMask: 0x0000, atqaValues: [], saks: [0x09], type: .mifareMini),
            .init(atqaMask: 0x0000, atqaValues: [], saks: [0x18], type: .mifareClassic4K),
        ]
    }

    /// A Classic-looking tag with a 7-byte UID may be a Type 2 tag answering SAK 08/09/18: READ 30 00 and
    /// the BCC check tell (``Type2Refinement``). Plus is not probed.
    public func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo {
        guard info.type.family == .mifareClassic else { return info }
        return try await Type2Refinement.refine(info, transport: transport)
    }

    /// NXP AN1305 for every product with a Classic sector layout (not Plus SL2/SL3).
    public func ndefMapping(for type: CardType) -> NDEFMapping? {
        ClassicLayout.forType(type) != nil ? .mifareClassic : nil
    }

    /// NDEF write on an NFC Forum formatted card (``ClassicNDEFWriter``).
    public func write(ndef bytes: [UInt8], to transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        try await ClassicNDEFWriter.write(ndef: bytes, info: info, transport: transport)
    }

    /// NFC Forum format of a factory card, or the empty message on a formatted one (``ClassicNDEFWriter``).
    public func format(_ transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        try await ClassicNDEFWriter.format(info: info, transport: transport)
    }

    /// AN1305 read-only sectors (access bits 07 8F 0F, GPB 43h) are not written: lock answers unsupported.
    public func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8], password: [UInt8]?)
        async throws(TagOperationError) -> LockReport
    {
        throw TagOperationError(.unsupportedOperation("Locking the NDEF sectors of \(info.type) is not supported"))
    }

    public func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult {
        guard ClassicLayout.forType(info.type) != nil else { return .notRead(TagVerb.readNDEF.unsupported(for: info.type)) }
        guard let classic = transport as? any ClassicAuthenticating else {
            return .notRead(.unsupportedOperation("This reader cannot authenticate MIFARE Classic sectors"))
        }
        return try await ClassicNDEFReader.read(info: info, transport: classic)
    }

    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        // Plus SL2/SL3 have no Classic layout (AES only).
        guard ClassicLayout.forType(info.type) != nil else { throw TagVerb.dump.unsupported(for: info.type) }
        guard let classic = transport as? any ClassicAuthenticating else {
            throw NFCError.unsupportedOperation("This reader cannot authenticate MIFARE Classic sectors")
        }
        return try await ClassicDump.dump(info: info, transport: classic, keys: options.families.classicKeys)
    }

    /// Flipper `.nfc`, libnfc MFD, Proxmark3's `hf mf` dump, JSON, key file and `.eml` of the Classic
    /// products: Formats/ClassicFileFormats.swift.
    public var fileFormats: [FileFormatRow] { ClassicFileFormats.rows }

    /// Block numbers within the product's sectors (``ClassicBlockImage/checkBlockNumbers(_:)``).
    public func checkFileBounds(_ dump: TagDump) throws { try ClassicBlockImage.checkBlockNumbers(dump) }

    public func inferredCapabilities(of dump: TagDump) -> [CardCapability]? { [.identificationOnly] }

    /// The trailer gaps of every dump of a Classic layout, empty lists too: an import tells "no gaps" from
    /// a file written before the key existed.
    public func jsonFamilyData(of dump: TagDump) -> (any Encodable)? {
        guard ClassicLayout.forType(dump.cardInfo.type) != nil else { return dump.family.payload }
        return dump.classicTrailerGaps
    }

    /// The trailer gaps of a JSON dump's `trailerGaps` key. A file written without it (before the key
    /// existed) has only its blocks to tell: each all-zero part of a trailer is taken as unknown, as in
    /// an MFD file (``ClassicTrailerGaps/init(zeroPartsOfTrailersIn:layout:)``) — the `Sectors Without …` facts are
    /// for people and never read.
    public func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData? {
        if let gaps = try ClassicTrailerGaps.fromJSON(FamilyJSON.decode(ClassicTrailerGaps.JSONKeys.self, from: json)) {
            return gaps.isEmpty ? FamilyDumpData.none : .classic(gaps)
        }
        guard claims(dump.cardInfo.type), let layout = ClassicLayout.forType(dump.cardInfo.type) else { return nil }
        let gaps = ClassicTrailerGaps(zeroPartsOfTrailersIn: dump.blocks, layout: layout)
        return gaps.isEmpty ? nil : .classic(gaps)
    }
}

/// The key dictionary is MIFARE Classic's dump setting: ``ClassicDump`` tries the keys of
/// `options.families.classicKeys` (default ``ClassicKeyDictionary/standard``).
extension ClassicKeyDictionary: FamilyDumpOption {}

extension FamilyDumpOptions {
    /// The keys a MIFARE Classic dump tries (default ``ClassicKeyDictionary/standard``).
    public var classicKeys: ClassicKeyDictionary {
        get { self[ClassicKeyDictionary.self] }
        set { self[ClassicKeyDictionary.self] = newValue }
    }
}
