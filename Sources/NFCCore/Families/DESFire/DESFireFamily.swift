/// The MIFARE DESFire row of ``TagFamilies``: DESFire (MF3ICD40), EV1, EV2, EV3 and DESFire Light
/// (every card type of the `.mifareDesfire` family). Identification is the ISO-DEP probes' own
/// (``ISODEPRefinement``: GetVersion majors 01h/12h/33h, Light by hardware type 08h; an NTAG 424 DNA,
/// hardware type 04h, is a Type 4 tag and stays with ``Type4Family``). NDEF lives in the card's NFC
/// Forum Type 4 application and goes through the Type 4 mapping; the dump walks applications and
/// files with ``DESFireDumper``.
public struct DESFireFamily: TagFamily, Type4NDEFWriting {
    public init() {}

    public var name: String { "MIFARE DESFire" }

    public func claims(_ type: CardType) -> Bool { type.family == .mifareDesfire }

    /// ATQA 0344 + SAK 20 (AN10833 §2), and 0304 + SAK 20, a DESFire with a random UID.
    public var classifierRules: [CardClassifier.Rule] {
        [.init(atqaMask: 0xFFFF, atqaValues: [0x0344, 0x0304], saks: [0x20], type: .mifareDesfire)]
    }

    /// GetVersion names EV1/EV2/EV3/Light (the product table of ``DESFireProductTable``).
    public func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo {
        let (refined, stop) = await ISODEPRefinement.run(info, transport: transport)
        if let stop { throw stop }
        return refined
    }

    /// The NDEF Tag Application a DESFire may hold (NXP AN11004).
    public func ndefMapping(for type: CardType) -> NDEFMapping? { .type4 }

    public func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult {
        guard let apdu = transport as? any APDUTransport else {
            return .notRead(.unsupportedOperation("This reader cannot exchange ISO 7816 APDUs"))
        }
        return try await Type4NDEFReader.read(transport: apdu, selected: info.type4Selection)
    }

