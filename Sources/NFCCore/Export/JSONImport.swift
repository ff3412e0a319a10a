import FoundationEssentials

/// Structured JSON import: upstream CoreExtendedNFC JSON and ours (with the additive keys).
extension TagDump {
    /// Reads a JSON dump. Derived keys (`cardFamily`, summaries, `parsedNDEF`) are ignored, and so are the
    /// facts but as text for people: the family's typed data comes from its own additive keys
    /// (``TagFamilyFiles/familyData(fromJSON:dump:)``);
    /// `capabilities` are kept as the dump's own unless `capabilitiesInferred` says they were inferred.
    /// A dump exported by ``exportJSON(prettyPrinted:)`` reads back equal (`==`).
    /// - Throws: ``NFCError/malformedDump(_:)`` when the JSON does not decode, a hex value is not hex
    ///   (or an ATQA, GET_VERSION answer or ATQB field not its length), the card type or a capability is unknown, or a family's
    ///   additive key holds a value no tag has (an ISO 15693 `blockCount` of −1:
    ///   ``TagFamilyFiles/familyData(fromJSON:dump:)``), or the dump does not fit the product's memory
    ///   (``DumpImporter/checkBounds(_:)``: page 2^31 of an NTAG213 is refused, not exported as 8 GiB).
    public static func importJSON(_ bytes: [UInt8]) throws -> TagDump {
        let document: DumpJSONDocument
        do {
            document = try JSONDecoder().decode(DumpJSONDocument.self, from: Data(bytes))
        } catch {
            throw NFCError.malformedDump("JSON: \(FamilyJSON.describe(error))")
        }
        guard let type = CardType(description: document.cardType) else {
            throw NFCError.malformedDump("unknown cardType '\(document.cardType)'")
        }
        let stored = try (document.capabilities ?? []).map { raw in
            guard let capability = CardCapability(rawValue: raw) else {
                throw NFCError.malformedDump("unknown capability '\(raw)'")
            }
            return capability
        }
        let sak = try document.sak.map { text in
            let byte = try hex(text, "sak")
            guard byte.count == 1 else { throw NFCError.malformedDump("sak '\(text)' is not one byte") }
            return byte[0]
        }
        let applicationData = try document.applicationData.map {
            try hex($0, "applicationData", count: 4, meaning: "the ATQB's Application Data, ISO/IEC 14443-3 §7.9.3")
        }
        let protocolInfo = try document.protocolInfo.map {
            try hex($0, "protocolInfo", count: 3, meaning: "the ATQB's Protocol Info, ISO/IEC 14443-3 §7.9.4")
        }
        let atqa = try document.atqa.map {
            try hex($0, "atqa", count: 2, meaning: "the ATQA, ISO/IEC 14443-3 §6.4.2")
        }
        let version = try document.version.map { text in
            let bytes = try hex(text, "version")
            // GET_VERSION: 8 bytes on Ultralight and NTAG (NTAG213/215/216 datasheet §10.1); DESFire
            // GetVersion's three frames, as DESFireVersion reads them.
            let fits = bytes.count == 8 || (Type2MemoryMap.forType(type) == nil && (try? DESFireVersion(bytes: bytes)) != nil)
            guard fits else {
                throw NFCError.malformedDump("version '\(text)' is not a GET_VERSION answer (8 bytes on MIFARE Ultralight and NTAG, "
                                                + "28 and up on DESFire)")
            }
            return bytes
        }
        var dump = TagDump(
            cardInfo: CardInfo(
                type: type, uid: try hex(document.uid, "uid"),
                atqa: atqa, sak: sak,
                ats: try document.ats.map { try hex($0, "ats") },
                version: version,
                pmm: try document.pmm.map { try hex($0, "pmm") },
                systemCode: try document.systemCode.map { try hex($0, "systemCode") },
                probes: document.probes ?? []),
            pages: try (document.pages ?? []).map { Page(number: $0.number, data: try hex($0.data, "page \($0.number)")) },
            blocks: try (document.blocks ?? []).map {
                Block(number: $0.number, data: try hex($0.data, "block \($0.number)"), locked: $0.locked ?? false)
            },
            files: try (document.files ?? []).map {
                FileData(identifier: try hex($0.identifier, "file identifier"), data: try hex($0.data, "file \($0.identifier)"),
                         name: $0.name)
            },
            ndefMessage: try document.ndefHex.map { try hex($0, "ndefHex") },
            facts: (document.facts ?? []).map { Fact(key: $0.key, value: $0.value, monospaced: $0.monospaced ?? false) },
            capabilities: document.capabilitiesInferred == true ? [] : stored
        )
        // The product's row, from the card's own family first (its name is all the file keeps).
        dump.cardInfo.product = document.product.map { name in
            let owner = TagFamilies.files(for: type)
            return ((owner.map { [$0] } ?? []) + TagFamilies.allFiles).lazy
                .compactMap { $0.product(named: name, for: dump.cardInfo) }.first ?? Product(named: name)
        }
        dump.cardInfo.applicationData = applicationData
        dump.cardInfo.protocolInfo = protocolInfo
        // The family's typed data, from its additive keys (or, in a file written without them, from the
        // memory): the card's own family first, then any other whose keys the file holds.
        let owner = TagFamilies.files(for: type)
        for family in (owner.map { [$0] } ?? []) + TagFamilies.allFiles {
            if let data = try family.familyData(fromJSON: bytes, dump: dump) {
                dump.family = data
                break
            }
        }
        // Public on its own: the memory bounds apply here as in ``DumpImporter/importDump(_:format:fileName:)``.
        try DumpImporter.checkBounds(dump)
        return dump
    }

    private static func hex(_ text: String, _ field: String) throws -> [UInt8] {
        guard let bytes = [UInt8](hex: text) else { throw NFCError.malformedDump("\(field) '\(text)' is not hex") }
        return bytes
    }

    /// ``hex(_:_:)`` of a field with a fixed length; `meaning` says what the field is, for the message.
    private static func hex(_ text: String, _ field: String, count: Int, meaning: String) throws -> [UInt8] {
        let bytes = try hex(text, field)
        guard bytes.count == count else {
            throw NFCError.malformedDump("\(field) '\(text)' is not \(count) bytes (\(meaning))")
        }
        return bytes
    }
}
