/// The ISO 15693 (NFC Forum Type 5) row of ``TagFamilies``: ICODE SLIX / SLIX2 / DNA, ST25TV / ST25DV,
/// Tag-it HF-I and every other vicinity tag.
///
/// Everything goes through ``ISO15693Transport``. libnfc has none (no ISO 15693 modulation), so on a
/// PN53x reader the verbs answer ``NFCError/unsupportedOperation(_:)`` naming the reader's limit; the
/// PC/SC backend (issue 14) and the tests' virtual tags implement it.
public struct ISO15693Family: TagFamily {
    public init() {}

    public var name: String { "ISO 15693" }

    public func claims(_ type: CardType) -> Bool { type.family == .iso15693 }

    /// The refusal of a transport that cannot send ISO 15693 requests.
    static func noTransport(_ what: String) -> NFCError {
        .unsupportedOperation("\(what) ISO 15693 tags needs a reader that sends ISO 15693 requests; this one cannot "
                              + "(libnfc and PN53x readers have no ISO 15693 modulation)")
    }

    /// Types the tag by its IC manufacturer (UID byte 1 MSB first) and, after GET SYSTEM INFORMATION
    /// (and its EXTENDED form when needed), the IC reference and size (``ISO15693Product/table``). The
    /// probes are recorded; a tag that answers neither is typed from its UID alone.
    public func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo {
        guard let transport = transport as? any ISO15693Transport else { return info }
        var refined = info
        let system: ISO15693SystemInfo?
        do {
            system = try await ISO15693SystemInfo.read(uid: info.uid, transport: transport, probes: &refined.probes)
        } catch let NFCError.unsupportedOperation(reason) {
            // A reader that cannot send the request (PC/SC without a transparent session): typed from the
            // UID's IC manufacturer; blocks still come through READ / UPDATE BINARY.
            refined.probes.append("GET SYSTEM INFORMATION: not sent")
            refined.notRefined.append(RefinementGap(
                step: "GET SYSTEM INFORMATION (2Bh)", reason: "\(reason); typed from the UID's IC manufacturer, sized by the CC"))
            system = nil
        }
        if let product = ISO15693Product.match(uid: info.uid, info: system) {
            refined.type = product.type
            refined.product = Product(product)
        }
        return refined
    }

    public func ndefMapping(for type: CardType) -> NDEFMapping? { .type5 }

    public func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult {
        guard let transport = transport as? any ISO15693Transport else { return .notRead(Self.noTransport("Reading NDEF from")) }
        return try await Type5NDEF.read(info: info, transport: transport)
    }

    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        guard let transport = transport as? any ISO15693Transport else { throw Self.noTransport("Dumping") }
        return try await ISO15693Dump.dump(info: info, transport: transport, progress: options.progress)
    }

    public func write(ndef bytes: [UInt8], to transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        guard let transport = transport as? any ISO15693Transport else {
            throw TagOperationError(Self.noTransport("Writing NDEF to"))
        }
        return try await Type5NDEF.write(bytes, newCC: false, info: info, transport: transport)
    }

    /// Writes the CC of the MLEN rule and an empty NDEF message.
    public func format(_ transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        guard let transport = transport as? any ISO15693Transport else { throw TagOperationError(Self.noTransport("Formatting")) }
        return try await Type5NDEF.write([], newCC: true, info: info, transport: transport)
    }

    /// CC write access 11b plus LOCK BLOCK of the area (``Type5NDEF/lock(info:transport:)``): **irreversible**.
    public func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8], password: [UInt8]?)
        async throws(TagOperationError) -> LockReport
    {
        guard let transport = transport as? any ISO15693Transport else { throw TagOperationError(Self.noTransport("Locking")) }
        return try await Type5NDEF.lock(info: info, transport: transport)
    }

    /// Flipper's `ISO15693-3` file, saved (Formats/FlipperISO15693Export.swift) and loaded
    /// (Formats/FlipperISO15693Import.swift: `Device type: ISO15693-3`, or `SLIX` and the legacy
    /// `ISO15693` of Versions 2–3; other Flipper files are the next row's). The page and block images
    /// are the other rows' (which refuse a dump without pages).
    public var fileFormats: [FileFormatRow] { Self.files }

    private static let files: [FileFormatRow] = [
        FileFormatRow(.flipper, takes: { ISO15693Family().claims($0.cardInfo.type) }, holds: { $0.holdsFlipperISO15693Blocks },
                      save: { dump, _ in Array(try dump.exportFlipperISO15693NFC().utf8) },
                      load: { bytes in
                          // Not UTF-8: not this row's to say (the Type 2 row refuses it as "not UTF-8 text").
                          guard let text = try? FileFormatRow.utf8Text(bytes) else { return nil }
                          let file = FlipperKeyValues(text)
                          guard let deviceType = file["Device type"], let version = try? file.fileVersion(),
                                FlipperISO15693Format.reads(deviceType, fileVersion: version)
                          else { return nil }
                          return try TagDump.importFlipperISO15693NFC(text)
                      }),
    ]

    public func userSummary(for dump: TagDump, storage: String) -> String? { "Read ISO 15693 vicinity memory with \(storage)." }

    public func product(named name: String, for info: CardInfo) -> Product? {
        guard claims(info.type) else { return nil }
        return ISO15693Product.named(name).map { Product($0) }
    }

    /// The system information a JSON dump keeps under its `iso15693` key (written by
    /// ``ISO15693SystemInfo/encode(to:)``); nil for a file without it — never read from the facts.
    /// - Throws: ``NFCError/malformedDump(_:)`` for a block count or size no tag reports
    ///   (``ISO15693SystemInfo/fromJSON(_:uid:)``).
    public func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData? {
        let keys = try FamilyJSON.decode(ISO15693SystemInfo.JSONKeys.self, from: json)
        return try ISO15693SystemInfo.fromJSON(keys, uid: dump.cardInfo.uid).map(FamilyDumpData.iso15693)
    }
}