    /// The spec's DESFire dump (``DESFireDumper``), then the NDEF message of the Type 4 application
    /// when the card has one. The GetVersion answer identification kept is reused (no second GetVersion).
    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        guard let apdu = transport as? any APDUTransport else {
            throw NFCError.unsupportedOperation("This reader cannot exchange ISO 7816 APDUs")
        }
        let known = info.version.flatMap { try? DESFireVersion(bytes: $0) }
        var desfire = try await DESFireDumper.dump(transport: apdu, version: known, keys: options.families.desfireKeys,
                                                   keyData: options.target.holdsDESFireKeyData)
        var info = info
        // The walk selected its applications: what identification left selected is gone.
        info.type4Selection = nil
        if info.version == nil {
            info.version = desfire.version.bytes
            if let product = desfire.version.product { info.product = Product(product) }
        }
        try Task.checkCancellation()
        // The NDEF application is read only when the walk found files it could read: a card whose
        // directory is closed is not asked again.
        var ndef: [UInt8]?
        if !desfire.files.isEmpty {
            // The scan's own NDEF read (``NDEFReader``): an answer it cannot read is `.unreadable`;
            // cancellation, a tag that left and a reader that went away are thrown.
            switch try await NDEFReader.read(info: info, transport: apdu) {
            case let .message(message) where !message.isEmpty: ndef = message
            case let .unreadable(error), let .notRead(error):
                // A bad NDEF file (NLEN past its end, a refused READ BINARY) is named; the files stand.
                desfire.ndefSkipReason = error.message
                desfire.facts = DESFireDumper.facts(of: desfire)
            case .message, .noMessage: break
            }
        }
        return desfire.tagDump(info: info, ndefMessage: ndef)
    }

    public func userSummary(for dump: TagDump, storage: String) -> String? {
        "Enumerated DESFire applications and captured \(storage)."
    }

    /// Upstream's rule for a dump that stores no capabilities (a JSON file without them).
    /// No additive JSON keys: the DESFire JSON dump is the upstream schema (`files` keyed `AID/fileID`).
    public func jsonFamilyData(of dump: TagDump) -> (any Encodable)? { nil }

    public func inferredCapabilities(of dump: TagDump) -> [CardCapability]? {
        dump.files.isEmpty ? [.authenticationRequired, .partiallyReadable] : [.partiallyReadable]
    }

    /// Flipper's `Mifare DESFire` file of a dump with the application walk (Formats/DESFireFlipperExport.swift);
    /// the page and block images refuse a DESFire dump in the family's words.
    public var fileFormats: [FileFormatRow] { Self.files }

    private static let files: [FileFormatRow] = [
        FileFormatRow(.flipper, takes: isDESFire, holds: DESFireFlipperExport.holds,
                      save: { dump, _ in Array(try DESFireFlipperExport.export(dump).utf8) }),
        .refusing(.pm3, takes: isDESFire) { pageImageRefusal(.pm3, $0) },
        .refusing(.pm3json, takes: isDESFire) { ExportFormat.pm3json.cannotHold($0, what: "page or block images") },
        .refusing(.pm3key, takes: isDESFire) { ExportFormat.pm3key.cannotHold($0, what: "page or block images") },
        .refusing(.eml, takes: isDESFire) { ExportFormat.eml.cannotHold($0, what: "page or block images") },
        .refusing(.mfd, takes: isDESFire) { pageImageRefusal(.mfd, $0) },
    ]

    @Sendable private static func isDESFire(_ dump: TagDump) -> Bool { DESFireFamily().claims(dump.cardInfo.type) }

    /// The refusal of MFD and Proxmark3 MFU, naming Flipper only when it holds this dump (not a DESFire
    /// Light, not a JSON import without the walk: the Flipper row's ``FileFormatRow/holds``).
    private static func pageImageRefusal(_ format: ExportFormat, _ dump: TagDump) -> NFCError {
        let hint = ExportFormat.flipper.holds(dump) ? "use json or flipper" : "use json"
        return NFCError.unsupportedOperation(
            "\(format == .mfd ? "libnfc MFD" : "Proxmark3 MFU") files hold page images; they cannot hold a \(DESFireFamily().name) dump (applications and files): \(hint)")
    }

    /// The GET_VERSION product row of the file's `version` bytes, when the file names it (DESFire, and
    /// the DESFire-style products other families own: NTAG 4xx DNA, MIFARE Plus).
    public func product(named name: String, for info: CardInfo) -> Product? {
        guard let bytes = info.version, let version = try? DESFireVersion(bytes: bytes),
              let row = version.product, row.name == name
        else { return nil }
        return Product(row)
    }
}

extension DESFireDump {
    /// The generic dump: one ``FileData`` per file read, identifier = AID (or DF name) + file number and
    /// name `AID/fileID`, in walk order; the facts; the capabilities; and the walk itself as family data.
    public func tagDump(info: CardInfo, ndefMessage: [UInt8]? = nil) -> TagDump {
        var files: [FileData] = []
        for app in applications {
            for file in app.files {
                guard let content = file.content else { continue }
                files.append(FileData(identifier: app.aid + [file.id], data: content.bytes,
                                      name: Self.key(aid: app.aid, file: file.id)))
            }
        }
        return TagDump(cardInfo: info, files: files, ndefMessage: ndefMessage, facts: facts,
                       capabilities: capabilities, family: .desfire(self))
    }
}

extension DumpTarget {
    /// Whether the output holds DESFire key data (GetKeySettings, GetKeyVersion): JSON (the key settings
    /// among the facts), Flipper (`PICC Key Settings`, `Key n Version`) and the agent's record do; the raw
    /// binary and the hex listing hold the files only.
    var holdsDESFireKeyData: Bool {
        switch self {
        case .everything, .file(.json), .file(.flipper): true
        case .file, .memory: false
        }
    }
}
