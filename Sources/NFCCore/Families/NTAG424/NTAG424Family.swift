/// The NTAG 424 DNA row of ``TagFamilies`` (NT4H2421Gx): an NFC Forum Type 4 tag (its NDEF, write,
/// lock and file formats are the Type 4 row's) whose dump adds what the chip has beyond the mapping —
/// files 01h–03h walked with its own command set (GetFileSettings F5h, ReadData ADh,
/// ``DESFireCommandSet/ntag4xxDNA``), the NDEF file's SDM settings (``SDMSettings``) and, when they
/// are on, the SUN message verified with the keys of ``NTAG424SUNOptions`` (``SUNVerifier``).
///
/// Identification is ISO-DEP's (``ISODEPRefinement``): GetVersion hardware type 04h, major 30h names
/// `.ntag424DNA`. It must come before ``Type4Family`` in the registry, which claims every Type 4 type.
public struct NTAG424Family: TagFamily, Type4NDEFWriting {
    public init() {}

    private static let type4 = Type4Family()

    public var name: String { "NTAG 424 DNA" }

    public func claims(_ type: CardType) -> Bool { type == .ntag424DNA }

    public func ndefMapping(for type: CardType) -> NDEFMapping? { .type4 }

    public func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult {
        try await Self.type4.readNDEF(info: info, transport: transport)
    }

    /// The Type 4 dump with the file walk, then file 02h's SDM settings (one GetFileSettings) and the
    /// SUN message of the NDEF file verified: facts "SDM" and "SUN" (verdict, counter, key set name).
    /// The counter's freshness (`replayed`) is the agent's, not the dump's.
    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        var dump = try await Self.type4.dump(info: info, transport: transport, options: options)
        guard let apdu = transport as? any APDUTransport else { return dump }
        try Task.checkCancellation()
        let sun = options.families[NTAG424SUNOptions.self]
        let settings: SDMSettings?
        if let layout = sun.layout {
            settings = layout
        } else {
            do {
                settings = try await NTAG424Command.fileSettings(of: NTAG424Command.sdmFile, transport: apdu).sdm
            } catch let error as NFCError where error != .tagRemoved && error != .userCanceled && error != .timeout {
                dump.facts.append(Fact(key: "SDM", value: "Not read: \(error.code)"))
                return dump
            }
        }
        guard let settings else {
            dump.facts.append(Fact(key: "SDM", value: "disabled"))
            return dump
        }
        let ndefFile = dump.files.first { $0.name == "NDEF File" }?.data ?? NTAG424SUN.file(of: dump.ndefMessage ?? [])
        dump.facts += NTAG424SUN.facts(NTAG424SUN.verify(file: ndefFile, settings: settings, options: sun), settings: settings)
        return dump
    }

    public func userSummary(for dump: TagDump, storage: String) -> String? {
        "Read an NTAG 424 DNA (NFC Forum Type 4 files and SDM settings) with \(storage)."
    }

    public func inferredCapabilities(of dump: TagDump) -> [CardCapability]? { Self.type4.inferredCapabilities(of: dump) }

    /// The Type 4 row's formats (Flipper refuses an NTAG 4xx DNA in its words).
    public var fileFormats: [FileFormatRow] { Self.type4.fileFormats }

    public func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData? {
        try Self.type4.familyData(fromJSON: json, dump: dump)
    }

    /// The GetVersion product row (``DESFireProductTable``) a file's `version` names.
    public func product(named name: String, for info: CardInfo) -> Product? {
        DESFireFamily().product(named: name, for: info)
    }
}
