import FoundationEssentials

/// Structured JSON export: CoreExtendedNFC's schema, byte for byte, plus additive keys that make the
/// file a complete, re-importable dump (see docs/formats.md, "JSON").
extension TagDump {
    /// The dump as JSON with sorted keys (pretty-printed by default; Foundation's layout, `/` escaped
    /// as `\/`, as upstream). Hex is uppercase without separators.
    ///
    /// Upstream keys: `blocks`, `capabilities` (the summary's: inferred when the dump stores none),
    /// `cardFamily`, `cardType`, `facts`, `files`, `ndefHex` (when there is a message), `pages`,
    /// `parsedNDEF` (when it parses), `technicalSummary`, `uid`, `userSummary`.
    /// Additive keys, each only when known: `atqa`, `sak`, `ats`, `product`, `version`, `pmm`,
    /// `systemCode`, `probes` (when not empty), `capabilitiesInferred` (true when the dump stores no
    /// capabilities), and the family's typed data, as its ``FamilyDumpPayload`` writes it (Type 2 chip
    /// data: `signature`, `counters`, `tearing`, `pagesTotal`; Classic: `trailerGaps`; Type 4 and FeliCa:
    /// `ndefWritable`) — the keys ``TagFamilyFiles/jsonFamilyData(of:)`` names.
    /// An ISO 14443-B card's ATQB fields are two more additive keys, `applicationData` and `protocolInfo`.
    /// - Throws: ``NFCError/invalidArgument(_:)`` if Foundation cannot encode (not expected).
    public func exportJSON(prettyPrinted: Bool = true) throws -> String {
        let document = jsonDocument
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
        do {
            return String(decoding: try encoder.encode(document), as: UTF8.self)
        } catch {
            throw NFCError.invalidArgument("JSON encoding failed: \(error)")
        }
    }

    /// The document ``exportJSON(prettyPrinted:)`` writes, as a value: for a caller that embeds the
    /// export in a JSON document of its own (the agent's `event/dump` and `dump` responses) without
    /// going through JSON text.
    public var jsonExportDocument: any Encodable { jsonDocument }

    private var jsonDocument: DumpJSONExport {
        DumpJSONExport(document: genericJSONDocument, familyData: TagFamilies.files(for: cardInfo.type)?.jsonFamilyData(of: self)
                       ?? family.payload)
    }

    private var genericJSONDocument: DumpJSONDocument {
        let summary = summary
        return DumpJSONDocument(
            blocks: blocks.map { .init(data: $0.data.hexString, locked: $0.locked, number: $0.number) },
            capabilities: summary.capabilities.map(\.rawValue),
            cardFamily: cardInfo.type.family.description,
            cardType: cardInfo.type.description,
            facts: facts.map { .init(key: $0.key, monospaced: $0.monospaced, value: $0.value) },
            files: files.map { .init(data: $0.data.hexString, identifier: $0.identifier.hexString, name: $0.name) },
            ndefHex: ndefMessage?.hexString,
            pages: pages.map { .init(data: $0.data.hexString, number: $0.number) },
            parsedNDEF: parsedNDEFRecords,
            technicalSummary: summary.technicalSummary,
            uid: cardInfo.uid.hexString,
            userSummary: summary.userSummary,
            applicationData: cardInfo.applicationData?.hexString,
            atqa: cardInfo.atqa?.hexString,
            ats: cardInfo.ats?.hexString,
            capabilitiesInferred: capabilities.isEmpty ? true : nil,
            pmm: cardInfo.pmm?.hexString,
            probes: cardInfo.probes.isEmpty ? nil : cardInfo.probes,
            product: cardInfo.product?.name,
            protocolInfo: cardInfo.protocolInfo?.hexString,
            sak: cardInfo.sak?.hexString,
            systemCode: cardInfo.systemCode?.hexString,
            version: cardInfo.version?.hexString
        )
    }
}

/// The export: the generic document and, merged into the same object, the family's additive keys.
struct DumpJSONExport: Encodable {
    var document: DumpJSONDocument
    var familyData: (any Encodable)?

    func encode(to encoder: any Encoder) throws {
        try document.encode(to: encoder)
        try familyData?.encode(to: encoder)
    }
}

/// The JSON document, one property per key (optional ones are left out when nil). Upstream keys
/// first, then ours; the encoder sorts them.
struct DumpJSONDocument: Codable {
    struct BlockEntry: Codable {
        var data: String
        var locked: Bool?
        var number: Int
    }

    struct FactEntry: Codable {
        var key: String
        var monospaced: Bool?
        var value: String
    }

    struct FileEntry: Codable {
        var data: String
        var identifier: String
        var name: String?
    }

    struct PageEntry: Codable {
        var data: String
        var number: Int
    }

    // Upstream (CoreExtendedNFC `exportStructuredJSON`). Optional only so hand-written files may
    // leave arrays out; the exporter always writes them.
    var blocks: [BlockEntry]?
    var capabilities: [String]?
    var cardFamily: String?
    var cardType: String
    var facts: [FactEntry]?
    var files: [FileEntry]?
    var ndefHex: String?
    var pages: [PageEntry]?
    var parsedNDEF: [NDEFRecordDisplay]?
    var technicalSummary: String?
    var uid: String
    var userSummary: String?

    // Additive (NFCBridge). The family's own keys are its payload's (``FamilyDumpPayload``).
    var applicationData: String?
    var atqa: String?
    var ats: String?
    var capabilitiesInferred: Bool?
    var pmm: String?
    var probes: [String]?
    var product: String?
    var protocolInfo: String?
    var sak: String?
    var systemCode: String?
    var version: String?
}
